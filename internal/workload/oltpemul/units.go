package oltpemul

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// The units: OLTP-EMUL's business_ops (oltp_main_filling.sql), in its
// sort_prior order, with its names, modes, kinds and
// random_selection_weight. A unit kind is an index into units.
const (
	uClientOrder = iota
	uCancelClientOrder
	uSupplierOrder
	uCancelSupplierOrder
	uSupplierInvoice
	uCancelSupplierInvoice
	uAddInvoiceToStock
	uCancelAddingInvoice
	uCustomerReserve
	uCancelCustomerReserve
	uReserveWriteOff
	uCancelWriteOff
	uPayFromCustomer
	uCancelPayFromCustomer
	uPayToSupplier
	uCancelPayToSupplier
	uMakeInvntSaldo
	uMakeMoneySaldo
	uAggregatePerfData
	uRecalcIdxStat
	nUnits
)

// unit is one row of business_ops.
type unit struct {
	name   string
	mode   string // stock, payments, service
	kind   string // creation, removal, state_next, state_back, service
	weight int    // random_selection_weight
	info   string
}

var units = [nUnits]unit{
	{"sp_client_order", "stock", "creation", 95, "customer order: creation"},
	{"sp_cancel_client_order", "stock", "removal", 30, "customer order: refuse"},
	{"sp_supplier_order", "stock", "creation", 65, "order to supplier: creation"},
	{"sp_cancel_supplier_order", "stock", "removal", 10, "order to supplier: removal"},
	{"sp_supplier_invoice", "stock", "creation", 65, "invoice (draft): creation"},
	{"sp_cancel_supplier_invoice", "stock", "removal", 10, "invoice (draft): removal"},
	{"sp_add_invoice_to_stock", "stock", "state_next", 62, "invoice accept: apply"},
	{"sp_cancel_adding_invoice", "stock", "state_back", 10, "invoice accept: cancel"},
	{"sp_customer_reserve", "stock", "creation", 20, "customer reserve: creation"},
	{"sp_cancel_customer_reserve", "stock", "removal", 15, "customer reserve: removal"},
	{"sp_reserve_write_off", "stock", "state_next", 80, "realization accept: apply"},
	{"sp_cancel_write_off", "stock", "state_back", 20, "realization accept: cancel"},
	{"sp_pay_from_customer", "payments", "creation", 72, "payment from customer: creation"},
	{"sp_cancel_pay_from_customer", "payments", "removal", 15, "payment from customer: removal"},
	{"sp_pay_to_supplier", "payments", "creation", 67, "payment to supplier: creation"},
	{"sp_cancel_pay_to_supplier", "payments", "removal", 10, "payment to supplier: removal"},
	{"srv_make_invnt_saldo", "service", "service", 35, "service: total inventory turnovers"},
	{"srv_make_money_saldo", "service", "service", 33, "service: total monetary turnovers"},
	{"srv_aggregate_perf_data", "service", "service", 5, "service: aggregate perf. data"},
	{"srv_recalc_idx_stat", "service", "service", 99, "service: refresh index statistics"},
}

// weighted lists the units with their weights, for the run's shape.
func weighted() []workload.Weighted {
	out := make([]workload.Weighted, nUnits)
	for i, u := range units {
		out[i] = workload.Weighted{Name: u.name, Weight: u.weight}
	}
	return out
}

// draw is OLTP-EMUL's srv_random_unit_choice (oltp30_DDL.sql): r is drawn
// uniformly below the largest weight of the units other than
// srv_recalc_idx_stat, every unit whose weight is at least r is a
// candidate, and one candidate is taken uniformly ("order by rand() rows
// n to n"). A unit's odds are therefore not its share of the weights: a
// heavy unit is a candidate more often. srv_recalc_idx_stat is a
// candidate, whatever r, once recalcDue says its interval has passed.
// Before the measure phase (PERF_WATCH_BEG) only creation, state_next and
// service units are drawn: no removal, no state_back ("lot of garbage
// would be accumulated otherwise").
func draw(rng *rand.Rand, warmup, recalcDue bool) int {
	rmax := 0
	for i, u := range units {
		if i != uRecalcIdxStat {
			rmax = max(rmax, u.weight)
		}
	}
	r := rng.Float64() * float64(rmax)
	var cands [nUnits]int
	n := 0
	for i, u := range units {
		if i == uRecalcIdxStat {
			if recalcDue {
				cands[n] = i
				n++
			}
			continue
		}
		if float64(u.weight) < r || warmup && !slices.Contains([]string{"creation", "state_next", "service"}, u.kind) {
			continue
		}
		cands[n] = i
		n++
	}
	if n == 0 { // r above every weight allowed in the warm-up: the heaviest
		return uClientOrder
	}
	return cands[rng.IntN(n)]
}

// odds returns each unit's probability under draw (recalcDue false),
// integrated exactly over r: a unit of weight w is a candidate for every
// r ≤ w, among as many candidates as units weigh at least r.
func odds(warmup bool) [nUnits]float64 {
	var out [nUnits]float64
	allowed := func(i int) bool {
		return i != uRecalcIdxStat && (!warmup || slices.Contains([]string{"creation", "state_next", "service"}, units[i].kind))
	}
	var ws []int
	rmax := 0
	for i, u := range units {
		if i != uRecalcIdxStat {
			rmax = max(rmax, u.weight)
		}
		if allowed(i) {
			ws = append(ws, u.weight)
		}
	}
	slices.Sort(ws)
	ws = slices.Compact(ws)
	lo := 0.0
	for _, w := range ws { // r in (lo, w]: the candidates are the units weighing at least w
		n := 0
		for i, u := range units {
			if allowed(i) && u.weight >= w {
				n++
			}
		}
		for i, u := range units {
			if allowed(i) && u.weight >= w {
				out[i] += (float64(w) - lo) / float64(rmax) / float64(n)
			}
		}
		lo = float64(w)
	}
	return out
}

// recalcDue says whether srv_recalc_idx_stat may be drawn: its interval
// (recalc_idx_min_interval) has passed since it last ran; never with an
// interval of 0.
func recalcDue(interval time.Duration, last, now time.Time) bool {
	return interval > 0 && now.Sub(last) >= interval
}
