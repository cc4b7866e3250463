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
		"(SELECT count(*) FROM MON$TRANSACTIONS t WHERE t.MON$ISOLATION_MODE = 0) " +
		"FROM MON$ATTACHMENTS a JOIN MON$RECORD_STATS r ON r.MON$STAT_ID = a.MON$STAT_ID WHERE a.MON$ATTACHMENT_ID = ?"}
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
// as it first reads or writes a table, is counted nowhere in MON$: while
// a transaction in that mode is open, Unseen names it.
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
		var waits, running, stable int64
		if err := d.own(ctx, func(a *conn) error {
			return a.QueryRow(ctx, statementWaits, []any{id}, &waits, &running, &stable)
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
		if stable > 0 {
			w.Unseen = fmt.Sprintf("the table locks of SNAPSHOT TABLE STABILITY (%d such transactions open), which Firebird 3's MON$ tables do not count", stable)
		}
		return w, nil
	}, nil
}
