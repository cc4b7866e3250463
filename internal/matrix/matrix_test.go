package matrix

import (
	"reflect"
	"slices"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

func TestSplit(t *testing.T) {
	single := func(n string) bool { return n == "require" }
	fixed, axes := Split([]Knob{
		{"durability", "sync, lazy,off"},
		{"clients", "4"},
		{"require", "calls/s>=1,5"},
		{"set", "page_size=4096,8192\ncache_size=-2000"},
		{"db", "sqlite,bbolt,sqlite"},
	}, single)
	wantAxes := []result.Axis{
		{Knob: "durability", Values: []string{"sync", "lazy", "off"}},
		{Knob: "page_size", Flag: "set", Values: []string{"4096", "8192"}},
		{Knob: "db", Values: []string{"sqlite", "bbolt"}},
	}
	if !reflect.DeepEqual(axes, wantAxes) {
		t.Errorf("axes %+v", axes)
	}
	wantFixed := []Knob{{"clients", "4"}, {"require", "calls/s>=1,5"}, {"set", "cache_size=-2000"}}
	if !reflect.DeepEqual(fixed, wantFixed) {
		t.Errorf("fixed %+v", fixed)
	}
	m := New("id", "nms", "calls/s", nil, fixed, axes, 2, false, 1)
	if len(m.Cells) != 24 {
		t.Fatalf("%d cells", len(m.Cells))
	}
	// Repeats are interleaved: every combination once, then again.
	if m.Cells[0].Repeat != 1 || m.Cells[12].Repeat != 2 || m.Cells[12].Key != m.Cells[0].Key {
		t.Errorf("order: %+v %+v", m.Cells[0], m.Cells[12])
	}
	if k := m.Cells[1].Key; k != "durability=sync page_size=4096 db=bbolt" {
		t.Errorf("second cell %q", k)
	}
	flags := CellFlags(m, m.Cells[1])
	want := []string{"--clients=4", "--require=calls/s>=1,5", "--set=cache_size=-2000", "--durability=sync", "--set=page_size=4096", "--db=bbolt"}
	if !slices.Equal(flags, want) {
		t.Errorf("flags %q", flags)
	}
	// Shuffled: the same cells in another order, the same for the same seed.
	a := New("id", "nms", "calls/s", nil, fixed, axes, 2, true, 7)
	b := New("id", "nms", "calls/s", nil, fixed, axes, 2, true, 7)
	if !reflect.DeepEqual(a.Cells, b.Cells) || reflect.DeepEqual(a.Cells, m.Cells) {
		t.Error("shuffle is not a seeded permutation")
	}
	if got := Size(m); got != "3×2×2 × 2 repeats = 24 cells" {
		t.Errorf("size %q", got)
	}
}

func TestSaveLoadPending(t *testing.T) {
	dir := t.TempDir()
	m := New("id", "insert", "inserts/s", nil, nil, []result.Axis{{Knob: "clients", Values: []string{"1", "2"}}}, 1, false, 1)
	m.Cells[0].Status = result.Completed
	m.Cells[1].Status = result.Interrupted
	if err := Save(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p := Pending(got); !slices.Equal(p, []int{1}) {
		t.Errorf("pending %v", p)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("a folder without an index loaded")
	}
}
