package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestShards: two shards of one run on one SQLite file, one after the
// other: shard 0 loads and says so, shard 1 finds the word and reuses the
// data; each runs its part of the clients and of --units, seeded alike.
func TestShards(t *testing.T) {
	w := spec(t, "kv")
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "kv.db")
	results := filepath.Join(dir, "run")
	for i, want := range []struct {
		first  int
		units  int64
		reused bool
	}{{0, 6, false}, {2, 5, true}} {
		v := session.NewValues(w)
		for k, s := range map[string]string{"db": db, "records": "500", "clients": "2", "units": "11", "results": results, "ceiling": "off", "shard": []string{"0/2", "1/2"}[i]} {
			v.Set(k, s)
		}
		plan, err := session.NewPlan(session.Request{Workload: w, Values: v})
		if err != nil {
			t.Fatal(err)
		}
		res, err := plan.Execute(context.Background(), nil, workloadtest.Quiet{})
		if err != nil {
			t.Fatal(err)
		}
		sh := res.Shard
		if res.ID != []string{"shard-0", "shard-1"}[i] || sh == nil || sh.Index != i || sh.Count != 2 || sh.FirstClient != want.first || sh.RunClients != 4 {
			t.Fatalf("shard %d: id %s, shard %+v", i, res.ID, sh)
		}
		if res.Config.Units != want.units || res.Summary.OK != want.units || res.Config.Seed != 1 || res.Dataset.Reused != want.reused {
			t.Fatalf("shard %d: units %d, ok %d, seed %d, reused %v; want %d, %d, 1, %v", i, res.Config.Units, res.Summary.OK, res.Config.Seed, res.Dataset.Reused, want.units, want.units, want.reused)
		}
		if i == 0 {
			b, err := os.ReadFile(filepath.Join(results, session.LoadedFile))
			if err != nil || !strings.Contains(string(b), "seed=1 shards=2") {
				t.Fatalf("shard 0 left %q (%v) in %s", b, err, session.LoadedFile)
			}
		}
	}
}

// TestShardRefused: a shard's bad input is one line, before anything is
// written.
func TestShardRefused(t *testing.T) {
	for _, args := range []map[string]string{
		{"shard": "2/2"},
		{"shard": "1"},
		{"shard": "0/0"},
		{"shard": "0/2", "db": "postgres:managed"},
		{"shard": "0/2", "db": "sqlite"},
		{"shard": "0/4", "db": "sqlite:/tmp/x.db", "units": "3"},
		{"start-at": "tomorrow"},
		{"start-at": "file:"},
		{"shard": "0/2", "db": "sqlite:/tmp/x.db", "mix": "read=50,insert=50"},
		{"shard": "0/2", "db": "sqlite:/tmp/x.db", "workload": "insert"},
	} {
		name := "kv"
		if args["workload"] != "" {
			name = args["workload"]
			delete(args, "workload")
		}
		w := spec(t, name)
		v := session.NewValues(w)
		results := t.TempDir()
		v.Set("results", results)
		for k, s := range args {
			v.Set(k, s)
		}
		_, err := session.NewPlan(session.Request{Workload: w, Values: v})
		var bad *knob.Error
		if !errors.As(err, &bad) || bad.Hint == "" || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%v: got %v, want one line of bad input with a hint", args, err)
		}
	}
}

// TestStartFile: with --start-at file:PATH a shard opens its clients, says
// it is ready in --results, and begins at the time a coordinator then
// writes into PATH, recorded as its start; a file holding no time ends the
// run with one line of bad input.
func TestStartFile(t *testing.T) {
	w := spec(t, "kv")
	dir := t.TempDir()
	results := filepath.Join(dir, "run")
	start := filepath.Join(dir, "start")
	type outcome struct {
		res *result.Result
		err error
	}
	execute := func(results string) <-chan outcome {
		v := session.NewValues(w)
		for k, s := range map[string]string{"db": "sqlite:" + filepath.Join(dir, "kv.db"), "records": "200", "clients": "2", "units": "20",
			"warmup": "0s", "results": results, "ceiling": "off", "shard": "0/1", "start-at": "file:" + start} {
			v.Set(k, s)
		}
		plan, err := session.NewPlan(session.Request{Workload: w, Values: v})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := plan.Execute(context.Background(), nil, workloadtest.Quiet{})
			done <- outcome{res, err}
		}()
		return done
	}
	done := execute(results)
	ready := filepath.Join(results, session.ReadyFile(0))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		select {
		case o := <-done:
			t.Fatalf("the run ended before it said it was ready: %v", o.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 30 s", ready)
		}
	}
	at := time.Now().Add(300 * time.Millisecond).UTC().Truncate(time.Millisecond)
	if err := os.WriteFile(start, []byte(at.Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	m := o.res.Phase("measure")
	if sh := o.res.Shard; sh == nil || sh.StartAt == nil || !sh.StartAt.Equal(at) || m == nil || o.res.Summary.OK != 20 || m.Start.Before(at) {
		t.Fatalf("shard %+v, measure %+v, ok %d; want the written start %s recorded, 20 units from it", o.res.Shard, m, o.res.Summary.OK, at.Format(time.RFC3339Nano))
	}

	// A file that holds no time: one line of bad input.
	if err := os.WriteFile(start, []byte("soon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = <-execute(filepath.Join(dir, "run2"))
	var bad *knob.Error
	if !errors.As(o.err, &bad) || !strings.Contains(o.err.Error(), `holds "soon"`) {
		t.Fatalf("a start file holding %q: %v; want one line of bad input", "soon", o.err)
	}
}
