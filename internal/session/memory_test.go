package session_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestServerMemory: --server-memory runs postgres:managed in a memory cgroup
// of its own; the limit read back is in the result, and the cgroup is gone
// after the run.
func TestServerMemory(t *testing.T) {
	needPostgres(t)
	if err := server.CheckMemoryCgroup(); err != nil {
		testenv.Skip(t, "--server-memory needs root and a writable memory cgroup: "+err.Error())
	}
	w := spec(t, "kv")
	v := session.NewValues(w)
	for k, s := range map[string]string{"results": t.TempDir(), "db": "postgres:managed", "server-memory": "192MB", "cache": "16MB",
		"records": "20000", "mix": "read=100", "clients": "2", "duration": "1s", "warmup": "0s", "crash-recovery": "false", "ceiling": "off"} {
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
	srv := res.Server
	if srv == nil || srv.MemoryLimit != 192<<20 || srv.Cgroup == "" {
		t.Fatalf("the server record does not hold the limit read back: %+v", srv)
	}
	if res.Summary.OK == 0 {
		t.Errorf("no reads were made under the limit")
	}
	if _, err := os.Stat(srv.Cgroup); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cgroup %s is still there after the run (%v)", srv.Cgroup, err)
	}
}

// TestServerMemoryRefused: a server dbgauge does not manage, an embedded
// engine, and a limit below the cache + 64 MB are refused with one line.
func TestServerMemoryRefused(t *testing.T) {
	cases := []struct{ db, mem, cache, want string }{
		{"postgres://u:secret@127.0.0.1:1/db", "1GB", "", "does not manage"},
		{"sqlite", "1GB", "", "runs inside dbgauge"},
		{"postgres:managed", "100MB", "64MB", "below the server's cache"},
	}
	if server.CheckMemoryCgroup() != nil {
		cases = append(cases, struct{ db, mem, cache, want string }{"postgres:managed", "1GB", "", "run as root"})
	}
	for _, c := range cases {
		w := spec(t, "kv")
		v := session.NewValues(w)
		v.Set("db", c.db)
		v.Set("server-memory", c.mem)
		if c.cache != "" {
			v.Set("cache", c.cache)
		}
		_, err := session.NewPlan(session.Request{Workload: w, Values: v})
		var bad *knob.Error
		if !errors.As(err, &bad) || bad.Hint == "" || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--db %s --server-memory %s: %v; want a one-line refusal saying %q", c.db, c.mem, err, c.want)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("the password shows: %v", err)
		}
	}
}
