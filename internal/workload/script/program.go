package script

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// Control is what an SQL command of a script does to the transaction:
// pgbench sends BEGIN and END as any other command; dbgauge hands them to
// the engine's own transaction calls (backend.Conn's Begin, Commit and
// Rollback), which every engine and driver has, where the text would not
// run everywhere (Firebird has no BEGIN, database/sql tracks its own).
type Control uint8

// The transaction controls of a script.
const (
	NoControl Control = iota
	BeginTx
	CommitTx
	RollbackTx
)

// controls are the commands read as transaction control, written upper
// case with single spaces.
var controls = map[string]Control{
	"BEGIN": BeginTx, "BEGIN WORK": BeginTx, "BEGIN TRANSACTION": BeginTx, "START TRANSACTION": BeginTx,
	"COMMIT": CommitTx, "COMMIT WORK": CommitTx, "COMMIT TRANSACTION": CommitTx,
	"END": CommitTx, "END WORK": CommitTx, "END TRANSACTION": CommitTx,
	"ROLLBACK": RollbackTx, "ROLLBACK WORK": RollbackTx, "ROLLBACK TRANSACTION": RollbackTx, "ABORT": RollbackTx,
}

// controlOf reads an SQL command as transaction control. A command that
// starts like one but says more (BEGIN ISOLATION LEVEL …) is refused: the
// engine's transaction calls cannot carry it.
func controlOf(c *Command) (Control, error) {
	words := strings.Join(strings.Fields(strings.ToUpper(c.SQL)), " ")
	if ctl, ok := controls[words]; ok {
		return ctl, nil
	}
	first, _, _ := strings.Cut(words, " ")
	switch first {
	case "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT":
		if first == "ROLLBACK" && strings.HasPrefix(words, "ROLLBACK TO") {
			return NoControl, nil // a savepoint's: the engine runs it as written
		}
		if first == "START" && !strings.HasPrefix(words, "START TRANSACTION") {
			return NoControl, nil
		}
		return NoControl, &Error{Pos: c.Pos, Msg: fmt.Sprintf("%q: dbgauge runs a script's transaction control through the engine's own calls, which take no options", c.SQL),
			Hint: "write BEGIN; … COMMIT; (or END;), and set the engine's isolation with --set"}
	}
	return NoControl, nil
}

// Program is the scripts of a run, checked and ready to run on any number of
// clients: each script is a unit kind, each SQL command (transaction control
// included) and each \sleep an operation of the result.
type Program struct {
	Scripts []*Script
	Kinds   []string // the unit kinds: each script's name, made unique
	Ops     []string // the operations: "tpcb-like:7 update"
	Defines map[string]string
	// Per script, per command: its operation (-1: none), its statement,
	// its transaction control.
	op   [][]int
	stmt [][]*backend.Stmt
	ctl  [][]Control
	// own: the script has its own BEGIN; single: it has one SQL command and
	// no control (it runs in autocommit, one transaction by itself).
	own, single []bool
	// sole: the operation a script is, alone (one SQL command of its own,
	// no \sleep), for workload.Weighted.Sole; -1 when it is more.
	sole []int
	// The operations of the transaction dbgauge opens around a script with
	// several commands and no BEGIN of its own.
	beginOp, commitOp int
	// debug prints debug()'s lines (SetDebug); nil drops them.
	debug func(line string)
}

// SetDebug makes debug() print its lines with fn, from every client's
// goroutine (fn must be safe for that); before the clients are made.
func (p *Program) SetDebug(fn func(line string)) { p.debug = fn }

// Builtins are the variables every client starts with (pgbench's):
// scale, client_id, random_seed and default_seed.
var Builtins = []string{"scale", "client_id", "random_seed", "default_seed"}

