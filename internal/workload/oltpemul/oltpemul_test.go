package oltpemul_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/oltpemul"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestSQLite fills a database with the units that create documents, then
// runs all twenty units with four clients on SQLite; the checks prove the
// saldos, both FIFOs and the documents, and P is the successful units per
// minute, nothing to do left out.
func TestSQLite(t *testing.T) {
	res := workloadtest.Run(t, oltpemul.Spec, map[string]string{
		"init-docs": "300", "clients": "4", "duration": "3s", "working-mode": "small_01",
	})
	m := res.Phase("measure")
	ok := map[string]int64{}
	for _, u := range m.Units {
		ok[u.Name] = u.Count
	}
	for _, name := range []string{"sp_client_order", "sp_supplier_order", "sp_supplier_invoice", "sp_add_invoice_to_stock",
		"sp_reserve_write_off", "sp_pay_from_customer", "sp_pay_to_supplier", "srv_make_invnt_saldo", "srv_make_money_saldo",
		"sp_cancel_client_order", "sp_cancel_write_off"} {
		if ok[name] == 0 {
			t.Errorf("no %s succeeded: %+v", name, ok)
		}
	}
	if ok["srv_aggregate_perf_data"] != 0 {
		t.Errorf("srv_aggregate_perf_data succeeded %d times: dbgauge has no performance log in the database", ok["srv_aggregate_perf_data"])
	}
	if want := 60 * float64(m.OK) / m.Seconds; math.Abs(res.Summary.PerMinute-want) > 1e-9*want || m.Nothing == 0 {
		t.Errorf("P %v, want %v (%d ok in %.1f s, %d nothing to do)", res.Summary.PerMinute, want, m.OK, m.Seconds, m.Nothing)
	}
	if res.Config.Retries != 0 {
		t.Errorf("retries %d: OLTP-EMUL retries nothing", res.Config.Retries)
	}
	if len(res.Checks) != 9 {
		t.Errorf("%d checks", len(res.Checks))
	}
	if len(m.NothingBy) == 0 || m.NothingBy[0].Code == "" {
		t.Errorf("nothing to do by reason: %+v", m.NothingBy)
	}
}

func TestBadKnobs(t *testing.T) {
	for _, args := range []map[string]string{
		{"working-mode": "huge"}, {"commit": "op"}, {"init-docs": "-1"}, {"halt-on-errors": "/CK/XX/"},
		{"sleep-min": "2s", "sleep-max": "1s"}, {"update-conflict-percent": "101"},
	} {
		v := session.NewValues(oltpemul.Spec)
		for k, s := range args {
			v.Set(k, s)
		}
		_, err := session.NewPlan(session.Request{Workload: oltpemul.Spec, Values: v})
		var bad *knob.Error
		if !errors.As(err, &bad) {
			t.Errorf("%v: %v, want bad input", args, err)
		}
	}
}

