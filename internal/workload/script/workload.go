package script

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers script in the catalog.
var Spec = workload.Spec{
	Name:    "script",
	Summary: "your own transactions: pgbench scripts (-f FILE@WEIGHT, -D NAME=VALUE) on any SQL engine",
	Source:  "pgbench's custom scripts (PostgreSQL's pgbench documentation, \"Custom Scripts\")",
	Unit:    "transaction",
	Units:   "transactions",
	APIs:    []backend.API{backend.SQL},
	Knobs: []knob.Spec{
		{Name: "file", Short: "f", Values: "FILE[@WEIGHT]", Repeat: true, Single: true,
			Usage: "a script in pgbench's language (repeatable): each is a unit kind, dealt in proportion to its weight"},
		{Name: "define", Short: "D", Values: "NAME=VALUE", Repeat: true, Uses: knob.ForLoad | knob.ForCheck,
			Usage: "a variable the scripts read as :NAME (repeatable)"},
		{Name: "scale", Short: "s", Kind: knob.Int, Default: "1", Uses: knob.ForLoad | knob.ForCheck, Usage: "the scripts' :scale (pgbench -s)"},
		{Name: "workload-file", Values: "FILE.toml", Single: true, Uses: knob.ForLoad,
			Usage: "a workload file: schema, data, transactions, checks, ledger (dbgauge run FILE.toml is the same)"},
	},
	New: newScript,
}

// Config is what a script run records.
type Config struct {
	File    string            `json:"file,omitempty"` // the workload file
	Name    string            `json:"name,omitempty"` // its name
	Scripts []ScriptConfig    `json:"scripts"`
	Defines map[string]string `json:"defines,omitempty"`
	Scale   int64             `json:"scale"`
	Commit  string            `json:"commit"`
}

// ScriptConfig is one script of the mix.
type ScriptConfig struct {
	Name   string `json:"name"` // its unit kind
	File   string `json:"file"`
	Weight int    `json:"weight"`
	// Transaction says how its commands are grouped: "its own" (BEGIN …
	// COMMIT in the script), "one" (dbgauge's, around the whole script),
	// "autocommit" (each command its own).
	Transaction string `json:"transaction"`
}

type scripts struct {
	cfg    Config
	prog   *Program
	common workload.Common
	// A workload file's: the file, its tables' generators, and Load's
	// progress (Progresser).
	file     *File
	tables   []table
	progress func(done, total int64)
}

func newScript(c workload.Common, v *knob.Values) (workload.Workload, error) {
	scale, err := v.Int("scale", 1, 1<<40)
	if err != nil {
		return nil, err
	}
	defines, err := Defines(v.List("define"))
	if err != nil {
		return nil, err
	}
	if path := v.Get("workload-file"); path != "" {
		return fromFile(c, path, defines, v.List("file"), scale)
	}
	files := v.List("file")
	if len(files) == 0 {
		return nil, knob.Bad("give one or more: -f FILE[@WEIGHT], e.g. -f select.sql@9 -f update.sql@1", "run script needs a script")
	}
	var list []*Script
	for _, arg := range files {
		s, err := ReadScript(arg)
		if err != nil {
			return nil, err
		}
		list = append(list, s)
	}
	return build(c, list, defines, scale)
}

// build checks the scripts as one program and makes the workload.
func build(c workload.Common, list []*Script, defines map[string]string, scale int64) (*scripts, error) {
	total := 0
	for _, s := range list {
		total += s.Weight
	}
	if total == 0 {
		return nil, knob.Bad("give at least one script a weight above 0", "every script has weight 0")
	}
	prog, err := NewProgram(list, defines)
	if err != nil {
		return nil, Bad(err)
	}
	if d, ok := defines["scale"]; ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n < 1 {
			return nil, knob.Bad("give a whole number ≥ 1", "-D scale=%s is not a scale", d)
		}
		scale = n
	}
	w := &scripts{prog: prog, common: c, cfg: Config{Defines: defines, Scale: scale, Commit: c.Commit.String()}}
	for i, s := range list {
		tx := "one"
		switch {
		case prog.own[i]:
			tx = "its own"
		case prog.single[i] || c.Commit.Mode == workload.PerOp:
			tx = "autocommit"
		}
		w.cfg.Scripts = append(w.cfg.Scripts, ScriptConfig{Name: prog.Kinds[i], File: s.Name, Weight: s.Weight, Transaction: tx})
	}
	return w, nil
}

