package tpcc

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// TestWaits: clause 5.2.5.7's keying times, and think times whose mean is
// the clause's and which never pass ten times it; none without --wait.
func TestWaits(t *testing.T) {
	w := &tpcc{cfg: Config{Warehouses: 1, Wait: true}}
	r := NewSeeded(1, 2, Constants{})
	cases := []struct {
		kind        int
		keying, avg float64
	}{{kindNewOrder, 18, 12}, {kindNewOrderRollback, 18, 12}, {kindPayment, 3, 12}, {kindOrderStatus, 2, 10}, {kindDelivery, 2, 5}, {kindStockLevel, 2, 5}}
	for _, c := range cases {
		const n = 20000
		sum, most := 0.0, 0.0
		for range n {
			k, th := w.wait(c.kind, r)
			if k != time.Duration(c.keying*float64(time.Second)) {
				t.Fatalf("%s: keying %v, want %vs", mix[c.kind].Name, k, c.keying)
			}
			sum += th.Seconds()
			most = math.Max(most, th.Seconds())
		}
		// Truncated at 10 μ, the mean is μ(1 − e^-10): within 3 % of μ here.
		if mean := sum / n; math.Abs(mean-c.avg) > 0.03*c.avg {
			t.Errorf("%s: mean think time %.2fs, want %vs", mix[c.kind].Name, mean, c.avg)
		}
		if most > 10*c.avg+1e-9 {
			t.Errorf("%s: a think time of %.1fs passes 10 × %vs", mix[c.kind].Name, most, c.avg)
		}
	}
	w.cfg.Wait = false
	if k, th := w.wait(kindNewOrder, r); k != 0 || th != 0 {
		t.Errorf("without --wait: keying %v, think %v", k, th)
	}
}

// TestFigures: tpmC counts every New-Order, NOPM the committed ones,
// efficiency is tpmC against the ceiling keying and think times make (n/a
// without them), and the 90th-percentile limits are verdicts.
func TestFigures(t *testing.T) {
	w := &tpcc{cfg: Config{Warehouses: 2, Wait: true}}
	m := workload.Measured{Seconds: 120}
	for i, u := range mix {
		m.Units = append(m.Units, workload.MeasuredUnit{Name: u.Name, OK: 100, P90Us: 1000})
		if i == kindStockLevel {
			m.Units[i].P90Us = 21_000_000 // over its 20 s
		}
	}
	m.Units[kindNewOrderRollback].OK = 2
	got := map[string]workload.Figure{}
	for _, f := range w.Figures(m) {
		got[f.Name] = f
	}
	if got["tpmC"].Value != 51 || got["NOPM"].Value != 50 {
		t.Errorf("tpmC %v, NOPM %v; want 51 and 50", got["tpmC"].Value, got["NOPM"].Value)
	}
	if e := got["efficiency"]; math.Abs(e.Value-100*51/(12.86*2)) > 1e-9 || e.NA != "" || e.Of != 12.86*2 {
		t.Errorf("efficiency with --wait %+v", e)
	}
	w.cfg.Wait = false
	for _, f := range w.Figures(m) {
		if f.Name == "efficiency" && (f.Said() != "n/a: no keying or think times (--wait)" || f.Value != 0 || f.Of != 0 || len(f.Kinds) != 0) {
			t.Errorf("efficiency without --wait %+v: want n/a, made of nothing merge could make again", f)
		}
	}
	if p := got["payment p90"].Pass; p == nil || !*p {
		t.Errorf("payment's p90 of 1 ms fails its 5 s limit: %+v", got["payment p90"])
	}
	if p := got["stock-level p90"].Pass; p == nil || *p {
		t.Errorf("stock-level's p90 of 21 s passes its 20 s limit: %+v", got["stock-level p90"])
	}
}

// TestDeferredKeys: PostgreSQL and Firebird get their primary keys after
// the load; MariaDB and SQLite keep them in the CREATE TABLE.
func TestDeferredKeys(t *testing.T) {
	create, key := ddl(backend.Dialect{Name: "postgres"}, createTables[1])
	if strings.Contains(create, "PRIMARY KEY") || key != "ALTER TABLE district ADD PRIMARY KEY (d_w_id, d_id)" || !strings.HasSuffix(create, "d_next_o_id INTEGER)") {
		t.Errorf("postgres: %q then %q", create, key)
	}
	create, key = ddl(backend.Dialect{Name: "mysql"}, createTables[1])
	if !strings.Contains(create, "PRIMARY KEY (d_w_id, d_id))") || key != "" {
		t.Errorf("mariadb: %q then %q", create, key)
	}
	for _, q := range createTables {
		if _, key := ddl(backend.Dialect{Name: "firebird"}, q); key == "" && !strings.Contains(q, "TABLE history") {
			t.Errorf("firebird: no key added after the load for %s", strings.Fields(q)[2])
		}
	}
}
