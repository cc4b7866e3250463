package backend

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// What the embedded engines share: their --db forms, where their files go,
// and the background flush of their lazy durability.

// Embedded completes the Spec of an embedded engine from its Name: its
// throwaway form (the name alone: a fresh database in the run's folder),
// Match (the name, or name:PATH) and Preflight (EmbeddedPreflight).
func Embedded(s Spec) Spec {
	s.Throwaway, s.Match, s.Preflight = s.Name, EmbeddedMatch(s.Name), EmbeddedPreflight(s.Name)
	return s
}

// Served completes the Spec of an engine that is a server, dbgauge's
// (Manages) or the user's (a DSN beginning with one of schemes): its
// throwaway form is the first it manages, Match takes both, and Preflight
// looks only at a server of the user's (a managed one is not there yet).
func Served(s Spec, schemes ...string) Spec {
	s.Throwaway = s.Manages[0]
	if pf := s.Preflight; pf != nil {
		s.Preflight = func(db string) error {
			if s.Managed(db) {
				return nil
			}
			return pf(db)
		}
	}
	s.Match = func(db string) bool {
		return s.Managed(db) || slices.ContainsFunc(schemes, func(p string) bool { return strings.HasPrefix(db, p) })
	}
	return s
}

// EmbeddedMatch is the Spec.Match of an embedded engine: its name alone (a
// fresh database in the run's folder), or name:PATH.
func EmbeddedMatch(name string) func(db string) bool {
	return func(db string) bool { return db == name || strings.HasPrefix(db, name+":") }
}

// EmbeddedPreflight is the Spec.Preflight of an embedded engine: name:PATH
// must be in a folder that exists (the engine makes the file, or the
// folder, but not the folders above it).
func EmbeddedPreflight(name string) func(db string) error {
	return func(db string) error {
		p, ok := strings.CutPrefix(db, name+":")
		if !ok || p == "" {
			return nil
		}
		dir := filepath.Dir(p)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return knob.Bad("create the folder first, or give a path in one that exists",
				"--db %s: the folder %s does not exist", db, dir)
		}
		return nil
	}
}

// Reachable checks that a server answers at addr (network "tcp" or
// "unix"), within a few seconds: for a Spec.Preflight. what names the
// --db value in the error (its password masked by the caller).
func Reachable(network, addr, what string) error {
	c, err := net.DialTimeout(network, addr, 3*time.Second)
	if err != nil {
		return knob.Bad("is the server running, and are the host and port in --db right?", "--db %s: nothing answers at %s (%v)", what, addr, err)
	}
	return c.Close()
}

// EmbeddedPath is where an embedded engine's database is: PATH of --db
// name:PATH, else file in the folder for the run's data.
func (o Options) EmbeddedPath(name, file string) string {
	if p, ok := strings.CutPrefix(o.DB, name+":"); ok && p != "" {
		return p
	}
	return filepath.Join(o.Data(), file)
}

// NoStatements is the Spec.Prepare of a key-value engine: it has no
// statements to prepare.
var NoStatements = map[Prepare]string{
	Once: "no statements: ignored",
	Each: "no statements: ignored",
}

// LazyInterval is the default period of the background flush of an
// embedded engine's lazy durability: the NMS seed's engine wrote its log
// every 100 ms in its "lazy write" mode.
const LazyInterval = 100 * time.Millisecond

// Flusher runs an embedded engine's background flush (lazy durability) and
// keeps the first error it returned. Start and Stop are called by the
// engine's Open and Close, not concurrently.
type Flusher struct {
	stop chan struct{}
	done chan struct{}
	err  error // the first error of a flush; read after done is closed
}

// Start calls flush every interval, in a goroutine of its own, until Stop.
func (f *Flusher) Start(interval time.Duration, flush func() error) {
	stop, done := make(chan struct{}), make(chan struct{})
	f.stop, f.done = stop, done
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if err := flush(); err != nil && f.err == nil {
					f.err = err
				}
			}
		}
	}()
}

// Stop ends the flushes, after the one under way, and returns the first
// error one returned. A Flusher never started returns nil; a second Stop
// returns the same as the first.
func (f *Flusher) Stop() error {
	if f.stop == nil {
		return nil
	}
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	<-f.done
	if f.err != nil {
		return fmt.Errorf("background sync: %w", f.err)
	}
	return nil
}

// TxStateErrors are a key-value connection's errors when it is used out of
// turn, in the engine's name: a Begin while a transaction is open (open),
// and a use that needs a transaction without one (none). Both are fatal: the
// workload has a bug.
func TxStateErrors(engine string) (open, none error) {
	return dberr.New(dberr.Fatal, dberr.Other, "", errors.New(engine+": a transaction is already open on this connection")),
		dberr.New(dberr.Fatal, dberr.Other, "", errors.New(engine+": no transaction is open on this connection"))
}
