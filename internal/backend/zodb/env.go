package zodb

import (
	_ "embed"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/pyworker"
)

//go:embed requirements.txt
var requirements []byte

//go:embed worker.py
var workerSource []byte

// Env is the Python environment of the ZODB engines (the worker, and ZEO's
// runzeo): `dbgauge engines install zodb` makes it.
var Env = pyworker.Env{Name: "zodb", Python: "3.11", Requirements: requirements, Engines: "zodb and zeo"}

// EnvKnob is --zodb-env, the ZODB engines' own knob: a virtualenv the user
// made elsewhere.
var EnvKnob = knob.Spec{Name: "zodb-env", Values: "DIR", Uses: knob.ForLoad | knob.ForCheck,
	Usage: "zodb, zeo: the virtualenv to run ZODB's worker and ZEO's server from (default: the one `dbgauge engines install zodb` makes in the cache folder)"}

// Own is what the ZODB engines read of their own knobs (Spec.Own).
type Own struct {
	Env string // --zodb-env: "" for the cache folder's
}

// OwnKnobs reads --zodb-env: Spec.Own.
func OwnKnobs(v *knob.Values) (any, error) { return Own{Env: v.Get("zodb-env")}, nil }

// OwnOf returns the options' own knobs, or the defaults when the caller
// gave none (a test).
func OwnOf(o backend.Options) Own {
	x, _ := o.Own.(Own)
	return x
}

// Python returns the environment's interpreter for o (--zodb-env, else
// the cache folder's), or bad input naming the command that makes it.
func Python(o backend.Options) (string, error) {
	return Env.Find(OwnOf(o).Env, "--zodb-env")
}