// NewProgram checks scripts together with -D's variables: names of unit
// kinds, transaction control, variables read that nothing sets.
func NewProgram(scripts []*Script, defines map[string]string) (*Program, error) {
	p := &Program{Scripts: scripts, Defines: defines, beginOp: -1, commitOp: -1}
	seen := map[string]int{}
	for _, s := range scripts {
		name := strings.TrimSuffix(filepath.Base(s.Name), filepath.Ext(s.Name))
		if name == "" || name == "." {
			name = "script"
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s#%d", name, n)
		}
		p.Kinds = append(p.Kinds, name)
		if err := p.add(s, name); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// add checks one script and lays out its operations.
func (p *Program) add(s *Script, kind string) error {
	n := len(s.Commands)
	ops, stmts, ctls := make([]int, n), make([]*backend.Stmt, n), make([]Control, n)
	set := map[string]bool{}
	for _, b := range Builtins {
		set[b] = true
	}
	for v := range p.Defines {
		set[v] = true
	}
	gset := false // a \gset or \aset sets variables only the engine can name
	sqls, sleeps, depth, open := 0, 0, 0, Pos{}
	sqlOp := -1 // the last SQL command's operation
	own := false
	for i := range s.Commands {
		c := &s.Commands[i]
		ops[i] = -1
		read := func(name string, at Pos) error {
			if set[name] || gset {
				return nil
			}
			return &Error{Pos: at, Msg: fmt.Sprintf("variable %q is read before anything sets it", name),
				Hint: "set it earlier with \\set " + name + " EXPR, or give -D " + name + "=VALUE"}
		}
		switch c.Kind {
		case SQL:
			ctl, err := controlOf(c)
			if err != nil {
				return err
			}
			ctls[i] = ctl
			switch ctl {
			case BeginTx:
				own = true
				if depth > 0 {
					return &Error{Pos: c.Pos, Msg: "BEGIN inside a transaction the script already began at " + open.String(), Hint: "end it with COMMIT; first"}
				}
				depth, open = 1, c.Pos
			case CommitTx, RollbackTx:
				depth = 0
			default:
				sqls++
				for _, v := range c.Params {
					if err := read(v, c.Pos); err != nil {
						return err
					}
				}
				stmts[i] = &backend.Stmt{SQL: c.SQL}
				if c.Gset || c.Aset {
					gset = true
				}
			}
			ops[i] = p.addOp(fmt.Sprintf("%s:%d %s", kind, c.Pos.Line, verb(c.SQL)))
			sqlOp = ops[i]
		case Set, If, Elif:
			for _, v := range Vars(c.Expr) {
				if err := read(v, c.Expr.Pos()); err != nil {
					return err
				}
			}
			if c.Kind == Set {
				set[c.Var] = true
			}
		case Sleep:
			if c.SleepVar != "" {
				if err := read(c.SleepVar, c.Pos); err != nil {
					return err
				}
			}
			ops[i] = p.addOp(fmt.Sprintf("%s:%d sleep", kind, c.Pos.Line))
			sleeps++
		}
	}
	if depth > 0 {
		return &Error{Pos: open, Msg: "the script begins a transaction and never ends it", Hint: "end it with COMMIT; (or END;)"}
	}
	if !own && sqls > 1 && p.beginOp < 0 {
		p.beginOp, p.commitOp = p.addOp("begin"), p.addOp("commit")
	}
	p.op, p.stmt, p.ctl = append(p.op, ops), append(p.stmt, stmts), append(p.ctl, ctls)
	p.own, p.single = append(p.own, own), append(p.single, !own && sqls == 1)
	if !own && sqls == 1 && sleeps == 0 {
		p.sole = append(p.sole, sqlOp)
	} else {
		p.sole = append(p.sole, -1)
	}
	return nil
}

func (p *Program) addOp(name string) int {
	if i := slices.Index(p.Ops, name); i >= 0 {
		return i
	}
	p.Ops = append(p.Ops, name)
	return len(p.Ops) - 1
}

// verb is an SQL command's first word, lower case: "update", "select".
func verb(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return "sql"
	}
	return strings.ToLower(strings.TrimRight(f[0], "(;"))
}
