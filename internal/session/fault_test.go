package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestFaultKillAt kills a managed PostgreSQL under insert's load and lets
// it restart: the run goes on through the outage and ends cleanly; the
// result gives the kill, the recovery, a closed outage, the rate before
// and after, and, against the ledger, no acknowledged commit lost (sync).
func TestFaultKillAt(t *testing.T) {
	needPostgres(t)
	// The run ends a second after the server is back, however long its
	// recovery took (2.7 s on a busy machine, past a fixed 3 s run): the
	// result written as the run goes says when, and a stop file ends it.
	dir := t.TempDir()
	stop := filepath.Join(dir, "stop")
	go func() {
		defer os.WriteFile(stop, nil, 0o644)
		if workloadtest.Live(dir, time.Minute, workloadtest.Event("server back")) {
			time.Sleep(time.Second)
		}
	}()
	res := workloadtest.Exec(t, spec(t, "insert"), map[string]string{
		"db": "postgres:managed", "clients": "2", "duration": "2m", "warmup": "0s", "fault": "kill-at=1500ms", "crash-recovery": "false",
		"results": dir, "stop-file": stop,
	})
	stoppedClean(t, res)
	f := res.Fault
	if f == nil || f.Error != "" || f.KillT <= 0 || f.RecoverySeconds <= 0 || f.BackT <= f.KillT {
		t.Fatalf("fault %+v", f)
	}
	if !f.Ledger || f.Acknowledged == 0 || f.Lost != 0 || f.Phantom != 0 || f.RateBefore <= 0 || f.RateAfter <= 0 {
		t.Fatalf("fault %+v: want acknowledged commits, none lost, a rate before and after", f)
	}
	if len(res.Outages) == 0 {
		t.Fatal("no outage recorded around the kill")
	}
	for _, o := range res.Outages {
		if o.EndT <= o.StartT || o.StartT < f.KillT-0.5 || o.Failed == 0 {
			t.Errorf("outage %+v around a kill at %.2f s", o, f.KillT)
		}
	}
	var kinds []string
	for _, e := range res.Events {
		if e.Kind == result.EventFault {
			kinds = append(kinds, e.Detail)
		}
	}
	if len(kinds) != 2 || !strings.Contains(kinds[1], "back") {
		t.Fatalf("fault events %q, want the kill and the return", kinds)
	}
}

// TestReconnectToADSNServer: a server of the user's restarted under load
// (here by the test, as by its operator) is an outage the run measures and
// outlives, with --reconnect.
func TestReconnectToADSNServer(t *testing.T) {
	needPostgres(t)
	p, err := postgres.Start(context.Background(), postgres.ServerConfig{Config: server.Config{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.StopClean()
	// Restarted once the run has measured a second (the live result says
	// so, however long the load took), the run stopped a second after.
	dir := t.TempDir()
	stop := filepath.Join(dir, "stop")
	go func() {
		defer os.WriteFile(stop, nil, 0o644)
		if !workloadtest.Live(dir, time.Minute, func(r *result.Result) bool { return len(r.Series) > 0 }) {
			t.Error("the run never measured a second")
			return
		}
		if err := p.Restart(context.Background()); err != nil {
			t.Errorf("restart: %v", err)
		}
		time.Sleep(time.Second)
	}()
	res := workloadtest.Exec(t, spec(t, "insert"), map[string]string{
		"db": p.DSN(false), "clients": "2", "duration": "2m", "warmup": "0s", "reconnect": "30s",
		"results": dir, "stop-file": stop,
	})
	stoppedClean(t, res)
	if len(res.Outages) == 0 || res.Outages[0].EndT <= res.Outages[0].StartT || res.Outages[0].Failed == 0 {
		t.Fatalf("outages %+v: want the restart measured", res.Outages)
	}
}

// stoppedClean fails t unless the run ended at its stop file and its
// checks ran and held.
func stoppedClean(t *testing.T, res *result.Result) {
	t.Helper()
	if res.Reason != "stop file" || len(res.Checks) == 0 {
		t.Fatalf("the run ended %s (%s) with %d checks, want the stop file's end and its checks", res.Status, res.Reason, len(res.Checks))
	}
	for _, c := range res.Checks {
		if !c.OK {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
}

// TestFaultPause stalls a managed PostgreSQL for a second under an open
// loop (--fault pause-at=D,for=1s): the starts that fell due meanwhile
// waited, and, their latency counted from their intended start, the stall
// is in the top of the run's latencies and in the late units; nothing
// failed, and the server goes on.
func TestFaultPause(t *testing.T) {
	needPostgres(t)
	t.Parallel() // 200 units a second and a stall: it mostly waits
	res := workloadtest.Run(t, spec(t, "kv"), map[string]string{
		"db": "postgres:managed", "clients": "4", "records": "2000", "profile": "constant 200/s 4s",
		"fault": "pause-at=1s,for=1s", "crash-recovery": "false",
	})
	f := res.Fault
	if f == nil || f.Kind != "pause" || f.Error != "" || f.ResumeT-f.StopT < 1 || f.StopT <= 0 {
		t.Fatalf("fault %+v: want a pause of a second at least", f)
	}
	m := res.Phase("measure")
	if m.Failed != 0 || m.Late == 0 || m.All.MaxUs < 900_000 || m.All.P99Us < 200_000 {
		t.Fatalf("measure phase: failed %d, late %d, p99 %d µs, max %d µs: want the second's stall in the latencies", m.Failed, m.Late, m.All.P99Us, m.All.MaxUs)
	}
	var details []string
	for _, e := range res.Events {
		if e.Kind == result.EventFault {
			details = append(details, e.Detail)
		}
	}
	if len(details) != 2 || !strings.Contains(details[0], "SIGSTOP") || !strings.Contains(details[1], "SIGCONT") {
		t.Fatalf("fault events %q, want the stop and the go-on", details)
	}
}
