package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// lockWaits lists the locks a backend has asked for and not been granted,
// with the backends that hold them (PostgreSQL documentation, "pg_locks").
const lockWaits = `SELECT locktype, mode, coalesce(relation::regclass::text, ''), array_to_string(pg_blocking_pids(pid), ', ')
	FROM pg_locks WHERE pid = $1 AND NOT granted`

// LockView returns a view of c's backend in pg_locks. The backend's pid
// comes with the connection's start-up (no round trip); the view opens a
// connection of its own for each look and asks:
//
//	SELECT locktype, mode, coalesce(relation::regclass::text, ''),
//	       array_to_string(pg_blocking_pids(pid), ', ')
//	  FROM pg_locks WHERE pid = $1 AND NOT granted
//
// Every heavyweight lock a statement can wait for (a row, through the id
// of the transaction that changed it; a table; an advisory lock) has a row
// there while it waits, so Unseen is "".
func (d *db) LockView(_ context.Context, bc backend.Conn) (backend.LockView, error) {
	c, ok := bc.(*conn)
	if !ok {
		return nil, fmt.Errorf("postgres: no lock view of a %T", bc)
	}
	if len(d.readers) > 0 {
		return nil, errors.New("postgres: connections go to replicas (--read-from), whose waits are not in the primary's pg_locks")
	}
	pid := c.pc.PID()
	return func(ctx context.Context) (backend.LockWait, error) {
		pc, err := d.connect(ctx)
		if err != nil {
			return backend.LockWait{}, classify(err)
		}
		defer pc.Close(context.WithoutCancel(ctx))
		d.self.Add(1)
		rows, err := pc.Query(ctx, lockWaits, pid)
		if err != nil {
			return backend.LockWait{}, classify(err)
		}
		defer rows.Close()
		var waits []string
		for rows.Next() {
			var kind, mode, rel, by string
			if err := rows.Scan(&kind, &mode, &rel, &by); err != nil {
				return backend.LockWait{}, classify(err)
			}
			w := kind + " " + mode
			if rel != "" {
				w += " on " + rel
			}
			if by != "" {
				w += ", held by pid " + by
			}
			waits = append(waits, w)
		}
		if err := rows.Err(); err != nil {
			return backend.LockWait{}, classify(err)
		}
		if len(waits) == 0 {
			return backend.LockWait{Seen: fmt.Sprintf("pg_locks: pid %d waits for no lock", pid)}, nil
		}
		return backend.LockWait{Waiting: true, Seen: fmt.Sprintf("pg_locks: pid %d waits for %s", pid, strings.Join(waits, "; "))}, nil
	}, nil
}
