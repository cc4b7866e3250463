package oltpemul

import (
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// stmts are the workload's statements, shaped by the dialect where the
// engines differ:
//
//   - lock: a row taken for this transaction that fails at once when
//     another holds it (the original's SELECT … WITH LOCK in a NO WAIT
//     transaction): FOR UPDATE NOWAIT on PostgreSQL and MariaDB; Firebird's
//     FOR UPDATE WITH LOCK (waits: its driver cannot begin SNAPSHOT NO WAIT,
//     see backend.TxModer); nothing on SQLite, whose writers take the
//     database one at a time.
//   - skip: FIFO rows taken without waiting for those another transaction
//     holds (the original skips a row whose DELETE meets a lock conflict):
//     PostgreSQL's SELECT … FOR UPDATE SKIP LOCKED; on MariaDB the rows are
//     read without a lock, then claimed by primary key with SKIP LOCKED
//     (a locking read of a range in REPEATABLE READ would lock the gaps
//     beside it too, and fail other clients' inserts there under
//     innodb_lock_wait_timeout 0); Firebird 3 has no SKIP LOCKED, and its
//     client deletes row by row when a conflict fails a batch, a conflict
//     failing that statement alone.
type stmts struct {
	getSetting, insSetting, insOptype, insSemaphore                *backend.Stmt
	countDocs, customerRange, supplierRange, ourFirm, semaphoreDts *backend.Stmt
	docBounds, wareBounds, cloBounds, pdBounds                     [2]*backend.Stmt
	docFirst, lockDoc, docLines, setDoc, delDoc, docAgent          *backend.Stmt
	warePrice, delLine                                             *backend.Stmt
	wareFirst                                                      *backend.Stmt
	fifo, fifoDesc, fifoSnd, fifoSndDesc                           *backend.Stmt
	qdBySnd, qdIDsBySnd, qsBySnd, qsByRcv, qsIDsBySnd              *backend.Stmt
	cloFirst, cloCart, cloWaiting, dependents                      *backend.Stmt
	pdFirst, pdSum, pdAgent, pdAgentDesc, pdLess, pdClaim          *backend.Stmt
	psByRcv, psBySnd, pdIDsBySnd                                   *backend.Stmt
	lockSemaphore, semaphore, invntLog, saldo, updSaldo, insSaldo  *backend.Stmt
	moneyLog, updMoneySaldo, insMoneySaldo                         *backend.Stmt
	fbIndexes                                                      *backend.Stmt
	agentFirst                                                     [3]*backend.Stmt
	delIn                                                          map[string]map[int]*backend.Stmt
	moveIn                                                         map[int]*backend.Stmt
	rowByRow                                                       bool                             // FIFO rows are deleted one statement each on a conflict (Firebird)
	claim                                                          map[string]map[int]*backend.Stmt // MariaDB: FIFO rows locked by id, SKIP LOCKED
}

// bounds makes the two statements that read a set's lowest and highest id
// from the query that lists them in order: LIMIT 1 on it, and on it in
// descending order, each a step along an index (Firebird's descending
// indexes for the second, see schema), where count, min and max would read
// every row of the set.
func bounds(s func(string) *backend.Stmt, q string) [2]*backend.Stmt {
	return [2]*backend.Stmt{s(q + ` LIMIT 1`), s(q + ` DESC LIMIT 1`)}
}

// delSizes are the lengths of the id lists of the DELETE … WHERE id IN
// statements. Rows are deleted (and moved) by primary key, their ids read
// first: on InnoDB a DELETE by a secondary key would lock the gaps next to
// the rows too, and under innodb_lock_wait_timeout 0 fail every client
// inserting there.
var delSizes = []int{64, 16, 4, 1}

func newStmts(d backend.Dialect) *stmts {
	s := func(q string) *backend.Stmt { return &backend.Stmt{SQL: strings.Join(strings.Fields(q), " ")} }
	lock := ""
	switch {
	case d.Name == "firebird":
		lock = " FOR UPDATE WITH LOCK"
	case d.LockSkip != "":
		lock = " FOR UPDATE NOWAIT"
	}
	skip := d.LockSkip
	byID := d.Name == "mysql"
	if byID {
		skip = ""
	}
	const qcols = `id, doc_id, snd_id, snd_qty, snd_purchase, snd_retail, snd_optype_id, rcv_optype_id`
	st := &stmts{
		getSetting:    s(`SELECT svalue FROM oe_settings WHERE mcode = ?`),
		insSetting:    s(`INSERT INTO oe_settings (mcode, svalue) VALUES (?, ?)`),
		insOptype:     s(`INSERT INTO oe_optypes (id, mcode, name, m_qty_clo, m_qty_clr, m_qty_ord, m_qty_sup, m_qty_avl, m_qty_res, m_cost_inc, m_cost_out, m_cust_debt, m_supp_debt, acn_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		insSemaphore:  s(`INSERT INTO oe_semaphores (id, task, dts) VALUES (?, ?, ?)`),
		countDocs:     s(`SELECT count(*) FROM oe_doc_list`),
		customerRange: s(`SELECT count(*), coalesce(min(id), 0), coalesce(max(id), 0) FROM oe_agents WHERE is_customer = 1`),
		supplierRange: s(`SELECT count(*), coalesce(min(id), 0), coalesce(max(id), 0) FROM oe_agents WHERE is_supplier = 1`),
		ourFirm:       s(`SELECT count(*), coalesce(min(id), 0) FROM oe_agents WHERE is_our_firm = 1`),
		semaphoreDts:  s(`SELECT dts FROM oe_semaphores WHERE id = ?`),

		// sp_get_random_id over v_cancel_client_order and its kind: the
		// documents of one operation of one worker.
		docBounds: bounds(s, `SELECT id FROM oe_doc_list WHERE optype_id = ? AND worker_id = ? ORDER BY id`),
		docFirst:  s(`SELECT id FROM oe_doc_list WHERE optype_id = ? AND worker_id = ? AND id >= ? ORDER BY id LIMIT 1`),
		lockDoc:   s(`SELECT optype_id, agent_id, state_id, coalesce(base_doc_id, 0), cost_purchase, cost_retail FROM oe_doc_list WHERE id = ?` + lock),
		docLines:  s(`SELECT id, ware_id, qty, cost_purchase, cost_retail FROM oe_doc_data WHERE doc_id = ? ORDER BY id`),
		setDoc:    s(`UPDATE oe_doc_list SET optype_id = ?, state_id = ?, dts_fix = ?, dts_clos = ? WHERE id = ?`),
		delDoc:    s(`DELETE FROM oe_doc_list WHERE id = ?`),
		docAgent:  s(`SELECT agent_id FROM oe_doc_list WHERE id = ?`),
		warePrice: s(`SELECT price_purchase, price_retail FROM oe_wares WHERE id = ?`),
		delLine:   s(`DELETE FROM oe_doc_data WHERE id = ?`),

		// v_random_find_clo_ord and its kind: the wares with rows waiting
		// for an operation, of one worker.
		wareBounds: bounds(s, `SELECT ware_id FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? ORDER BY ware_id`),
		wareFirst:  s(`SELECT ware_id FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND ware_id >= ? ORDER BY ware_id LIMIT 1`),

		// sp_make_qty_storno's cursors: a ware's rows waiting for an
		// operation, oldest document first, the rows of one document in the
		// direction of the transaction's parity (the original's
		// "v_sign * id", so that two transactions meet fewer locked rows).
		fifo:        s(`SELECT ` + qcols + ` FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND ware_id = ? ORDER BY doc_id, id LIMIT ?` + skip),
		fifoDesc:    s(`SELECT ` + qcols + ` FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND ware_id = ? ORDER BY doc_id, id DESC LIMIT ?` + skip),
		fifoSnd:     s(`SELECT ` + qcols + ` FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND ware_id = ? AND snd_id = ? ORDER BY doc_id, id LIMIT ?` + skip),
		fifoSndDesc: s(`SELECT ` + qcols + ` FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND ware_id = ? AND snd_id = ? ORDER BY doc_id, id DESC LIMIT ?` + skip),
		qdBySnd:     s(`SELECT ` + qcols + ` FROM oe_qdistr WHERE snd_id = ? AND snd_optype_id = ? AND rcv_optype_id = ? ORDER BY id`),
		qdIDsBySnd:  s(`SELECT id FROM oe_qdistr WHERE snd_id = ? AND snd_optype_id = ?`),
		qsBySnd:     s(`SELECT ` + qcols + `, ware_id, worker_id FROM oe_qstorned WHERE snd_id = ? ORDER BY id`),
		qsByRcv:     s(`SELECT ` + qcols + `, ware_id, worker_id FROM oe_qstorned WHERE rcv_id = ? ORDER BY id`),
		qsIDsBySnd:  s(`SELECT id FROM oe_qstorned WHERE snd_id = ?`),

		// v_random_find_clo_res: the customer orders with units not reserved
		// yet; their lines still waiting (sp_fill_shopping_cart_clo_res);
		// the orders waiting for a ware (sp_get_clo_for_invoice).
		cloBounds:  bounds(s, `SELECT doc_id FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? ORDER BY doc_id`),
		cloFirst:   s(`SELECT doc_id FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND doc_id >= ? ORDER BY doc_id LIMIT 1`),
		cloCart:    s(`SELECT snd_id, ware_id, sum(snd_qty) FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND doc_id = ? GROUP BY snd_id, ware_id ORDER BY ware_id`),
		cloWaiting: s(`SELECT doc_id, snd_qty FROM oe_qdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND ware_id = ? ORDER BY doc_id, snd_id LIMIT ?`),
		// sp_lock_dependent_docs: the documents that took a document's rows.
		dependents: s(`SELECT DISTINCT rcv_doc_id FROM oe_qstorned WHERE doc_id = ? AND snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ?`),

		// v_random_find_non_paid_realizn, …_invoice: documents with cost
		// waiting to be paid, of one worker (searched downwards, as the
		// original's find_using_desc_index).
		pdBounds: bounds(s, `SELECT snd_id FROM oe_pdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? ORDER BY snd_id`),
		pdFirst:  s(`SELECT snd_id FROM oe_pdistr WHERE snd_optype_id = ? AND rcv_optype_id = ? AND worker_id = ? AND snd_id <= ? ORDER BY snd_id DESC LIMIT 1`),
		pdSum:    s(`SELECT coalesce(sum(snd_cost), 0) FROM oe_pdistr WHERE snd_id = ? AND worker_id = ?`),
		// sp_make_cost_storno's cursor: an agent's rows of one operation,
		// oldest document first.
		pdAgent:     s(`SELECT id, snd_optype_id, snd_id, snd_cost, rcv_optype_id FROM oe_pdistr WHERE agent_id = ? AND snd_optype_id = ? AND worker_id = ? ORDER BY snd_id, id LIMIT 200` + skip),
		pdAgentDesc: s(`SELECT id, snd_optype_id, snd_id, snd_cost, rcv_optype_id FROM oe_pdistr WHERE agent_id = ? AND snd_optype_id = ? AND worker_id = ? ORDER BY snd_id, id DESC LIMIT 200` + skip),
		pdLess:      s(`UPDATE oe_pdistr SET snd_cost = snd_cost - ? WHERE id = ?`),
		pdClaim:     s(`UPDATE oe_pdistr SET id = id WHERE id = ?`),
		psByRcv:     s(`SELECT id, agent_id, snd_optype_id, snd_id, snd_cost, rcv_optype_id, rcv_id, rcv_cost FROM oe_pstorned WHERE rcv_id = ? AND worker_id = ?`),
		psBySnd:     s(`SELECT id, agent_id, snd_optype_id, snd_id, snd_cost, rcv_optype_id, rcv_id, rcv_cost FROM oe_pstorned WHERE snd_id = ? AND worker_id = ?`),
		pdIDsBySnd:  s(`SELECT id FROM oe_pdistr WHERE snd_id = ? AND worker_id = ?`),

		// The services.
		lockSemaphore: s(`SELECT id FROM oe_semaphores WHERE id = ?` + lock),
		semaphore:     s(`UPDATE oe_semaphores SET dts = ? WHERE id = ?`),
		invntLog:      s(`SELECT l.id, l.ware_id, l.qty_diff, l.cost_diff, o.m_qty_clo, o.m_qty_clr, o.m_qty_ord, o.m_qty_sup, o.m_qty_avl, o.m_qty_res, o.m_cost_inc, o.m_cost_out FROM oe_invnt_turnover_log l JOIN oe_optypes o ON o.id = l.optype_id ORDER BY l.ware_id, l.id`),
		saldo:         s(`SELECT qty_clo, qty_clr, qty_ord, qty_sup, qty_avl, qty_res, qty_inc, qty_out, cost_inc, cost_out FROM oe_invnt_saldo WHERE id = ?`),
		updSaldo:      s(`UPDATE oe_invnt_saldo SET qty_clo = ?, qty_clr = ?, qty_ord = ?, qty_sup = ?, qty_avl = ?, qty_res = ?, qty_inc = ?, qty_out = ?, cost_inc = ?, cost_out = ?, dts_edit = ? WHERE id = ?`),
		insSaldo:      s(`INSERT INTO oe_invnt_saldo (qty_clo, qty_clr, qty_ord, qty_sup, qty_avl, qty_res, qty_inc, qty_out, cost_inc, cost_out, dts_edit, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		moneyLog:      s(`SELECT l.id, l.agent_id, o.m_supp_debt * l.cost_purchase, o.m_cust_debt * l.cost_retail FROM oe_money_turnover_log l JOIN oe_optypes o ON o.id = l.optype_id ORDER BY l.agent_id, l.id`),
		updMoneySaldo: s(`UPDATE oe_money_saldo SET cost_purchase = cost_purchase + ?, cost_retail = cost_retail + ? WHERE agent_id = ?`),
		insMoneySaldo: s(`INSERT INTO oe_money_saldo (cost_purchase, cost_retail, agent_id) VALUES (?, ?, ?)`),
		fbIndexes:     s(`SELECT TRIM(RDB$INDEX_NAME) FROM RDB$INDICES WHERE COALESCE(RDB$SYSTEM_FLAG, 0) = 0 AND RDB$RELATION_NAME IN ('OE_DOC_DATA', 'OE_DOC_LIST', 'OE_QDISTR', 'OE_QSTORNED', 'OE_PDISTR', 'OE_PSTORNED') ORDER BY 1`),
		rowByRow:      d.Name == "firebird",
		claim:         map[string]map[int]*backend.Stmt{},
		delIn:         map[string]map[int]*backend.Stmt{},
		moveIn:        map[int]*backend.Stmt{},
	}
	for i, col := range []string{"is_customer", "is_supplier", "is_our_firm"} {
		st.agentFirst[i] = s(`SELECT id FROM oe_agents WHERE ` + col + ` = 1 AND id >= ? ORDER BY id LIMIT 1`)
	}
	if byID {
		for _, t := range []string{"oe_qdistr", "oe_pdistr"} {
			st.claim[t] = map[int]*backend.Stmt{}
			for _, n := range delSizes {
				st.claim[t][n] = s(`SELECT id FROM ` + t + ` WHERE id IN (` + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + `)` + d.LockSkip)
			}
		}
	}
	for _, n := range delSizes {
		st.moveIn[n] = s(`UPDATE oe_qdistr SET snd_optype_id = ? WHERE id IN (` + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + `)`)
	}
	for _, t := range []string{"oe_qdistr", "oe_qstorned", "oe_pdistr", "oe_pstorned", "oe_invnt_turnover_log", "oe_money_turnover_log"} {
		st.delIn[t] = map[int]*backend.Stmt{}
		for _, n := range delSizes {
			st.delIn[t][n] = s(`DELETE FROM ` + t + ` WHERE id IN (` + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + `)`)
		}
	}
	return st
}
