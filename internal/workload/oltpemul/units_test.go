package oltpemul

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// TestDraw draws units as srv_random_unit_choice does and compares their
// frequencies with the odds integrated exactly: a unit's odds are not its
// share of the weights (sp_client_order, weight 95, is drawn about as often
// as the weights 95 : 1,005 would say only by chance).
func TestDraw(t *testing.T) {
	const n = 200000
	for _, warmup := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(7, 8))
		var got [nUnits]float64
		for range n {
			got[draw(rng, warmup, false)]++
		}
		want := odds(warmup)
		sum := 0.0
		for i := range want {
			sum += want[i]
			if d := math.Abs(got[i]/n - want[i]); d > 0.005 {
				t.Errorf("warmup %v: %s drawn %.4f of the time, odds %.4f", warmup, units[i].name, got[i]/n, want[i])
			}
			if warmup && (units[i].kind == "removal" || units[i].kind == "state_back") && got[i] > 0 {
				t.Errorf("the warm-up drew %s (%s) %v times", units[i].name, units[i].kind, got[i])
			}
		}
		if math.Abs(sum-1) > 1e-9 || got[uRecalcIdxStat] != 0 {
			t.Errorf("warmup %v: odds sum to %v; srv_recalc_idx_stat drawn %v times while not due", warmup, sum, got[uRecalcIdxStat])
		}
	}
	// The heaviest unit is a candidate for every r, the lightest only below 5.
	o := odds(false)
	if !(o[uClientOrder] > o[uReserveWriteOff] && o[uReserveWriteOff] > o[uPayFromCustomer] && o[uAggregatePerfData] < 0.01) {
		t.Errorf("odds %v", o)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	due := 0
	for range 1000 {
		if draw(rng, false, true) == uRecalcIdxStat {
			due++
		}
	}
	if due < 30 {
		t.Errorf("srv_recalc_idx_stat drawn %d times in 1000 while due", due)
	}
	now := time.Now()
	if recalcDue(0, now.Add(-time.Hour), now) || !recalcDue(30*time.Minute, now.Add(-31*time.Minute), now) || recalcDue(30*time.Minute, now.Add(-time.Minute), now) {
		t.Error("recalcDue")
	}
}

// TestUnaskedNothing: the units that find nothing to do before they ask
// the engine anything (the performance log dbgauge does not keep, a
// semaphore another client of this run holds) say so, and end no outage;
// one the engine answered would (workload.Reached).
func TestUnaskedNothing(t *testing.T) {
	w := &emul{}
	c := &client{w: w}
	err := c.Do(context.Background(), uAggregatePerfData, nil)
	if !errors.Is(err, workload.ErrNothing) || workload.Reached(err) {
		t.Errorf("aggregate_perf_data: %v, reached %v; want nothing to do, not reached", err, workload.Reached(err))
	}
	w.semHeld[semMoneySaldo].Lock() // another client holds it
	err = c.takeSemaphore(context.Background(), semMoneySaldo)
	if !errors.Is(err, workload.ErrNothing) || workload.Reached(err) {
		t.Errorf("a semaphore held in this run: %v, reached %v; want nothing to do, not reached", err, workload.Reached(err))
	}
	if asked := workload.NothingAs("ex_record_not_found", "no semaphore"); !workload.Reached(asked) {
		t.Error("a nothing to do the engine answered is not reached")
	}
}
