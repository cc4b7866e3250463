package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
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
