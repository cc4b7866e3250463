package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/hostinfo"
	"github.com/dbgauge/dbgauge/internal/isolation"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/result"
)

// isolationFile is the record `dbgauge isolation` writes in its folder.
const isolationFile = "isolation.json"

// isolationRecord is isolation.json: what ran, and each engine's table.
type isolationRecord struct {
	Command   []string           `json:"command"`
	Started   time.Time          `json:"started"`
	Version   string             `json:"dbgauge_version"`
	Hermitage string             `json:"hermitage"`
	Config    isolationConfig    `json:"config"`
	Engines   []isolation.Engine `json:"engines"`
}

type isolationConfig struct {
	BlockAfter string   `json:"block_after"`
	Drain      string   `json:"drain"`
	Cases      []string `json:"cases"`
}

func newIsolationCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	var dbs, levels, cases, results string
	var blockAfter, drain time.Duration
	cmd := &cobra.Command{
		Use:   "isolation [flags]",
		Short: "which anomalies each engine allows at each isolation level: Hermitage's tests, its published table beside",
		Long: `dbgauge isolation runs Hermitage's tests (github.com/ept/hermitage): G0, G1a,
G1b, G1c, OTV, PMP (read and write predicates), P4 lost update, G-single read
skew (three variants), G2-item write skew and G2 anti-dependency cycles (two
variants), each a scripted interleaving of two or three sessions, on each
engine at each isolation level it takes (the same mapping as --isolation in a
run, read back from the engine). A statement that has not returned after
--block-after is looked at in the engine's lock view (PostgreSQL's pg_locks,
InnoDB's lock waits, Firebird's MON$ tables): blocked when it waits on a lock,
and the script goes on, as Hermitage's person at two terminals does; a
statement waiting on no lock is waited for, up to --drain. Each case is judged
from what the sessions saw: prevented (✓; or blocked, aborted,
blocked-then-aborted: how), or the anomaly (—). Only the errors by which an
engine keeps transactions apart (serialization failure, update conflict,
deadlock, lock conflict or timeout) prevent; any other error (a syntax error,
a lost connection) makes the case an error, with its cause, and the command
exits 3. For PostgreSQL and MariaDB, Hermitage's published results
(PostgreSQL 9.3, MySQL 5.6) are set beside, and a differing cell is starred.
Everything is recorded in isolation.json in a result folder, level by level.`,
		Example: `  dbgauge isolation --db postgres:managed,mariadb:managed,firebird:managed,sqlite
  dbgauge isolation --db postgres:managed --isolation repeatable-read --case G2-item,P4`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			specs, err := isolationEngines(dbs)
			if err != nil {
				return err
			}
			only, err := isolationLevels(levels)
			if err != nil {
				return err
			}
			cs, err := isolationCases(cases)
			if err != nil {
				return err
			}
			if blockAfter < 10*time.Millisecond || drain < blockAfter {
				return knob.Bad("give e.g. --block-after 500ms --drain 30s", "--block-after %s must be at least 10ms and --drain %s at least as long", blockAfter, drain)
			}
			todo := make([][]backend.Isolation, len(specs))
			for i, s := range specs {
				if todo[i] = isolation.Levels(s.spec, only); len(todo[i]) == 0 {
					return knob.Bad("give levels "+s.spec.Name+" takes: "+levelList(s.spec.Levels()), "--isolation %s: %s takes none of them", levels, s.spec.Name)
				}
			}
			w, err := result.CreateNew(results, time.Now().Format("20060102-150405")+"-isolation")
			if err != nil {
				return knob.Bad("give a folder you can write with --results", "cannot create the result folder: %v", err)
			}
			rec := isolationRecord{Command: redact.Args(append([]string{"dbgauge"}, env.Args...)), Started: time.Now().UTC(), Version: hostinfo.Version(),
				Hermitage: isolation.HermitageSource, Config: isolationConfig{BlockAfter: blockAfter.String(), Drain: drain.String()}}
			for _, c := range cs {
				rec.Config.Cases = append(rec.Config.Cases, c.Name)
			}
			// Ctrl-C ends the case running (its sessions interrupted) and
			// keeps what was found; a second one cancels at once.
			stop, interrupted, release := watchSignals(env, cancel, nil)
			defer release()
			ctx, stopCases := context.WithCancel(ctx)
			defer stopCases()
			go func() {
				select {
				case <-stop:
					stopCases()
				case <-ctx.Done():
				}
			}()
			for i, s := range specs {
				dir := filepath.Join(w.Dir(), s.spec.Name)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				rec.Engines = append(rec.Engines, isolation.Engine{})
				at := len(rec.Engines) - 1
				e, err := isolation.Run(ctx, isolation.Request{
					Spec: s.spec, Options: backend.Options{DB: s.db, Dir: dir, Durability: backend.Sync, Prepare: backend.Once},
					Levels: todo[i], Cases: cs, Config: isolation.Config{BlockAfter: blockAfter, Drain: drain},
					Done: func(e isolation.Engine) {
						rec.Engines[at] = e
						fmt.Fprintf(env.Stderr, "%s: %s done\n", e.Backend, e.Levels[len(e.Levels)-1].Level)
						_ = result.SaveJSON(w.Dir(), isolationFile, rec)
					},
				})
				rec.Engines[at] = e
				if serr := result.SaveJSON(w.Dir(), isolationFile, rec); serr != nil {
					return serr
				}
				if werr := isolation.Table(env.Stdout, e); werr != nil {
					return werr
				}
				switch {
				case interrupted():
					return exitError{ExitInterrupted, "interrupted: what was found is in " + w.Dir()}
				case err != nil:
					return fmt.Errorf("%s: %w (what was found is in %s)", s.spec.Name, err, w.Dir())
				}
			}
			fmt.Fprintf(env.Stdout, "recorded in %s\n", filepath.Join(w.Dir(), isolationFile))
			return isolationEnd(rec.Engines, filepath.Join(w.Dir(), isolationFile))
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&dbs, "db", "sqlite", "the engines, a comma list: "+strings.Join(catalog.Throwaways(hasLevels), ", ")+", or a DSN")
	f.StringVar(&levels, "isolation", "", "only these levels, a comma list (default: every level each engine takes): "+levelList(backend.Isolations))
	f.StringVar(&cases, "case", "", "only these cases, a comma list (default: all): "+strings.Join(caseNames(), ", "))
	f.DurationVar(&blockAfter, "block-after", isolation.DefaultConfig.BlockAfter, "a statement that has not returned by then is looked at in the engine's lock view: blocked when it waits on a lock, and the script goes on")
	f.DurationVar(&drain, "drain", isolation.DefaultConfig.Drain, "how long the sessions may take to end after a script's last step, and a statement waiting on no lock may run")
	f.StringVar(&results, "results", "results", "folder that receives the result folder")
	return cmd
}

