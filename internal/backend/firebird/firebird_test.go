package firebird

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// needServer skips t (fails it in CI) where no Firebird server is installed.
func needServer(t *testing.T) {
	t.Helper()
	_, _, _, _, err := FindServer()
	testenv.Need(t, err) // .ci/run installs firebird3.0-server: in CI this never skips
}

// openManaged opens a managed server (--db managed, two connections) with
// set; the test's cleanup stops it.
func openManaged(t *testing.T, set ...backend.KeyValue) managedDB {
	t.Helper()
	needServer(t)
	return backendtest.Open(t, Spec, backend.Options{DB: managed, Set: set, Conns: 2}).(managedDB)
}

// TestNoTransactionLeak: the driver forgets a transaction once it ends
// (third_party/firebirdsql/DBGAUGE.md): after thousands of transactions on
// one connection, the live heap holds about as many objects as before. The
// driver as released keeps each one in its connection's set, an object per
// transaction, and fails this.
func TestNoTransactionLeak(t *testing.T) {
	ctx := context.Background()
	c := backendtest.Conn(t, ctx, openManaged(t)).(*conn)
	const txs = 3000
	objects := func() int64 {
		runtime.GC()
		s := []metrics.Sample{{Name: "/gc/heap/objects:objects"}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64())
	}
	before := objects()
	for range txs {
		backendtest.Must(t, c.Begin(ctx))
		backendtest.Must(t, c.Commit(ctx))
	}
	if grown := objects() - before; grown > txs/2 {
		t.Errorf("the live heap grew by %d objects over %d transactions: the driver keeps the ended ones", grown, txs)
	}
}

func TestShutdown(t *testing.T) {
	db := openManaged(t)
	ctx := context.Background()
	bc := backendtest.Conn(t, ctx, db, "CREATE TABLE IF NOT EXISTS t1 (id BIGINT PRIMARY KEY)")
	if _, err := bc.Exec(ctx, &backend.Stmt{SQL: "INSERT INTO t1 (id) VALUES (?)"}, 1); err != nil {
		t.Fatal(err)
	}
	bc.Close()
	db.Close()
	if s := db.ServerInfo().ShutdownSeconds; s > 3 {
		t.Errorf("shutdown took %.1f s", s)
	}
	t.Logf("shutdown %.2f s, killed %v", db.ServerInfo().ShutdownSeconds, db.srv.Killed)
}

// TestStatsSuperClassic: in SuperClassic the database's own MON$ row counts
// only the reading attachment; the counters must still see the clients'.
func TestStatsSuperClassic(t *testing.T) {
	db := openManaged(t, backend.KeyValue{Key: "ServerMode", Value: "SuperClassic"})
	ctx := context.Background()
	c := backendtest.Conn(t, ctx, db, "CREATE TABLE IF NOT EXISTS t1 (id BIGINT PRIMARY KEY)")
	before, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := c.Exec(ctx, &backend.Stmt{SQL: "INSERT INTO t1 (id) VALUES (?)"}, i); err != nil {
			t.Fatal(err)
		}
	}
	after, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := after["inserts"] - before["inserts"]; d != 10 {
		t.Errorf("inserts counted %d for 10", d)
	}
	if d := after["commits"] - before["commits"]; d != 10 {
		t.Errorf("commits counted %d for 10", d)
	}
	if after["flushes"] <= before["flushes"] {
		t.Errorf("forced writes on, yet no page write counted: %d → %d", before["flushes"], after["flushes"])
	}
}

// TestRecordVersions: after the clients have gone, Stats reads the back
// versions an open snapshot kept alive, per table.
func TestRecordVersions(t *testing.T) {
	db := openManaged(t)
	ctx := context.Background()
	c := backendtest.Conn(t, ctx, db, "CREATE TABLE IF NOT EXISTS t1 (id BIGINT PRIMARY KEY, v INTEGER)")
	for i := range 20 {
		if _, err := c.Exec(ctx, &backend.Stmt{SQL: "INSERT INTO t1 (id, v) VALUES (?, 0)"}, i); err != nil {
			t.Fatal(err)
		}
	}
	// A transaction reading the table keeps the old versions of the rows
	// updated next from garbage collection.
	reader, err := db.sql.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Rollback()
	if err := reader.QueryRow("SELECT count(*) FROM t1").Scan(new(int64)); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := c.Exec(ctx, &backend.Stmt{SQL: "UPDATE t1 SET v = v + 1 WHERE id = ?"}, i); err != nil {
			t.Fatal(err)
		}
	}
	if m, _ := db.Stats(ctx); m["record_versions"] != 0 || m["records"] != 0 {
		t.Errorf("a client is connected, yet the data pages were read: %v", m)
	}
	c.Close()
	m, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m["records"] != 20 || m["versions.t1"] != 10 || m["max_versions"] != 1 {
		t.Errorf("records %d, versions of t1 %d, max %d; want 20, 10, 1", m["records"], m["versions.t1"], m["max_versions"])
	}
}

// TestBadLogin: a wrong password is bad input, in one line, and the password
// given appears nowhere in it.
func TestBadLogin(t *testing.T) {
	db := openManaged(t)
	dsn := "firebird://SYSDBA:notThePassword42@127.0.0.1:" + strconv.Itoa(db.srv.Port) + "/" + db.srv.Database
	_, err := Spec.Open(context.Background(), backend.Options{DB: dsn, Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once})
	var bad *knob.Error
	if !errors.As(err, &bad) || strings.Contains(err.Error(), "notThePassword42") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a wrong password gave %v", err)
	}
	t.Log(err)
}
