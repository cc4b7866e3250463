package nms

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// schema is the portable DDL: every engine dbgauge speaks accepts it.
var schema = []string{
	`CREATE TABLE vsat (
	id BIGINT PRIMARY KEY, name VARCHAR(32) NOT NULL,
	status INTEGER NOT NULL, admin_state INTEGER NOT NULL, oper_state INTEGER NOT NULL,
	frequency_hz BIGINT NOT NULL, power_dbm INTEGER NOT NULL,
	calls BIGINT NOT NULL, updates BIGINT NOT NULL, last_change_us BIGINT NOT NULL,
	alarm VARCHAR(64) NOT NULL, note VARCHAR(200) NOT NULL)`,
	`CREATE TABLE cu (
	id BIGINT PRIMARY KEY, name VARCHAR(32) NOT NULL,
	status INTEGER NOT NULL, admin_state INTEGER NOT NULL, oper_state INTEGER NOT NULL,
	frequency_hz BIGINT NOT NULL, power_dbm INTEGER NOT NULL,
	calls BIGINT NOT NULL, updates BIGINT NOT NULL, last_change_us BIGINT NOT NULL,
	alarm VARCHAR(64) NOT NULL, note VARCHAR(200) NOT NULL)`,
	`CREATE TABLE freq_channel (
	id BIGINT PRIMARY KEY, vsat_id BIGINT NOT NULL, cu_id BIGINT NOT NULL,
	frequency_hz BIGINT NOT NULL, bandwidth_hz BIGINT NOT NULL, power_dbm INTEGER NOT NULL,
	state INTEGER NOT NULL, created_us BIGINT NOT NULL)`,
}

const metaDDL = `CREATE TABLE IF NOT EXISTS dbgauge_meta (name VARCHAR(64) PRIMARY KEY, val VARCHAR(255) NOT NULL)`

const metaLines = "nms.lines"

// Statements, shared by every client; each connection prepares its own.
var (
	insChannel = &backend.Stmt{SQL: `INSERT INTO freq_channel (id, vsat_id, cu_id, frequency_hz, bandwidth_hz, power_dbm, state, created_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`}
	delChannel = &backend.Stmt{SQL: `DELETE FROM freq_channel WHERE id = ?`}
	updVSAT    = &backend.Stmt{SQL: `UPDATE vsat SET status = ?, oper_state = ?, power_dbm = ?, updates = updates + 1, last_change_us = ?, note = ? WHERE id = ?`}
	updCU      = &backend.Stmt{SQL: `UPDATE cu SET status = ?, oper_state = ?, power_dbm = ?, updates = updates + 1, last_change_us = ?, note = ? WHERE id = ?`}
	insVSAT    = &backend.Stmt{SQL: `INSERT INTO vsat (id, name, status, admin_state, oper_state, frequency_hz, power_dbm, calls, updates, last_change_us, alarm, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`}
	insCU      = &backend.Stmt{SQL: `INSERT INTO cu (id, name, status, admin_state, oper_state, frequency_hz, power_dbm, calls, updates, last_change_us, alarm, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`}
	getMeta    = &backend.Stmt{SQL: `SELECT val FROM dbgauge_meta WHERE name = ?`}
	delMeta    = &backend.Stmt{SQL: `DELETE FROM dbgauge_meta WHERE name = ?`}
	insMeta    = &backend.Stmt{SQL: `INSERT INTO dbgauge_meta (name, val) VALUES (?, ?)`}
	tallyVSAT  = &backend.Stmt{SQL: `SELECT count(*), coalesce(sum(updates), 0) FROM vsat`}
	tallyCU    = &backend.Stmt{SQL: `SELECT count(*), coalesce(sum(updates), 0) FROM cu`}
	tallyChan  = &backend.Stmt{SQL: `SELECT count(*), coalesce(max(id), 0) FROM freq_channel`}
	orphans    = &backend.Stmt{SQL: `SELECT count(*) FROM freq_channel f WHERE NOT EXISTS (SELECT 1 FROM vsat v WHERE v.id = f.vsat_id) OR NOT EXISTS (SELECT 1 FROM cu c WHERE c.id = f.cu_id)`}
	owned      = &backend.Stmt{SQL: `SELECT id FROM freq_channel WHERE id % ? = ? ORDER BY id`}
)

type sqlStore struct {
	c backend.Conn
	d backend.Dialect
}

func newSQLStore(c backend.Conn, d backend.Dialect) *sqlStore { return &sqlStore{c: c, d: d} }