// fromFile makes the workload of a workload file: its variables' defaults
// under -D's values.
func fromFile(c workload.Common, path string, defines map[string]string, files []string, scale int64) (workload.Workload, error) {
	if len(files) > 0 {
		return nil, knob.Bad("name the scripts in the file's [[transaction]]s, or drop the file and give -f alone",
			"a workload file and -f together")
	}
	f, err := ReadFile(path)
	if err != nil {
		return nil, Bad(err)
	}
	list, err := f.Scripts()
	if err != nil {
		return nil, Bad(err)
	}
	all := f.Defaults()
	maps.Copy(all, defines)
	w, err := build(c, list, all, scale)
	if err != nil {
		return nil, err
	}
	if w.tables, err = f.parseTables(); err != nil {
		return nil, Bad(err)
	}
	for _, t := range w.tables {
		vars := Vars(t.rows)
		for _, col := range t.cols {
			if col.expr != nil {
				vars = append(vars, Vars(col.expr)...)
			}
		}
		for _, v := range vars {
			if _, ok := all[v]; !ok && v != "row" && !slices.Contains(Builtins, v) {
				return nil, Bad(f.bad(t.name, fmt.Sprintf("table %s reads variable %q, which the file does not declare", t.name, v),
					"declare it under [variables], or give -D "+v+"=VALUE"))
			}
		}
	}
	w.file, w.cfg.File, w.cfg.Name = f, path, f.Name
	if f.Ledger != nil {
		return withLedger(w)
	}
	return w, nil
}

// ReadScript reads -f's argument: FILE[@WEIGHT].
func ReadScript(arg string) (*Script, error) {
	file, weight, err := ParseWeighted(arg)
	if err != nil {
		return nil, Bad(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, knob.Bad("give the path of a script file", "-f %s: %v", file, unwrapPath(err))
	}
	s, err := ParseScript(file, string(b))
	if err != nil {
		return nil, Bad(err)
	}
	s.Weight = weight
	return s, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Defines reads -D's values, NAME=VALUE each.
func Defines(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, d := range list {
		name, val, ok := strings.Cut(d, "=")
		if !ok || !validName(name) {
			return nil, knob.Bad("write -D NAME=VALUE, NAME of letters, digits and _, e.g. -D maxid=100000", "-D %q is not NAME=VALUE", d)
		}
		out[name] = val
	}
	return out, nil
}

// Bad turns a script's error into bad input (exit 2), kept on one line:
// file:line:column: what is wrong: what to write instead.
func Bad(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return &knob.Error{What: e.Pos.String() + ": " + e.Msg, Hint: e.Hint}
	}
	var k *knob.Error
	if errors.As(err, &k) {
		return k
	}
	return knob.Bad("", "%v", err)
}

func (w *scripts) Shape() workload.Shape {
	sh := workload.Shape{Ops: w.prog.Ops}
	for i, s := range w.prog.Scripts {
		u := workload.Weighted{Name: w.prog.Kinds[i], Weight: s.Weight}
		if op := w.prog.sole[i]; op >= 0 {
			u.Sole = w.prog.Ops[op] // one SQL command alone: the unit is it
		}
		sh.Units = append(sh.Units, u)
	}
	return sh
}

func (w *scripts) Config() any { return w.cfg }

// SetProgress hears how far Load got, in rows.
func (w *scripts) SetProgress(fn func(done, total int64)) { w.progress = fn }

// SetDebug prints the scripts' debug() lines with fn (workload.Debugged).
func (w *scripts) SetDebug(fn func(line string)) { w.prog.SetDebug(fn) }

// Load makes a workload file's schema and data. Scripts alone have nothing
// to load: they run on the database as it is (pgbench -i, dbgauge load
// tpcb, the user's own).
func (w *scripts) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	sdb, err := workload.SQLOf("script", db)
	if err != nil {
		return workload.Dataset{}, err
	}
	facts := map[string]string{"scale": fmt.Sprint(w.cfg.Scale)}
	reused := true
	if w.file != nil {
		c, err := sdb.Conn(ctx)
		if err != nil {
			return workload.Dataset{}, err
		}
		made, err := w.fill(ctx, c, sdb.Dialect())
		c.Close()
		if err != nil {
			return workload.Dataset{}, fmt.Errorf("%s: load: %w", w.file.path, err)
		}
		maps.Copy(facts, made)
		reused = false
	}
	for _, k := range slices.Sorted(maps.Keys(w.cfg.Defines)) {
		facts[":"+k] = w.cfg.Defines[k]
	}
	return workload.Dataset{Reused: reused, Facts: facts}, nil
}

// Client opens client id's connection.
func (w *scripts) Client(ctx context.Context, db backend.DB, id int, rng *rand.Rand) (workload.Client, error) {
	c, err := workload.SQLConnOf(ctx, "script", db)
	if err != nil {
		return nil, err
	}
	return w.prog.NewClient(c, w.common.Commit, id, w.cfg.Scale, int64(w.common.Seed), rng), nil
}
