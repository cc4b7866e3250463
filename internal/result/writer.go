package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// FileName is the name of the record inside a result folder.
const FileName = "result.json"

// Writer saves a Result into its folder. It is not safe for concurrent use.
type Writer struct {
	dir string
}

// Create makes the folder root/id and returns a Writer for it. It fails if the
// folder exists or cannot be written.
func Create(root, id string) (*Writer, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	dir := filepath.Join(root, id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	return &Writer{dir: dir}, nil
}

// CreateNew makes a new folder in root named base, or base-2, base-3 …
// when another run (started in the same second) has that name already.
func CreateNew(root, base string) (*Writer, error) {
	var err error
	for i := 1; i < 100; i++ {
		id := base
		if i > 1 {
			id += fmt.Sprintf("-%d", i)
		}
		var w *Writer
		if w, err = Create(root, id); err == nil || !errors.Is(err, os.ErrExist) {
			return w, err
		}
	}
	return nil, err
}

// Dir returns the result folder.
func (w *Writer) Dir() string { return w.dir }

// Save writes r atomically: a reader sees the previous record or this one,
// never a mix, even after kill -9 or a power cut.
func (w *Writer) Save(r *Result) error {
	r.Updated = time.Now().UTC()
	return SaveJSON(w.dir, FileName, r)
}

// SaveJSON writes v as indented JSON into dir/name atomically: written to
// a temporary file, flushed, then renamed over the old one.
func SaveJSON(dir, name string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	tmp := filepath.Join(dir, "."+name+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// ErrSchema is returned by Load for a record of another schema version.
var ErrSchema = errors.New("unknown result schema")

// Load reads a result from a folder or a result.json path.
func Load(path string) (*Result, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, FileName)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !Known(r.Schema) {
		return nil, fmt.Errorf("%s: %w %q (this dbgauge reads %q)", path, ErrSchema, r.Schema, append([]string{Schema}, Readable...))
	}
	return &r, nil
}

// Known reports whether this dbgauge reads records of schema version v.
func Known(v string) bool {
	return v == Schema || slices.Contains(Readable, v)
}