// open opens a fresh SQLite database and loads oltp-emul into it.
func open(t *testing.T, args map[string]string) (backend.SQLDB, workload.Workload) {
	t.Helper()
	ctx := context.Background()
	sqlite, ok := catalog.Backend("sqlite")
	if !ok {
		t.Fatal("no sqlite backend")
	}
	db, err := sqlite.Open(ctx, backend.Options{DB: "sqlite", Dir: t.TempDir(), Durability: backend.Off, Prepare: backend.Once, Conns: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	v := session.NewValues(oltpemul.Spec)
	v.Set("working-mode", "small_01")
	for k, s := range args {
		v.Set(k, s)
	}
	w, err := oltpemul.Spec.New(workload.Common{Commit: workload.Commit{Mode: workload.PerUnit, Every: 1}, Clients: 2, Seed: 1}, v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Load(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db.(backend.SQLDB), w
}

func exec(t *testing.T, db backend.SQLDB, stmts ...string) {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range stmts {
		if err := c.ExecScript(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func runUnits(t *testing.T, db backend.SQLDB, w workload.Workload, units int64) *run.Outcome {
	t.Helper()
	out, err := run.Run(context.Background(), run.Config{Clients: 2, Units: units, Seed: 1}, w.Shape(),
		func(ctx context.Context, id int, rng *rand.Rand) (workload.Client, error) {
			return w.Client(ctx, db, id, rng)
		}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEmptyCatalogue runs oltp-emul with an empty catalogue: no wares, no
// agents, no documents, no semaphores. Every unit finds nothing to do, and
// the run must say so: every unit nothing to do, none ok, none failed, a
// throughput and a P of 0, not the rate at which the engine answered "no".
func TestEmptyCatalogue(t *testing.T) {
	db, w := open(t, map[string]string{"init-docs": "0"})
	exec(t, db, "DELETE FROM oe_wares", "DELETE FROM oe_agents", "DELETE FROM oe_semaphores", "DELETE FROM oe_optypes")
	const units = 600
	out := runUnits(t, db, w, units)
	if out.Err != nil {
		t.Fatalf("the run stopped: %v", out.Err)
	}
	m := out.Phases[len(out.Phases)-1].Record(false)
	if m.OK != 0 || m.Failed != 0 || m.Nothing != units {
		t.Fatalf("ok %d, failed %d, nothing to do %d; want 0, 0, %d (failures %+v)", m.OK, m.Failed, m.Nothing, units, m.Failures)
	}
	if p := 60 * m.Rate; p != 0 {
		t.Errorf("P %v from units that did nothing, want 0", p)
	}
	drawn := 0
	for _, u := range m.Units {
		if u.Count != 0 {
			t.Errorf("%s: %d ok", u.Name, u.Count)
		}
		if u.Nothing > 0 {
			drawn++
		}
	}
	if drawn < 15 {
		t.Errorf("%d unit kinds drawn in %d units", drawn, units)
	}
	codes := map[string]bool{}
	for _, f := range m.NothingBy {
		codes[f.Code] = true
	}
	for _, c := range []string{"ex_can_not_select_random_id", "ex_no_rows_in_shopping_cart", "ex_record_not_found"} {
		if !codes[c] {
			t.Errorf("no unit found nothing to do for %s: %+v", c, m.NothingBy)
		}
	}
}

// TestChecksSeeTampering changes the books behind the workload's back and
// expects the checks that must see it, and only they, to name the rows.
func TestChecksSeeTampering(t *testing.T) {
	db, w := open(t, map[string]string{"init-docs": "150"})
	out := runUnits(t, db, w, 300)
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	checks := func() map[string]string {
		t.Helper()
		cs, err := w.(workload.Checker).Check(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]string{}
		for _, c := range cs {
			if !c.OK {
				failed[c.Name] = c.Detail
			}
		}
		return failed
	}
	if f := checks(); len(f) > 0 {
		t.Fatalf("checks failed before tampering: %v", f)
	}
	exec(t, db, "UPDATE oe_invnt_saldo SET qty_clo = qty_clo + 7 WHERE id = (SELECT min(id) FROM oe_invnt_saldo)")
	f := checks()
	if len(f) != 1 || !strings.Contains(f["saldo_equals_documents"], "qty_clo") {
		t.Errorf("a saldo changed: failed %v", f)
	}
	exec(t, db, "UPDATE oe_invnt_saldo SET qty_clo = qty_clo - 7 WHERE id = (SELECT min(id) FROM oe_invnt_saldo)",
		"DELETE FROM oe_qdistr WHERE id = (SELECT min(id) FROM oe_qdistr)")
	f = checks()
	if len(f) != 1 || !strings.Contains(f["qty_fifo_matches_lines"], "line ") {
		t.Errorf("a FIFO row deleted: failed %v", f)
	}
}

// TestHaltOnErrors logs a turnover that would take a ware's stock below
// zero: with halt_test_on_errors /CK/ the totalling writes it, the CHECK
// constraint refuses it, and the run stops; without, the ware waits and
// the final check says its log was not totalled.
func TestHaltOnErrors(t *testing.T) {
	const negative = "INSERT INTO oe_invnt_turnover_log (id, ware_id, qty_diff, cost_diff, doc_list_id, doc_pref, doc_data_id, optype_id, dts_edit) VALUES (999999999, 1, 5, 100, 0, 'RES', 0, 3300, 0)"
	for _, halt := range []string{"/CK/", ""} {
		t.Run("halt="+halt, func(t *testing.T) {
			db, w := open(t, map[string]string{"init-docs": "0", "halt-on-errors": halt})
			exec(t, db, negative)
			out := runUnits(t, db, w, 200)
			if halt != "" {
				if out.Reason != run.Fatal || dberr.ClassOf(out.Err) != dberr.Fatal || !strings.Contains(out.Err.Error(), "halt_test_on_errors") {
					t.Fatalf("reason %q, error %v; want a halt", out.Reason, out.Err)
				}
				_, kind, _ := dberr.Describe(out.Err)
				if kind != dberr.Check {
					t.Errorf("halted on a %s error, want check", kind)
				}
				return
			}
			if out.Err != nil {
				t.Fatalf("the run stopped: %v", out.Err)
			}
			cs, err := w.(workload.Checker).Check(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if c.Name == "turnover_logs_totalled" && c.OK {
					t.Errorf("%s: %s", c.Name, c.Detail)
				}
			}
		})
	}
}
