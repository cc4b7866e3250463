package result

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSaveLoad(t *testing.T) {
	root := t.TempDir()
	w, err := Create(root, "run1")
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{Schema: Schema, ID: "run1", Status: Running, Series: []Second{{T: 1, OK: 5}}}
	if err := w.Save(r); err != nil {
		t.Fatal(err)
	}
	r.Series = append(r.Series, Second{T: 2, OK: 6})
	if err := w.Save(r); err != nil {
		t.Fatal(err)
	}
	got, err := Load(filepath.Join(root, "run1"))
	if err != nil || len(got.Series) != 2 {
		t.Fatalf("Load: %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(root, "run1", "."+FileName+".tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the temporary file was left behind")
	}
	if _, err := Create(root, "run1"); !errors.Is(err, os.ErrExist) {
		t.Fatalf("Create of an existing folder: %v", err)
	}
	os.WriteFile(filepath.Join(root, "old.json"), []byte(`{"schema":"dbgauge.result/0"}`), 0o644)
	if _, err := Load(filepath.Join(root, "old.json")); !errors.Is(err, ErrSchema) {
		t.Fatalf("Load of another schema: %v", err)
	}
}
