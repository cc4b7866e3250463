// Package matrix runs a workload over every combination of the values given
// to its knobs (--durability sync,lazy,off --clients 1,8), each combination
// --repeat times, every cell in a process of its own started from a fresh
// state. The matrix folder holds one result folder per cell and an index
// (matrix.json) rewritten after each cell, from which an interrupted matrix
// resumes.
package matrix

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
)

// IndexFile is the name of the index inside a matrix folder.
const IndexFile = "matrix.json"

// Knob is one knob the user set, as given ("\n" joins a repeatable knob's values).
type Knob struct {
	Name, Value string
}

// keyed are the repeatable knobs written key=value whose keys are axes of
// their own: --set (an engine setting) and --define (a script's variable).
var keyed = map[string]bool{"set": true, "define": true}

// Split sorts the knobs the user set into those every cell shares and the
// axes: knobs whose value is a comma list, unless single says the commas are
// the knob's own. A --set or --define whose value is a list (--set
// page_size=4096,8192, -D hot_ratio=0.1,0.5) is an axis named after its key.
func Split(given []Knob, single func(name string) bool) (fixed []Knob, axes []result.Axis) {
	for _, k := range given {
		if single(k.Name) {
			fixed = append(fixed, k)
			continue
		}
		if keyed[k.Name] {
			var keep []string
			for _, line := range strings.Split(k.Value, "\n") {
				key, val, ok := strings.Cut(line, "=")
				if ok && strings.Contains(val, ",") {
					axes = append(axes, result.Axis{Knob: key, Flag: k.Name, Values: list(val)})
					continue
				}
				keep = append(keep, line)
			}
			if len(keep) > 0 {
				fixed = append(fixed, Knob{k.Name, strings.Join(keep, "\n")})
			}
			continue
		}
		if strings.Contains(k.Value, ",") {
			axes = append(axes, result.Axis{Knob: k.Name, Values: list(k.Value)})
			continue
		}
		fixed = append(fixed, k)
	}
	return fixed, axes
}

// list splits a comma list, trimming blanks and dropping empty items.
func list(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Combos returns every combination of the axes' values, the first axis
// varying slowest.
func Combos(axes []result.Axis) []map[string]string {
	out := []map[string]string{{}}
	for _, a := range axes {
		var next []map[string]string
		for _, c := range out {
			for _, v := range a.Values {
				m := make(map[string]string, len(c)+1)
				for k, x := range c {
					m[k] = x
				}
				m[a.Knob] = v
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

// Key names a combination: "durability=sync clients=8", in the axes' order.
func Key(axes []result.Axis, values map[string]string) string {
	parts := make([]string, 0, len(axes))
	for _, a := range axes {
		parts = append(parts, a.Knob+"="+values[a.Knob])
	}
	return strings.Join(parts, " ")
}

// New lays out a matrix: every combination, repeat times. Repeats are
// interleaved (all combinations once, then again) so that a drift of the
// machine spreads over the cells instead of landing on one; shuffle
// randomises the whole order with seed.
func New(id, workload, metric string, command []string, fixed []Knob, axes []result.Axis, repeat int, shuffle bool, seed uint64) *result.Matrix {
	m := &result.Matrix{
		Schema: result.MatrixSchema, ID: id, Status: result.Running, Command: command, Workload: workload,
		Metric: metric, Started: time.Now().UTC(), Axes: axes, Repeat: repeat, Shuffle: shuffle, Seed: seed,
		Args: Flags(fixed),
	}
	combos := Combos(axes)
	for r := 1; r <= repeat; r++ {
		for i, c := range combos {
			cid := fmt.Sprintf("%03d-r%d", i+1, r)
			m.Cells = append(m.Cells, result.Cell{ID: cid, Key: Key(axes, c), Values: c, Repeat: r, Dir: filepath.Join("cells", cid)})
		}
	}
	if shuffle {
		rng := rand.New(rand.NewPCG(seed, 0x6d6174726978))
		rng.Shuffle(len(m.Cells), func(i, j int) { m.Cells[i], m.Cells[j] = m.Cells[j], m.Cells[i] })
	}
	return m
}

// Flags turns knobs into command-line flags (--name=value), one per value
// of a repeatable knob.
func Flags(knobs []Knob) []string {
	var out []string
	for _, k := range knobs {
		for _, v := range strings.Split(k.Value, "\n") {
			out = append(out, "--"+k.Name+"="+v)
		}
	}
	return out
}

// CellFlags returns the flags of one cell: the shared ones, then its axis
// values.
func CellFlags(m *result.Matrix, c result.Cell) []string {
	out := slices.Clone(m.Args)
	for _, a := range m.Axes {
		v := c.Values[a.Knob]
		if keyed[a.Flag] {
			out = append(out, "--"+a.Flag+"="+a.Knob+"="+v)
			continue
		}
		out = append(out, "--"+a.Knob+"="+v)
	}
	return out
}

// Save writes the index of m into dir atomically.
func Save(dir string, m *result.Matrix) error {
	m.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+IndexFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, IndexFile))
}

// ErrNotMatrix is returned by Load for a folder without an index.
var ErrNotMatrix = errors.New("not a matrix folder")

// Load reads the index of the matrix folder dir.
func Load(dir string) (*result.Matrix, error) {
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (no %s)", dir, ErrNotMatrix, IndexFile)
	}
	if err != nil {
		return nil, err
	}
	var m result.Matrix
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, IndexFile), err)
	}
	if m.Schema != result.MatrixSchema {
		return nil, fmt.Errorf("%s: unknown matrix schema %q (this dbgauge reads %q)", dir, m.Schema, result.MatrixSchema)
	}
	return &m, nil
}

// Pending returns the indexes of the cells without a completed result.
func Pending(m *result.Matrix) []int {
	var out []int
	for i, c := range m.Cells {
		if c.Status != result.Completed {
			out = append(out, i)
		}
	}
	return out
}

// Size describes the matrix for people: "2×2×2 × 3 repeats = 24 cells".
func Size(m *result.Matrix) string {
	var dims []string
	for _, a := range m.Axes {
		dims = append(dims, strconv.Itoa(len(a.Values)))
	}
	if len(dims) <= 1 && m.Repeat <= 1 {
		return fmt.Sprintf("%d cells", len(m.Cells))
	}
	s := strings.Join(dims, "×")
	if s == "" {
		s = "1"
	}
	if m.Repeat > 1 {
		s += fmt.Sprintf(" × %d repeats", m.Repeat)
	}
	return fmt.Sprintf("%s = %d cells", s, len(m.Cells))
}
