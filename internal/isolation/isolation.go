// Package isolation runs Hermitage's isolation tests (github.com/ept/hermitage)
// on an engine at each isolation level it takes: scripted interleavings of
// two or three sessions, each case judged from what the sessions observed
// (prevented, prevented by blocking or by an abort, or the anomaly), and
// the results set beside Hermitage's published table for the engines it
// covers. `dbgauge isolation` is its front.
package isolation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// Engine is one engine's results.
type Engine struct {
	Backend string  `json:"backend"`
	DB      string  `json:"db"`
	Version string  `json:"version,omitempty"`
	Levels  []Level `json:"levels"`
	// Hermitage names the published results compared with ("" when
	// Hermitage has none for this engine).
	Hermitage string `json:"hermitage,omitempty"`
}

// Level is one level's results on an engine.
type Level struct {
	Level    string            `json:"level"`
	ReadBack string            `json:"read_back"` // Engine.Isolation after the engine opened
	Settings map[string]string `json:"settings"`  // as read back
	Outcomes []Outcome         `json:"outcomes"`
	Marks    map[string]string `json:"marks"` // Hermitage's columns, from the outcomes
	// Published is Hermitage's row for this level ("" per column where it
	// has none); ComparedWith says which of its rows, when not this
	// level's own, and why.
	Published    map[string]string `json:"hermitage,omitempty"`
	ComparedWith string            `json:"compared_with,omitempty"`
	Differs      []string          `json:"differs,omitempty"` // the columns where the marks differ (? differs from nothing)
	Error        string            `json:"error,omitempty"`   // the engine could not be opened at this level
}

// Request says what to run.
type Request struct {
	Spec    backend.Spec
	Options backend.Options // DB and Dir set; Isolation is set per level
	Levels  []backend.Isolation
	Cases   []Case
	Config  Config
	// Done hears of each level as it finishes (to save the results as
	// they come); it may be nil.
	Done func(Engine)
}

// Run runs every case at every level on one engine, opening the engine
// afresh at each level with Options.Isolation set to it: the table is
// made through the same mapping a run's --isolation uses.
func Run(ctx context.Context, r Request) (Engine, error) {
	e := Engine{Backend: r.Spec.Name, DB: r.Options.DB}
	pub, hasPub := Hermitage(r.Spec.Name)
	if hasPub {
		e.Hermitage = fmt.Sprintf("%s %s (%s; the scripts in %s)", pub.DBMS, pub.Version, HermitageSource, pub.File)
	}
	for _, l := range r.Levels {
		if err := ctx.Err(); err != nil {
			return e, err
		}
		lv := runLevel(ctx, r, l, &e)
		if hasPub {
			compare(&lv, pub, l)
		}
		e.Levels = append(e.Levels, lv)
		if r.Done != nil {
			r.Done(e)
		}
	}
	return e, nil
}

func runLevel(ctx context.Context, r Request, l backend.Isolation, e *Engine) Level {
	lv := Level{Level: string(l)}
	o := r.Options
	o.Isolation = l
	o.Conns = max(o.Conns, 4)
	db, err := r.Spec.Open(ctx, o)
	if err != nil {
		lv.Error = err.Error()
		return lv
	}
	defer db.Close()
	sq, ok := db.(backend.SQLDB)
	if !ok {
		lv.Error = r.Spec.Name + " does not speak SQL"
		return lv
	}
	eng, err := db.Engine(ctx)
	if err != nil {
		lv.Error = "read back the settings: " + err.Error()
		return lv
	}
	e.Version, lv.ReadBack, lv.Settings = eng.Version, eng.Isolation, eng.Settings
	if eng.Isolation != string(l) {
		lv.Error = fmt.Sprintf("asked for %s, the engine reads back %q", l, eng.Isolation)
		return lv
	}
	if err := Prepare(ctx, sq); err != nil {
		lv.Error = "create the table: " + err.Error()
		return lv
	}
	defer func() { _ = Drop(context.WithoutCancel(ctx), sq) }()
	for _, c := range r.Cases {
		if ctx.Err() != nil {
			break
		}
		lv.Outcomes = append(lv.Outcomes, RunCase(ctx, sq, c, r.Config))
	}
	lv.Marks = Summarize(lv.Outcomes, r.Cases)
	return lv
}

// compare sets Hermitage's row beside the level's marks and lists the
// columns where they differ.
func compare(lv *Level, pub Published, l backend.Isolation) {
	want, ok := pub.Levels[l]
	if !ok {
		st, ok := pub.Stands[l]
		if !ok {
			return
		}
		want, lv.ComparedWith = pub.Levels[st.Level], fmt.Sprintf("Hermitage's %s row: %s", st.Level, st.Why)
	}
	lv.Published = map[string]string{}
	for i, col := range Columns {
		lv.Published[col] = want[i]
		if got, ran := lv.Marks[col]; ran && got != Unknown && got != want[i] {
			lv.Differs = append(lv.Differs, col)
		}
	}
}

// DefaultConfig is how cases run unless told otherwise.
var DefaultConfig = Config{BlockAfter: 500 * time.Millisecond, Drain: 30 * time.Second}

// Levels returns the levels of spec to run: only, in spec's order, or all
// it takes when only is empty.
func Levels(spec backend.Spec, only []backend.Isolation) []backend.Isolation {
	if len(only) == 0 {
		return spec.Levels()
	}
	var out []backend.Isolation
	for _, l := range spec.Levels() {
		if slices.Contains(only, l) {
			out = append(out, l)
		}
	}
	return out
}
