package bdb

import (
	"context"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestConformance(t *testing.T) {
	for _, s := range []backend.Spec{Hash, Btree} {
		t.Run(s.Name, func(t *testing.T) { backendtest.Run(t, s, nil) })
	}
}

func TestClassify(t *testing.T) {
	backendtest.Classify(t, classify, backendtest.HoldKind|backendtest.HoldCode, []backendtest.ClassCase{
		{Err: &Error{Code: codeDeadlock, Op: "put"}, Class: dberr.Retryable, Kind: dberr.Deadlock, Code: "DB_LOCK_DEADLOCK"},
		{Err: &Error{Code: codeNotGranted, Op: "get"}, Class: dberr.Retryable, Kind: dberr.Lock, Code: "DB_LOCK_NOTGRANTED"},
		{Err: &Error{Code: codeRecovery, Op: "commit"}, Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "DB_RUNRECOVERY"},
		{Err: &Error{Code: int(syscall.ENOSPC), Op: "commit"}, Class: dberr.Unavailable, Kind: dberr.IO, Code: syscall.ENOSPC.Error()},
		{Err: backend.TableError("t"), Class: dberr.Fatal, Kind: dberr.Other, Code: "no such table"},
	})
}

// TestConcurrentWriters: clients writing the same records at once in a
// hash table meet deadlocks, which the lock detector breaks as retryable
// failures; retried, every client's writes land.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	db := backendtest.Open(t, Hash, backend.Options{Conns: 8, Durability: backend.Off})
	c0, err := db.(backend.KVDB).KVConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c0.Close()
	if err := c0.CreateTable(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, _ := db.(backend.KVDB).KVConn(ctx)
			defer c.Close()
			for j := 0; j < 100; {
				err := c.Begin(ctx, true)
				for k := 0; err == nil && k < 5; k++ {
					err = c.Put(ctx, "w", []byte(strconv.Itoa((j+k)%20)), []byte(strconv.Itoa(i)))
				}
				if err == nil {
					err = c.Put(ctx, "w", []byte("c"+strconv.Itoa(i)+"-"+strconv.Itoa(j)), []byte("x"))
				}
				if err == nil {
					err = c.Commit(ctx)
				}
				if err != nil {
					_ = c.Rollback(ctx)
					if dberr.ClassOf(err) != dberr.Retryable {
						errs <- err
						return
					}
					continue
				}
				j++
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	n := 0
	if err := c0.Begin(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := c0.Scan(ctx, "w", func(k, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	_ = c0.Rollback(ctx)
	if n != 20+8*100 {
		t.Errorf("%d records, want %d", n, 20+8*100)
	}
}