func (s *sqlStore) begin(ctx context.Context) error    { return s.c.Begin(ctx) }
func (s *sqlStore) commit(ctx context.Context) error   { return s.c.Commit(ctx) }
func (s *sqlStore) rollback(ctx context.Context) error { return s.c.Rollback(ctx) }
func (s *sqlStore) close() error                       { return s.c.Close() }

// one runs a statement that must change exactly one row.
func (s *sqlStore) one(ctx context.Context, st *backend.Stmt, args ...any) error {
	n, err := s.c.Exec(ctx, st, args...)
	if err != nil {
		return err
	}
	if n != 1 {
		return workload.Inconsistent("nms: %q changed %d rows, want 1 (args %v)", st.SQL, n, args)
	}
	return nil
}

func (s *sqlStore) insertChannel(ctx context.Context, ch *channel) error {
	return s.one(ctx, insChannel, ch.ID, ch.VSAT, ch.CU, ch.FreqHz, ch.BandwidthHz, ch.PowerDBm, ch.State, ch.Created)
}

func (s *sqlStore) deleteChannel(ctx context.Context, id int64) error {
	return s.one(ctx, delChannel, id)
}

func (s *sqlStore) updateVSAT(ctx context.Context, id int64, u *update) error {
	return s.one(ctx, updVSAT, u.Status, u.Oper, u.PowerDBm, u.LastChange, u.Note, id)
}

func (s *sqlStore) updateCU(ctx context.Context, id int64, u *update) error {
	return s.one(ctx, updCU, u.Status, u.Oper, u.PowerDBm, u.LastChange, u.Note, id)
}

