package result

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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

// TestLoadVersion1: a record written before units that found nothing to do
// were counted apart still loads, with none of them.
func TestLoadVersion1(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	old := `{"schema":"dbgauge.result/1","id":"old","status":"completed","summary":{"rate":10,"ok":100},` +
		`"phases":[{"name":"measure","ok":100,"failed":1,"rate":10}],"series":[{"t":1,"dt":1,"ok":10}]}`
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(p)
	if err != nil {
		t.Fatalf("a version-1 record does not load: %v", err)
	}
	if m := r.Phase("measure"); m == nil || m.OK != 100 || m.Nothing != 0 || r.Summary.Nothing != 0 {
		t.Fatalf("loaded %+v", r.Phases)
	}
	if Schema == "dbgauge.result/1" || !Known("dbgauge.result/1") || Known("dbgauge.result/9") {
		t.Errorf("schema %q, readable %v", Schema, Readable)
	}
}

// TestKnobsTyped: version 3 records knobs typed; read back from JSON, and
// from a version-2 record whose knobs are all text, Text gives the same.
func TestKnobsTyped(t *testing.T) {
	dir := t.TempDir()
	typed := `{"schema":"` + Schema + `","id":"new","status":"completed","config":{"knobs":{"clients":8,"rate":2.5,"procedure":true,"set":["a=1","b=2"],"db":"sqlite"}}}`
	text := `{"schema":"dbgauge.result/2","id":"old","status":"completed","config":{"knobs":{"clients":"8","rate":"2.5","procedure":"true","set":"a=1\nb=2","db":"sqlite"}}}`
	var texts []map[string]string
	for i, doc := range []string{typed, text} {
		p := filepath.Join(dir, strconv.Itoa(i)+".json")
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for k := range r.Config.Knobs {
			m[k] = r.Config.Knobs.Text(k)
		}
		texts = append(texts, m)
	}
	want := map[string]string{"clients": "8", "rate": "2.5", "procedure": "true", "set": "a=1\nb=2", "db": "sqlite"}
	for i, m := range texts {
		if !reflect.DeepEqual(m, want) {
			t.Errorf("record %d: %v, want %v", i, m, want)
		}
	}
	if _, ok := (Knobs{"clients": int64(8)})["clients"].(int64); !ok || (Knobs{"clients": int64(8)}).Text("clients") != "8" || (Knobs{}).Text("x") != "" {
		t.Error("Text of an int64 or of a knob not given")
	}
}

// TestCreateNew: a second folder of the same name in the same root gets a
// suffix of its own, never the first one's folder.
func TestCreateNew(t *testing.T) {
	root := t.TempDir()
	a, err := CreateNew(root, "20261128-165317-matrix-insert")
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateNew(root, "20261128-165317-matrix-insert")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(a.Dir()) != "20261128-165317-matrix-insert" || filepath.Base(b.Dir()) != "20261128-165317-matrix-insert-2" {
		t.Fatalf("folders %s and %s", a.Dir(), b.Dir())
	}
}
