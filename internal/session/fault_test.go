package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestFaultKillAt kills a managed PostgreSQL under insert's load and lets
// it restart: the run goes on through the outage and completes; the
// result gives the kill, the recovery, a closed outage, the rate before
// and after, and, against the ledger, no acknowledged commit lost (sync).
func TestFaultKillAt(t *testing.T) {
	needPostgres(t)
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{
		"db": "postgres:managed", "clients": "2", "duration": "3s", "warmup": "0s", "fault": "kill-at=1500ms", "crash-recovery": "false",
	})
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
	p, err := postgres.Start(context.Background(), postgres.ServerConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.StopClean()
	go func() {
		time.Sleep(1500 * time.Millisecond)
		if err := p.Restart(context.Background()); err != nil {
			t.Errorf("restart: %v", err)
		}
	}()
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{
		"db": p.DSN(false), "clients": "2", "duration": "3s", "warmup": "0s", "reconnect": "30s",
	})
	if len(res.Outages) == 0 || res.Outages[0].EndT <= res.Outages[0].StartT || res.Outages[0].Failed == 0 {
		t.Fatalf("outages %+v: want the restart measured", res.Outages)
	}
}
