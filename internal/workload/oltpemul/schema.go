package oltpemul

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// The operation types: OLTP-EMUL's optypes (oltp_main_filling.sql), by id.
const (
	opCLO = 1000 // add to client order
	opCLR = 1100 // client refused from order
	opORD = 1200 // add to stock order, send to supplier
	opSUP = 2000 // get invoice from supplier
	opINC = 2100 // add invoice to available remainders
	opRES = 3300 // retail sale - reserve for customer
	opSAL = 3400 // retail sale - write-off (realization)
	opPSU = 4000 // payment to supplier for wares
	opPCU = 5000 // payment from customer (advance or target transfer)
)

// The document states: doc_states.
const (
	stOpen = 2000 // content not checked, changes enable
	stFix  = 2010 // content checked, accept only payments
	stClos = 2020 // closed from any changes
	stCanc = 2030 // cancelled without revert
)

// optype is one row of optypes: how an operation moves each remainder and
// each debt (m_cost_inc and m_cost_out, computed columns in the original,
// are stored).
type optype struct {
	id                                   int
	mcode, name                          string
	clo, clr, ord, sup, avl, res         int
	costInc, costOut, custDebt, suppDebt int
	acn                                  string
}

// optypes: OLTP-EMUL's, m_cost_inc = (m_qty_avl = 1), m_cost_out =
// (m_qty_res = -1).
var optypes = []optype{
	{id: opCLO, mcode: "CLO", name: "add to client order", clo: 1, acn: "1"},
	{id: opCLR, mcode: "CLR", name: "client refused from order", clr: 1, acn: "1"},
	{id: opORD, mcode: "ORD", name: "add to stock order, send to supplier", clo: -1, ord: 1, acn: "2"},
	{id: opSUP, mcode: "SUP", name: "get invoice from supplier", ord: -1, sup: 1, acn: "i"},
	{id: opINC, mcode: "INC", name: "add invoice to available remainders", sup: -1, avl: 1, costInc: 1, suppDebt: 1, acn: "i"},
	{id: opRES, mcode: "RES", name: "retail sale - reserve for customer", avl: -1, res: 1, acn: "o"},
	{id: opSAL, mcode: "SAL", name: "retail sale - write-off (realization)", res: -1, costOut: 1, custDebt: 1, acn: "o"},
	{id: opPSU, mcode: "PSU", name: "payment to supplier for wares", suppDebt: -1, acn: "s"},
	{id: opPCU, mcode: "PCU", name: "payment from customer (advance or target transfer)", custDebt: -1, acn: "c"},
}

func optypeOf(id int) optype {
	for _, o := range optypes {
		if o.id == id {
			return o
		}
	}
	return optype{id: id}
}

// The quantity FIFO's rules: rules_for_qdistr. An operation's document
// line of quantity q puts q rows of one unit into qdistr for each rule
// whose sender it is; the next stage takes ("storns") them, oldest
// document first, moving each into qstorned.
//
//	new_doc_only   -    → 1000
//	distr+new_doc  1000 → 1200  storno_sub 1
//	distr+new_doc  1200 → 2000  storno_sub 1
//	mult_rows_only 1000 → 3300  storno_sub 2
//	mult_rows_only 2000 → 3300
//	distr+new_doc  2100 → 3300  storno_sub 1
//	new_doc_only   3300 → 3400
type qrule struct{ snd, rcv, sub int }

var qrules = []qrule{
	{opCLO, opORD, 1}, {opORD, opSUP, 1}, {opCLO, opRES, 2}, {opSUP, opRES, 0}, {opINC, opRES, 1}, {opRES, opSAL, 0},
}

// nextRcv is the receiver of the rows a document of op creates when it
// storns (sp_make_qty_storno's v_next_rcv_op): 1200 → 2000, 2000 → 3300,
// 3300 → 3400.
func nextRcv(op int) int {
	for _, r := range qrules {
		if r.snd == op && r.sub != 2 {
			return r.rcv
		}
	}
	return 0
}