func (s *sqlStore) datasetLines(ctx context.Context) (int, bool, error) {
	if err := s.c.ExecScript(ctx, metaDDL); err != nil {
		return 0, false, err
	}
	var v string
	err := s.c.QueryRow(ctx, getMeta, []any{metaLines}, &v)
	if errors.Is(err, backend.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	n, err := strconv.Atoi(v)
	return n, err == nil, nil
}

func (s *sqlStore) rebuild(ctx context.Context, lines, channels int, g *generator) error {
	for _, t := range []string{"freq_channel", "cu", "vsat"} {
		if err := s.c.ExecScript(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	for _, ddl := range schema {
		if err := s.c.ExecScript(ctx, ddl); err != nil {
			return err
		}
	}
	return workload.InSQLTx(ctx, s.c, func() error { return s.fill(ctx, lines, channels, g) })
}

func (s *sqlStore) fill(ctx context.Context, lines, channels int, g *generator) error {
	for i := int64(1); i <= int64(lines); i++ {
		for _, t := range []struct {
			st     *backend.Stmt
			prefix string
		}{{insVSAT, "VSAT"}, {insCU, "CU"}} {
			r := g.terminal(t.prefix, i)
			if _, err := s.c.Exec(ctx, t.st, r.ID, r.Name, r.Status, r.Admin, r.Oper, r.FreqHz, r.PowerDBm,
				r.Calls, r.Updates, r.LastChange, r.Alarm, r.Note); err != nil {
				return err
			}
		}
	}
	for i := int64(1); i <= int64(channels); i++ {
		if err := s.insertChannel(ctx, g.channel(i)); err != nil {
			return err
		}
	}
	if _, err := s.c.Exec(ctx, delMeta, metaLines); err != nil {
		return err
	}
	_, err := s.c.Exec(ctx, insMeta, metaLines, strconv.Itoa(lines))
	return err
}

func (s *sqlStore) tally(ctx context.Context, withOrphans bool) (tally, error) {
	var t tally
	if err := s.c.QueryRow(ctx, tallyVSAT, nil, &t.vsats, &t.vsatUpdates); err != nil {
		return t, err
	}
	if err := s.c.QueryRow(ctx, tallyCU, nil, &t.cus, &t.cuUpdates); err != nil {
		return t, err
	}
	if err := s.c.QueryRow(ctx, tallyChan, nil, &t.channels, &t.maxChannel); err != nil {
		return t, err
	}
	if withOrphans {
		return t, s.c.QueryRow(ctx, orphans, nil, &t.orphans)
	}
	return t, nil
}

func (s *sqlStore) ownedChannels(ctx context.Context, clients, id int64) ([]int64, error) {
	var ids []int64
	err := s.c.Query(ctx, owned, []any{clients, id}, func(scan func(...any) error) error {
		var v int64
		if err := scan(&v); err != nil {
			return err
		}
		ids = append(ids, v)
		return nil
	})
	return ids, err
}

// procedures holds, per dialect, the call as one stored procedure; it raises
// an error when a row it must change is missing, as the client's checks do.
var procedures = map[string]string{
	"postgres": `CREATE OR REPLACE FUNCTION nms_call(
	p_id bigint, p_vsat bigint, p_cu bigint, p_freq bigint, p_bw bigint, p_power int, p_created bigint,
	p_ids bigint[], p_is_vsat boolean[], p_status int[], p_oper int[], p_pw int[], p_change bigint[], p_notes text[],
	p_del bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	i int;
	n int;
BEGIN
	INSERT INTO freq_channel (id, vsat_id, cu_id, frequency_hz, bandwidth_hz, power_dbm, state, created_us)
	VALUES (p_id, p_vsat, p_cu, p_freq, p_bw, p_power, 1, p_created);
	FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
		IF p_is_vsat[i] THEN
			UPDATE vsat SET status = p_status[i], oper_state = p_oper[i], power_dbm = p_pw[i], updates = updates + 1,
				last_change_us = p_change[i], note = p_notes[i] WHERE id = p_ids[i];
		ELSE
			UPDATE cu SET status = p_status[i], oper_state = p_oper[i], power_dbm = p_pw[i], updates = updates + 1,
				last_change_us = p_change[i], note = p_notes[i] WHERE id = p_ids[i];
		END IF;
		GET DIAGNOSTICS n = ROW_COUNT;
		IF n <> 1 THEN RAISE EXCEPTION 'nms: row % missing', p_ids[i]; END IF;
	END LOOP;
	DELETE FROM freq_channel WHERE id = p_del;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n <> 1 THEN RAISE EXCEPTION 'nms: channel % missing', p_del; END IF;
END $$`,
}

var callProc = &backend.Stmt{SQL: `SELECT nms_call(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`}

// maxSlotted is the most updates a call may have on the engines whose
// procedure takes one parameter per field of each update (no arrays):
// Firebird caps a statement's parameters at 64 KiB.
const maxSlotted = 48

func (s *sqlStore) createProcedure(ctx context.Context, updates int) error {
	if ddl, ok := procedures[s.d.Name]; ok {
		return s.c.ExecScript(ctx, ddl)
	}
	if _, ok := slotted[s.d.Name]; !ok {
		return backend.Unsupported("nms on "+s.d.Name, "run a call as a stored procedure", "drop --procedure")
	}
	if updates > maxSlotted {
		return knob.Bad(fmt.Sprintf("give --ops-per-call %d or fewer with --procedure on %s", maxSlotted+2, s.d.Name),
			"%s procedures take no arrays: each update of a call is 7 parameters, and %d updates are too many", s.d.Name, updates)
	}
	for _, q := range slottedDDL(s.d.Name, updates) {
		if err := s.c.ExecScript(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqlStore) call(ctx context.Context, c *procCall) error {
	ch := c.ch
	if _, ok := procedures[s.d.Name]; !ok {
		args := make([]any, 0, 8+7*len(c.updates))
		args = append(args, ch.ID, ch.VSAT, ch.CU, ch.FreqHz, ch.BandwidthHz, ch.PowerDBm, ch.Created)
		for _, u := range c.updates {
			vsat := 0
			if u.vsat {
				vsat = 1
			}
			args = append(args, u.id, vsat, u.u.Status, u.u.Oper, u.u.PowerDBm, u.u.LastChange, u.u.Note)
		}
		args = append(args, c.del)
		_, err := s.c.Exec(ctx, slottedCall(s.d.Name, len(c.updates)), args...)
		return err
	}
	n := len(c.updates)
	ids, isVSAT := make([]int64, n), make([]bool, n)
	status, oper, pw := make([]int64, n), make([]int64, n), make([]int64, n)
	change, notes := make([]int64, n), make([]string, n)
	for i, u := range c.updates {
		ids[i], isVSAT[i] = u.id, u.vsat
		status[i], oper[i], pw[i], change[i], notes[i] = u.u.Status, u.u.Oper, u.u.PowerDBm, u.u.LastChange, u.u.Note
	}
	var void any
	return s.c.QueryRow(ctx, callProc, []any{ch.ID, ch.VSAT, ch.CU, ch.FreqHz, ch.BandwidthHz, ch.PowerDBm, ch.Created,
		ids, isVSAT, status, oper, pw, change, notes, c.del}, &void)
}

// slotted holds, for the engines whose procedures take no arrays (MariaDB,
// Firebird), how a procedure is made and called; the procedure takes the
// channel, then id, is-VSAT, status, oper, power, change and note of each
// update (as many as the call has: it is made for --ops-per-call), then the
// channel to delete.
var slotted = map[string]struct {
	create, call, missing, elseIf string
	isVSAT, note                  string
	prefix                        string // before a parameter's name in the body
}{
	"mysql": {create: "CREATE OR REPLACE PROCEDURE nms_call(", call: "CALL nms_call(",
		missing: "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'nms: a row the call changes is missing'",
		isVSAT:  "TINYINT", note: "VARCHAR(200)"},
	"firebird": {create: "CREATE OR ALTER PROCEDURE nms_call(", call: "EXECUTE PROCEDURE nms_call(",
		missing: "EXCEPTION nms_missing", isVSAT: "SMALLINT", note: "VARCHAR(200)", prefix: ":"},
}

// slottedDDL returns the statements making the procedure for a call of n
// updates, one IF per update (ROW_COUNT checks each, as the client does).
func slottedDDL(engine string, n int) []string {
	e := slotted[engine]
	var b strings.Builder
	b.WriteString(e.create)
	b.WriteString("p_id BIGINT, p_vsat BIGINT, p_cu BIGINT, p_freq BIGINT, p_bw BIGINT, p_power INTEGER, p_created BIGINT")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ", u%d_id BIGINT, u%[1]d_vsat %[2]s, u%[1]d_status INTEGER, u%[1]d_oper INTEGER, u%[1]d_pw INTEGER, u%[1]d_change BIGINT, u%[1]d_note %[3]s",
			i, e.isVSAT, e.note)
	}
	b.WriteString(", p_del BIGINT)")
	v := func(name string) string { return e.prefix + name }
	check := func() string {
		if engine == "firebird" {
			return "IF (ROW_COUNT <> 1) THEN " + e.missing + ";\n"
		}
		return "IF ROW_COUNT() <> 1 THEN " + e.missing + "; END IF;\n"
	}
	if engine == "firebird" {
		b.WriteString("\nAS\nBEGIN\n")
	} else {
		b.WriteString("\nBEGIN\n")
	}
	fmt.Fprintf(&b, "INSERT INTO freq_channel (id, vsat_id, cu_id, frequency_hz, bandwidth_hz, power_dbm, state, created_us) VALUES (%s, %s, %s, %s, %s, %s, 1, %s);\n",
		v("p_id"), v("p_vsat"), v("p_cu"), v("p_freq"), v("p_bw"), v("p_power"), v("p_created"))
	for i := 1; i <= n; i++ {
		u := func(f string) string { return v(fmt.Sprintf("u%d_%s", i, f)) }
		set := fmt.Sprintf("SET status = %s, oper_state = %s, power_dbm = %s, updates = updates + 1, last_change_us = %s, note = %s WHERE id = %s",
			u("status"), u("oper"), u("pw"), u("change"), u("note"), u("id"))
		if engine == "firebird" {
			fmt.Fprintf(&b, "IF (%s = 1) THEN UPDATE vsat %s; ELSE UPDATE cu %s;\n", u("vsat"), set, set)
		} else {
			fmt.Fprintf(&b, "IF %s = 1 THEN UPDATE vsat %s; ELSE UPDATE cu %s; END IF;\n", u("vsat"), set, set)
		}
		b.WriteString(check())
	}
	fmt.Fprintf(&b, "DELETE FROM freq_channel WHERE id = %s;\n", v("p_del"))
	b.WriteString(check())
	b.WriteString("END")
	if engine == "firebird" {
		return []string{"CREATE OR ALTER EXCEPTION nms_missing 'nms: a row the call changes is missing'", b.String()}
	}
	return []string{b.String()}
}

// slottedCalls caches the call statement per engine and update count: a
// Stmt is prepared once per connection, by identity.
var slottedCalls sync.Map

func slottedCall(engine string, n int) *backend.Stmt {
	key := fmt.Sprintf("%s/%d", engine, n)
	if st, ok := slottedCalls.Load(key); ok {
		return st.(*backend.Stmt)
	}
	q := slotted[engine].call + strings.TrimSuffix(strings.Repeat("?, ", 8+7*n), ", ") + ")"
	st, _ := slottedCalls.LoadOrStore(key, &backend.Stmt{SQL: q})
	return st.(*backend.Stmt)
}