// isolationEngine is an engine to test and its --db value.
type isolationEngine struct {
	spec backend.Spec
	db   string
}

func hasLevels(b backend.Spec) bool { return len(b.Levels()) > 0 }

func isolationEngines(list string) ([]isolationEngine, error) {
	var out []isolationEngine
	for _, db := range strings.Split(list, ",") {
		db = strings.TrimSpace(db)
		spec, ok := catalog.Backend(db)
		switch {
		case !ok:
			return nil, knob.Bad("use "+strings.Join(catalog.Throwaways(hasLevels), ", ")+", or a DSN", "--db %q names no backend dbgauge knows", redact.DSN(db))
		case !hasLevels(spec):
			return nil, knob.Bad("use an engine with isolation levels: "+strings.Join(catalog.Throwaways(hasLevels), ", "), "--db %s: %s has no isolation levels", db, spec.Name)
		}
		out = append(out, isolationEngine{spec, db})
	}
	return out, nil
}

func isolationLevels(list string) ([]backend.Isolation, error) {
	if list == "" {
		return nil, nil
	}
	var out []backend.Isolation
	for _, l := range strings.Split(list, ",") {
		l := backend.Isolation(strings.TrimSpace(l))
		if !slices.Contains(backend.Isolations, l) {
			return nil, knob.Bad("give levels among "+levelList(backend.Isolations), "--isolation %q is no isolation level", l)
		}
		out = append(out, l)
	}
	return out, nil
}

func isolationCases(list string) ([]isolation.Case, error) {
	all := isolation.Cases()
	if list == "" {
		return all, nil
	}
	var out []isolation.Case
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		i := slices.IndexFunc(all, func(c isolation.Case) bool { return strings.EqualFold(c.Name, n) })
		if i < 0 {
			return nil, knob.Bad("give cases among "+strings.Join(caseNames(), ", "), "--case %q is no Hermitage case", n)
		}
		out = append(out, all[i])
	}
	return out, nil
}

func caseNames() []string {
	var out []string
	for _, c := range isolation.Cases() {
		out = append(out, c.Name)
	}
	return out
}

func levelList(ls []backend.Isolation) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = string(l)
	}
	return strings.Join(s, ", ")
}

// isolationEnd is the command's end: nil when every level opened and every
// case was judged; else exit 3, its line naming the first level or case
// that could not be judged and why (a statement that failed for another
// reason than isolation, one slow without waiting on a lock, …).
func isolationEnd(engines []isolation.Engine, file string) error {
	var what []string
	for _, e := range engines {
		for _, lv := range e.Levels {
			if lv.Error != "" {
				what = append(what, fmt.Sprintf("%s at %s: %s", e.Backend, lv.Level, lv.Error))
			}
			for _, o := range lv.Outcomes {
				if o.Verdict == isolation.Failed {
					what = append(what, fmt.Sprintf("%s at %s, case %s: %s", e.Backend, lv.Level, o.Case, o.Detail))
				}
			}
		}
	}
	if len(what) == 0 {
		return nil
	}
	more := ""
	if len(what) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(what)-1)
	}
	return exitError{ExitFailed, fmt.Sprintf("%d level(s) or case(s) could not be judged, the table is incomplete: %s%s; see %s", len(what), what[0], more, file)}
}