// source is the sender whose rows op storns first (storno_sub 1):
// 1200 ← 1000, 2000 ← 1200, 3300 ← 2100.
func source(op int) int {
	for _, r := range qrules {
		if r.rcv == op && r.sub == 1 {
			return r.snd
		}
	}
	return 0
}

// The cost FIFO's rules: rules_for_pdistr, rows_to_multiply 10
// (C_ROWS_TO_MULTIPLY): a realization's cost waits in pdistr for the
// customer's payments, a payment for realizations (an advance); likewise
// invoices and payments to suppliers.
var prules = [][2]int{{opPCU, opSAL}, {opSAL, opPCU}, {opPSU, opINC}, {opINC, opPSU}}

// pcounter is the operation whose rows op's document pays off: 5000 ↔
// 3400, 4000 ↔ 2100.
func pcounter(op int) int {
	for _, r := range prules {
		if r[0] == op {
			return r[1]
		}
	}
	return 0
}

// The semaphores: the services run one client at a time, the one that
// holds their row (OLTP-EMUL's semaphores table).
const (
	semMoneySaldo = 1 // srv_make_money_saldo
	semRecalcIdx  = 2 // srv_recalc_idx_stat
	semInvntSaldo = 3 // srv_make_invnt_saldo
)

// The tables, in portable SQL, after oltp30_DDL.sql. Money is in cents
// (the original's numeric(12,2)), quantities in whole units (its
// numeric(12,3) only ever holds integers), times in Unix microseconds. The
// CHECK constraints are the original's, its domains' (dm_qty ≥ 0, dm_sign
// in -1, 0, 1) included; ids come from the workload (see initIDs), as the
// original takes them from sequences.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS oe_settings (mcode VARCHAR(40) NOT NULL PRIMARY KEY, svalue VARCHAR(80) NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS oe_optypes (id INTEGER NOT NULL PRIMARY KEY, mcode CHAR(3) NOT NULL, name VARCHAR(80) NOT NULL,
		m_qty_clo SMALLINT NOT NULL, m_qty_clr SMALLINT NOT NULL, m_qty_ord SMALLINT NOT NULL, m_qty_sup SMALLINT NOT NULL,
		m_qty_avl SMALLINT NOT NULL, m_qty_res SMALLINT NOT NULL, m_cost_inc SMALLINT NOT NULL, m_cost_out SMALLINT NOT NULL,
		m_cust_debt SMALLINT NOT NULL, m_supp_debt SMALLINT NOT NULL, acn_type CHAR(1) NOT NULL,
		CONSTRAINT oe_optypes_mcode_unq UNIQUE (mcode),
		CONSTRAINT oe_optypes_sign CHECK (m_qty_clo IN (-1, 0, 1) AND m_qty_clr IN (-1, 0, 1) AND m_qty_ord IN (-1, 0, 1) AND m_qty_sup IN (-1, 0, 1)
			AND m_qty_avl IN (-1, 0, 1) AND m_qty_res IN (-1, 0, 1) AND m_cust_debt IN (-1, 0, 1) AND m_supp_debt IN (-1, 0, 1)),
		CONSTRAINT oe_optype_mutual_inc_out CHECK (abs(m_cost_inc) + abs(m_cost_out) < 2),
		CONSTRAINT oe_optype_mult_pay_only CHECK (m_supp_debt = 1 AND m_cost_inc = 1 OR m_cust_debt = 1 AND m_cost_out = 1
			OR m_supp_debt <= 0 AND m_cust_debt <= 0 AND m_cost_inc = 0 AND m_cost_out = 0),
		CONSTRAINT oe_optypes_acn CHECK (acn_type IN ('1', '2', 'i', 'o', 'c', 's')))`,
	`CREATE TABLE IF NOT EXISTS oe_wares (id BIGINT NOT NULL PRIMARY KEY, numb VARCHAR(20) NOT NULL, name VARCHAR(80) NOT NULL,
		price_purchase BIGINT NOT NULL, price_retail BIGINT NOT NULL, CONSTRAINT oe_wares_numb_unq UNIQUE (numb))`,
	`CREATE TABLE IF NOT EXISTS oe_agents (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(80) NOT NULL,
		is_customer SMALLINT NOT NULL, is_supplier SMALLINT NOT NULL, is_our_firm SMALLINT NOT NULL,
		CONSTRAINT oe_agents_sign CHECK (is_customer IN (0, 1) AND is_supplier IN (0, 1) AND is_our_firm IN (0, 1)),
		CONSTRAINT oe_agents_mutual_excl CHECK (is_our_firm = 1 AND is_customer = 0 AND is_supplier = 0
			OR is_our_firm = 0 AND (is_customer = 1 OR is_supplier = 1)),
		CONSTRAINT oe_agents_name_unq UNIQUE (name))`,
	`CREATE TABLE IF NOT EXISTS oe_doc_list (id BIGINT NOT NULL PRIMARY KEY, optype_id INTEGER NOT NULL, agent_id BIGINT NOT NULL,
		state_id INTEGER NOT NULL, base_doc_id BIGINT, cost_purchase BIGINT NOT NULL, cost_retail BIGINT NOT NULL,
		acn_type CHAR(1) NOT NULL, dts_open BIGINT NOT NULL, dts_fix BIGINT, dts_clos BIGINT, worker_id INTEGER NOT NULL,
		CONSTRAINT oe_dts_clos_greater_than_open CHECK (dts_clos IS NULL OR dts_clos > dts_open),
		CONSTRAINT oe_doc_list_acn CHECK (acn_type IN ('1', '2', 'i', 'o', 'c', 's')))`,
	`CREATE INDEX IF NOT EXISTS oe_doc_list_pick ON oe_doc_list (optype_id, worker_id, id)`,
	`CREATE TABLE IF NOT EXISTS oe_doc_data (id BIGINT NOT NULL PRIMARY KEY, doc_id BIGINT NOT NULL, ware_id BIGINT NOT NULL,
		qty BIGINT NOT NULL, cost_purchase BIGINT NOT NULL, cost_retail BIGINT NOT NULL, dts_edit BIGINT NOT NULL,
		CONSTRAINT oe_doc_data_doc_ware_unq UNIQUE (doc_id, ware_id),
		CONSTRAINT oe_doc_data_qty CHECK (qty >= 0),
		CONSTRAINT oe_doc_data_qty_cost_both CHECK (qty > 0 AND cost_purchase > 0 AND cost_retail > 0 OR qty = 0 AND cost_purchase = 0 AND cost_retail = 0))`,
	// The quantity FIFO: a row per unit waiting for its receiver (qdistr),
	// and the rows taken, with the line that took them (qstorned).
	`CREATE TABLE IF NOT EXISTS oe_qdistr (id BIGINT NOT NULL PRIMARY KEY, doc_id BIGINT NOT NULL, worker_id INTEGER NOT NULL,
		ware_id BIGINT NOT NULL, snd_optype_id INTEGER NOT NULL, snd_id BIGINT NOT NULL, snd_qty BIGINT NOT NULL,
		rcv_optype_id INTEGER NOT NULL, snd_purchase BIGINT NOT NULL, snd_retail BIGINT NOT NULL,
		CONSTRAINT oe_qdistr_qty CHECK (snd_qty >= 0))`,
	`CREATE INDEX IF NOT EXISTS oe_qdistr_fifo ON oe_qdistr (snd_optype_id, rcv_optype_id, worker_id, ware_id, doc_id)`,
	`CREATE INDEX IF NOT EXISTS oe_qdistr_doc ON oe_qdistr (snd_optype_id, rcv_optype_id, worker_id, doc_id)`,
	`CREATE INDEX IF NOT EXISTS oe_qdistr_snd ON oe_qdistr (snd_id)`,
	`CREATE TABLE IF NOT EXISTS oe_qstorned (id BIGINT NOT NULL PRIMARY KEY, doc_id BIGINT NOT NULL, worker_id INTEGER NOT NULL,
		ware_id BIGINT NOT NULL, snd_optype_id INTEGER NOT NULL, snd_id BIGINT NOT NULL, snd_qty BIGINT NOT NULL,
		rcv_doc_id BIGINT NOT NULL, rcv_optype_id INTEGER NOT NULL, rcv_id BIGINT NOT NULL,
		snd_purchase BIGINT NOT NULL, snd_retail BIGINT NOT NULL,
		CONSTRAINT oe_qstorned_qty CHECK (snd_qty >= 0))`,
	`CREATE INDEX IF NOT EXISTS oe_qstorned_doc ON oe_qstorned (doc_id)`,
	`CREATE INDEX IF NOT EXISTS oe_qstorned_snd ON oe_qstorned (snd_id)`,
	`CREATE INDEX IF NOT EXISTS oe_qstorned_rcv ON oe_qstorned (rcv_id)`,
	// The cost FIFO: what a document still waits to be paid or to pay
	// (pdistr), and what paid what (pstorned).
	`CREATE TABLE IF NOT EXISTS oe_pdistr (id BIGINT NOT NULL PRIMARY KEY, agent_id BIGINT NOT NULL, snd_optype_id INTEGER NOT NULL,
		snd_id BIGINT NOT NULL, worker_id INTEGER NOT NULL, snd_cost BIGINT NOT NULL, rcv_optype_id INTEGER NOT NULL,
		CONSTRAINT oe_pdistr_snd_op_diff_rcv_op CHECK (snd_optype_id <> rcv_optype_id),
		CONSTRAINT oe_pdistr_cost CHECK (snd_cost >= 0))`,
	`CREATE INDEX IF NOT EXISTS oe_pdistr_pick ON oe_pdistr (snd_optype_id, rcv_optype_id, worker_id, snd_id)`,
	`CREATE INDEX IF NOT EXISTS oe_pdistr_agent ON oe_pdistr (agent_id, snd_optype_id, worker_id)`,
	`CREATE INDEX IF NOT EXISTS oe_pdistr_snd ON oe_pdistr (snd_id)`,
	`CREATE TABLE IF NOT EXISTS oe_pstorned (id BIGINT NOT NULL PRIMARY KEY, agent_id BIGINT NOT NULL, snd_optype_id INTEGER NOT NULL,
		snd_id BIGINT NOT NULL, worker_id INTEGER NOT NULL, snd_cost BIGINT NOT NULL, rcv_optype_id INTEGER NOT NULL,
		rcv_id BIGINT NOT NULL, rcv_cost BIGINT NOT NULL,
		CONSTRAINT oe_pstorned_snd_op_diff_rcv_op CHECK (snd_optype_id <> rcv_optype_id))`,
	`CREATE INDEX IF NOT EXISTS oe_pstorned_snd ON oe_pstorned (snd_id)`,
	`CREATE INDEX IF NOT EXISTS oe_pstorned_rcv ON oe_pstorned (rcv_id)`,
	// The turnover logs: insert-only for the business units; the
	// aggregations total them into the saldos and delete what they totalled.
	`CREATE TABLE IF NOT EXISTS oe_invnt_turnover_log (id BIGINT NOT NULL PRIMARY KEY, ware_id BIGINT NOT NULL, qty_diff BIGINT NOT NULL,
		cost_diff BIGINT NOT NULL, doc_list_id BIGINT NOT NULL, doc_pref CHAR(3) NOT NULL, doc_data_id BIGINT NOT NULL,
		optype_id INTEGER NOT NULL, dts_edit BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS oe_invnt_turnover_log_ware ON oe_invnt_turnover_log (ware_id, doc_data_id)`,
	`CREATE TABLE IF NOT EXISTS oe_invnt_saldo (id BIGINT NOT NULL PRIMARY KEY,
		qty_clo BIGINT NOT NULL, qty_clr BIGINT NOT NULL, qty_ord BIGINT NOT NULL, qty_sup BIGINT NOT NULL,
		qty_avl BIGINT NOT NULL, qty_res BIGINT NOT NULL, qty_inc BIGINT NOT NULL, qty_out BIGINT NOT NULL,
		cost_inc BIGINT NOT NULL, cost_out BIGINT NOT NULL, dts_edit BIGINT NOT NULL,
		CONSTRAINT oe_invnt_saldo_qty CHECK (qty_clo >= 0 AND qty_clr >= 0 AND qty_ord >= 0 AND qty_sup >= 0
			AND qty_avl >= 0 AND qty_res >= 0 AND qty_inc >= 0 AND qty_out >= 0),
		CONSTRAINT oe_invnt_saldo_acn_zero CHECK (NOT (qty_avl + qty_res = 0 AND cost_inc - cost_out <> 0
			OR qty_avl + qty_res <> 0 AND cost_inc - cost_out = 0)))`,
	`CREATE TABLE IF NOT EXISTS oe_money_turnover_log (id BIGINT NOT NULL PRIMARY KEY, doc_id BIGINT NOT NULL, agent_id BIGINT NOT NULL,
		optype_id INTEGER NOT NULL, cost_purchase BIGINT NOT NULL, cost_retail BIGINT NOT NULL, dts BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS oe_money_turnover_log_agent ON oe_money_turnover_log (agent_id, optype_id)`,
	`CREATE TABLE IF NOT EXISTS oe_money_saldo (agent_id BIGINT NOT NULL PRIMARY KEY, cost_purchase BIGINT NOT NULL, cost_retail BIGINT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS oe_semaphores (id INTEGER NOT NULL PRIMARY KEY, task VARCHAR(40) NOT NULL, dts BIGINT NOT NULL,
		CONSTRAINT oe_semaphores_task_unq UNIQUE (task))`,
}

// descending are the indexes a set's highest id is read from (see bounds)
// on Firebird, whose indexes are walked in one direction only: the
// original's doc_list_id_desc, pdistr_sndop_rcvop_sndid_desc and their kind.
// The other engines walk an index backwards.
var descending = []string{
	`CREATE DESCENDING INDEX IF NOT EXISTS oe_doc_list_pick_desc ON oe_doc_list (optype_id, worker_id, id)`,
	`CREATE DESCENDING INDEX IF NOT EXISTS oe_qdistr_ware_desc ON oe_qdistr (snd_optype_id, rcv_optype_id, worker_id, ware_id)`,
	`CREATE DESCENDING INDEX IF NOT EXISTS oe_qdistr_doc_desc ON oe_qdistr (snd_optype_id, rcv_optype_id, worker_id, doc_id)`,
	`CREATE DESCENDING INDEX IF NOT EXISTS oe_pdistr_pick_desc ON oe_pdistr (snd_optype_id, rcv_optype_id, worker_id, snd_id)`,
}

func createSchema(ctx context.Context, c backend.Conn, d backend.Dialect) error {
	stmts := schema
	if d.Name == "firebird" {
		stmts = append(stmts[:len(stmts):len(stmts)], descending...)
	}
	for _, s := range stmts {
		if err := c.ExecScript(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// Id sequences, kept by the workload: seeded from the tables' maxima at load.
const (
	seqDoc = iota
	seqDocData
	seqQdistr
	seqPdistr
	seqPstorned
	seqInvntLog
	seqMoneyLog
	nSeq
)

// seqTables are the tables each sequence numbers; qstorned rows keep the id
// of the qdistr row they were, as in the original.
var seqTables = [nSeq][]string{
	{"oe_doc_list"}, {"oe_doc_data"}, {"oe_qdistr", "oe_qstorned"}, {"oe_pdistr"}, {"oe_pstorned"},
	{"oe_invnt_turnover_log"}, {"oe_money_turnover_log"},
}

func (w *emul) initIDs(ctx context.Context, c backend.Conn) error {
	for i, ts := range seqTables {
		var top int64
		for _, t := range ts {
			var n int64
			if err := c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT coalesce(max(id), 0) FROM " + t}, nil, &n); err != nil {
				return err
			}
			top = max(top, n)
		}
		w.ids[i].Store(top)
	}
	return nil
}

func (w *emul) id(seq int) int64 { return w.ids[seq].Add(1) }
