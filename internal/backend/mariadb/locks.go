package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// lockWait reads InnoDB's transaction of a connection (its thread id):
// its state, the lock it waits for and the threads holding it
// (information_schema.INNODB_TRX, INNODB_LOCKS and INNODB_LOCK_WAITS,
// filled from one snapshot InnoDB refreshes at most every 0.1 s; reading
// them needs the PROCESS privilege).
const lockWait = `SELECT t.trx_state, coalesce(l.lock_mode, ''), coalesce(l.lock_type, ''), coalesce(l.lock_table, ''),
	coalesce((SELECT GROUP_CONCAT(b.trx_mysql_thread_id ORDER BY b.trx_mysql_thread_id SEPARATOR ', ')
		FROM information_schema.INNODB_LOCK_WAITS w JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id
		WHERE w.requesting_trx_id = t.trx_id), '')
	FROM information_schema.INNODB_TRX t LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = t.trx_requested_lock_id
	WHERE t.trx_mysql_thread_id = ?`

// lockWaitState is INNODB_TRX.trx_state of a transaction waiting for a lock.
const lockWaitState = "LOCK WAIT"

// cacheIdle spaces the reads of InnoDB's lock views: InnoDB refreshes the
// snapshot they are read from only when it has not been read for 0.1 s
// (trx0i_s.cc, CACHE_MIN_IDLE_TIME_US), so reads closer together would see
// the same old snapshot for ever.
const cacheIdle = 150 * time.Millisecond

// looks spaces a DB's reads of InnoDB's lock views by cacheIdle.
type looks struct {
	mu   sync.Mutex
	last time.Time // the end of the last read
}

// read runs fn at least cacheIdle after the last read ended.
func (l *looks) read(ctx context.Context, fn func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if wait := time.Until(l.last.Add(cacheIdle)); wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { l.last = time.Now() }()
	return fn()
}

// LockView returns a view of c's transaction in InnoDB's lock waits; c's
// thread id was read when it opened (CONNECTION_ID()), and the view asks
// through the pool:
//
//	SELECT t.trx_state, l.lock_mode, l.lock_type, l.lock_table, (the blockers' thread ids)
//	  FROM information_schema.INNODB_TRX t
//	  LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = t.trx_requested_lock_id
//	 WHERE t.trx_mysql_thread_id = ?
//
// Reads are spaced by 150 ms, for InnoDB to refresh what they read (see
// cacheIdle); another client reading those tables more often than every
// 0.1 s keeps them stale. It shows InnoDB's row and table locks, every lock a statement can wait
// for while no DDL runs beside it: the server's metadata locks (a
// statement waiting for an ALTER, or DDL for a transaction) are not
// InnoDB's and are not shown (`dbgauge isolation` runs no DDL beside its
// cases).
func (d *db) LockView(_ context.Context, bc backend.Conn) (backend.LockView, error) {
	c, ok := bc.(*conn)
	if !ok {
		return nil, fmt.Errorf("mariadb: no lock view of a %T", bc)
	}
	return func(ctx context.Context) (backend.LockWait, error) {
		var state, mode, kind, table, by string
		err := d.looks.read(ctx, func() error {
			return c.pool.QueryRowContext(ctx, lockWait, c.id).Scan(&state, &mode, &kind, &table, &by)
		})
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return backend.LockWait{Seen: fmt.Sprintf("INNODB_TRX: thread %d has no InnoDB transaction", c.id)}, nil
		case err != nil:
			return backend.LockWait{}, classify(err)
		case state != lockWaitState:
			return backend.LockWait{Seen: fmt.Sprintf("INNODB_TRX: thread %d's transaction is %s", c.id, state)}, nil
		}
		w := fmt.Sprintf("INNODB_TRX: thread %d's transaction is in LOCK WAIT", c.id)
		if mode != "" {
			w += fmt.Sprintf(" for a %s %s lock on %s", mode, kind, table)
		}
		if by != "" {
			w += ", held by thread " + by
		}
		return backend.LockWait{Waiting: true, Seen: w}, nil
	}, nil
}
