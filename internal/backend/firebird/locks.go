package firebird

import (
	"context"
	"fmt"

	"github.com/dbgauge/dbgauge/internal/backend"
)

var (
	currentConnection = &backend.Stmt{SQL: "SELECT CURRENT_CONNECTION FROM RDB$DATABASE"}
	// recordWaits is an attachment's count of record waits (MON$RECORD_WAITS,
	// Firebird 3 on): a statement that meets a row an unfinished transaction
	// changed counts one, then waits for that transaction's end (vio.cpp,
	// wait()). The attachment's counter moves as the wait begins.
	recordWaits = &backend.Stmt{SQL: "SELECT r.MON$RECORD_WAITS FROM MON$ATTACHMENTS a JOIN MON$RECORD_STATS r ON r.MON$STAT_ID = a.MON$STAT_ID WHERE a.MON$ATTACHMENT_ID = ?"}
	// statementWaits adds the attachment's statements running now (MON$STATE
	// 1: active) and the transactions open in SNAPSHOT TABLE STABILITY
	// (MON$ISOLATION_MODE 0), whose table locks MON$ does not show.
	statementWaits = &backend.Stmt{SQL: "SELECT r.MON$RECORD_WAITS, " +
		"(SELECT count(*) FROM MON$STATEMENTS s WHERE s.MON$ATTACHMENT_ID = a.MON$ATTACHMENT_ID AND s.MON$STATE = 1), " +
		"(SELECT count(*) FROM MON$TRANSACTIONS t WHERE t.MON$ISOLATION_MODE = 0), " +
		// the statements running in the users' other attachments (not this
		// monitoring one): none, and a table lock pending is this one's
		"(SELECT count(*) FROM MON$STATEMENTS s JOIN MON$ATTACHMENTS o ON o.MON$ATTACHMENT_ID = s.MON$ATTACHMENT_ID " +
		"WHERE s.MON$STATE = 1 AND o.MON$SYSTEM_FLAG = 0 AND o.MON$ATTACHMENT_ID NOT IN (a.MON$ATTACHMENT_ID, CURRENT_CONNECTION)) " +
		"FROM MON$ATTACHMENTS a JOIN MON$RECORD_STATS r ON r.MON$STAT_ID = a.MON$STAT_ID WHERE a.MON$ATTACHMENT_ID = ?"}
	relationName = &backend.Stmt{SQL: "SELECT TRIM(RDB$RELATION_NAME) FROM RDB$RELATIONS WHERE RDB$RELATION_ID = ?"}
)

// LockView returns a view of the next statement of c (an attachment) in
// Firebird 3's monitoring tables, read on dbgauge's own connection, each
// look in a transaction of its own (a fresh MON$ snapshot):
//
//	SELECT r.MON$RECORD_WAITS, (c's statements with MON$STATE = 1),
//	       (transactions with MON$ISOLATION_MODE = 0)
//	  FROM MON$ATTACHMENTS a JOIN MON$RECORD_STATS r ON r.MON$STAT_ID = a.MON$STAT_ID
//	 WHERE a.MON$ATTACHMENT_ID = ?
//
// Firebird 3 shows no lock wait as such: the statement waits for a row
// when c has a statement running and c's record waits have grown since
// LockView read them (the count moves as the wait begins). A table lock
// of SNAPSHOT TABLE STABILITY (isc_tpb_consistency), taken by a statement
// as it first reads or writes a table, is counted nowhere in MON$. On a
// managed server, the lock table shows it (fb_lock_print, locktable.go):
// when as many requests wait for user tables' locks as the users'
// statements run, c's among them, c's waits. Elsewhere, while a transaction in that
// mode is open, Unseen names it.
func (d *db) LockView(ctx context.Context, bc backend.Conn) (backend.LockView, error) {
	c, ok := bc.(*conn)
	if !ok {
		return nil, fmt.Errorf("firebird: no lock view of a %T", bc)
	}
	if c.attachment == 0 {
		if err := c.QueryRow(ctx, currentConnection, nil, &c.attachment); err != nil {
			return nil, err
		}
	}
	id := c.attachment
	var before int64
	if err := d.own(ctx, func(a *conn) error { return a.QueryRow(ctx, recordWaits, []any{id}, &before) }); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (backend.LockWait, error) {
		var waits, running, stable, others int64
		if err := d.own(ctx, func(a *conn) error {
			return a.QueryRow(ctx, statementWaits, []any{id}, &waits, &running, &stable, &others)
		}); err != nil {
			return backend.LockWait{}, err
		}
		switch {
		case running > 0 && waits > before:
			return backend.LockWait{Waiting: true, Seen: fmt.Sprintf("MON$RECORD_STATS: attachment %d's running statement waited for a row another transaction changed (MON$RECORD_WAITS %d, %d before it)", id, waits, before)}, nil
		case running == 0:
			return backend.LockWait{Seen: fmt.Sprintf("MON$STATEMENTS: attachment %d runs no statement", id)}, nil
		}
		w := backend.LockWait{Seen: fmt.Sprintf("MON$RECORD_STATS: attachment %d's running statement waited for no row (MON$RECORD_WAITS %d)", id, waits)}
		if stable == 0 {
			return w, nil
		}
		if d.srv == nil {
			w.Unseen = fmt.Sprintf("the table locks of SNAPSHOT TABLE STABILITY (%d such transactions open), which Firebird 3's MON$ tables do not count, and a server of the user's lock table is not dbgauge's to read", stable)
			return w, nil
		}
		tables, pending, err := d.srv.pendingTableLocks(ctx)
		switch {
		case err != nil:
			return backend.LockWait{}, fmt.Errorf("firebird: the lock table: %w", err)
		case pending == 0 || int64(pending) < 1+others:
			w.Seen += fmt.Sprintf("; the lock table (fb_lock_print): %d requests wait for user tables' locks, %d statements run", pending, 1+others)
			return w, nil
		}
		var name string
		if err := d.own(ctx, func(a *conn) error { return a.QueryRow(ctx, relationName, []any{tables[0]}, &name) }); err != nil {
			return backend.LockWait{}, err
		}
		return backend.LockWait{Waiting: true, Seen: fmt.Sprintf("the lock table (fb_lock_print): %d requests wait for user tables' locks (table %s, relation %d, among them) while %d users' statements run, attachment %d's among them", pending, name, tables[0], 1+others, id)}, nil
	}, nil
}
