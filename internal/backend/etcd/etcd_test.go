package etcd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// needServer skips t (fails it in CI) where no etcd is installed.
func needServer(t *testing.T) {
	t.Helper()
	_, err := FindServer()
	testenv.Need(t, err) // .ci/run installs etcd-server: in CI this never skips
}

func TestConformance(t *testing.T) {
	needServer(t)
	backendtest.Run(t, Spec, nil)
}

func TestClassify(t *testing.T) {
	backendtest.Classify(t, classify, backendtest.HoldKind|backendtest.HoldCode, []backendtest.ClassCase{
		{Err: rpctypes.ErrNoLeader, Class: dberr.Unavailable, Kind: dberr.Connection, Code: "Unavailable"},
		{Err: rpctypes.ErrGRPCLeaderChanged, Class: dberr.Unavailable, Kind: dberr.Connection, Code: "Unavailable"},
		{Err: fmt.Errorf("txn: %w", rpctypes.ErrTimeout), Class: dberr.Unavailable, Kind: dberr.Connection, Code: "Unavailable"},
		{Err: rpctypes.ErrNoSpace, Class: dberr.Unavailable, Kind: dberr.IO, Code: "ResourceExhausted"},
		{Err: rpctypes.ErrCompacted, Class: dberr.Retryable, Kind: dberr.Serialization, Code: "OutOfRange"},
		{Err: rpctypes.ErrCorrupt, Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "DataLoss"},
		{Err: rpctypes.ErrTooManyOps, Class: dberr.Fatal, Kind: dberr.Other, Code: "InvalidArgument"},
		{Err: errConflict, Class: dberr.Retryable, Kind: dberr.Serialization, Code: "txn compare failed"},
		{Err: context.Canceled, Class: dberr.Canceled, Kind: dberr.Interrupted},
		{Err: io.EOF, Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: backend.TableError("t"), Class: dberr.Fatal, Kind: dberr.Other, Code: "no such table"},
	})
}

func TestLogRules(t *testing.T) {
	text := `{"level":"info","msg":"raft.node: 2e12 elected leader 2e12 at term 2"}
{"level":"warn","msg":"simple token is not cryptographically signed"}
{"level":"warn","msg":"apply request took too long","took":"120ms"}
{"level":"info","msg":"raft.node: 2e12 lost leader 2e12 at term 3"}
{"level":"info","msg":"raft.node: 7f01 elected leader 7f01 at term 4"}
{"level":"fatal","msg":"failed to recover v3 backend from snapshot"}
{"level":"info","msg":"starting an etcd server","initial-corrupt-check":false}
{"level":"warn","msg":"established TCP streaming connection with remote peer","stream-writer-type":"stream Message"}
{"level":"error","msg":"checking initial corrupt: found data inconsistency with peers"}
`
	backendtest.LogKinds(t, LogRules, text, map[string]int{"slow": 1, "election": 2, "crash": 1, "corruption": 1})
}

func TestReplayNote(t *testing.T) {
	log := `{"level":"info","msg":"newRaft 2e12 [peers: [], term: 2, commit: 812, applied: 0, lastindex: 812, lastterm: 2]"}`
	if got := replayNote(log); !strings.Contains(got, "Raft log to index 812, committed 812, applied 0") {
		t.Errorf("replayNote = %q", got)
	}
}

// TestConflict: two write transactions read the same key and write it;
// the second to commit finds it changed since the revision it read, writes
// nothing, and fails as a conflict to retry. A read transaction reads one
// snapshot: a commit made after its first read is not seen by it.
func TestConflict(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db := backendtest.Open(t, Spec, backend.Options{Conns: 2})
	a, b := backendtest.KVConn(t, db), backendtest.KVConn(t, db)
	if err := backendtest.WriteWrite(t, a, b, "w"); !errors.Is(err, errConflict) || dberr.ClassOf(err) != dberr.Retryable {
		t.Fatalf("the second commit of a key changed since its read: %v, want a conflict to retry", err)
	}
	if err := b.Begin(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Get(ctx, "w", []byte("k")); err != nil {
		t.Fatal(err)
	}
	backendtest.Put(t, a, "w", "k", "2")
	v, _, err := b.Get(ctx, "w", []byte("k"))
	if err != nil || string(v) != "1" {
		t.Errorf("a read transaction saw %q (%v) after another commit, want its snapshot's 1", v, err)
	}
	_ = b.Rollback(ctx)
}

// TestCrashRestart: the member killed with SIGKILL comes back with every
// write it acknowledged and says what it replayed.
func TestCrashRestart(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db := backendtest.Open(t, Spec, backend.Options{Conns: 1})
	c := backendtest.KVConn(t, db)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	for i := range 100 {
		backendtest.Put(t, c, "t", strconv.Itoa(i), "v")
	}
	m := db.(managedDB)
	if err := m.CrashRestart(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.Recovery(), "etcd restarted the member") {
		t.Errorf("recovery note %q", m.Recovery())
	}
	n := 0
	if err := c.Begin(ctx, false); err != nil {
		t.Fatal(err)
	}
	for try := 0; ; try++ {
		err := c.Scan(ctx, "t", func(_, _ []byte) error { n++; return nil })
		if dberr.ClassOf(err) == dberr.Unavailable && try < 50 { // the client's connection to the killed member
			n = 0
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if n != 100 {
		t.Errorf("%d records after the crash restart, want 100", n)
	}
}

// TestThreeMembers: --members 3 starts three members that agree on one
// leader, lists them, and keeps a write through a member's kill.
func TestThreeMembers(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db := backendtest.Open(t, Spec, backend.Options{Conns: 1, Own: own{members: 3}}).(managedDB)
	e, err := db.Engine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if e.Settings["members"] != "3" {
		t.Fatalf("the cluster lists %s members, want 3", e.Settings["members"])
	}
	leaders := 0
	for _, m := range db.cluster.Members {
		st, err := db.client.Status(ctx, m.ClientURL())
		if err != nil {
			t.Fatal(err)
		}
		if st.Leader == st.Header.MemberId {
			leaders++
		}
	}
	if leaders != 1 {
		t.Errorf("%d members say they lead, want 1", leaders)
	}
	c := backendtest.KVConn(t, db)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	backendtest.Put(t, c, "t", "k", "v")
	// The leader killed: the member that led is the one restarted, the
	// cluster has one leader again, and keeps the write and takes more.
	leader, err := db.member(ctx, "leader")
	if err != nil {
		t.Fatal(err)
	}
	pid := leader.Pid()
	if err := db.OnNode("leader").CrashRestart(ctx); err != nil {
		t.Fatal(err)
	}
	if leader.Pid() == pid || !strings.HasPrefix(db.Recovery(), leader.Name+", the leader, killed and restarted") {
		t.Errorf("the leader %s (pid %d, now %d) was not the member restarted: %q", leader.Name, pid, leader.Pid(), db.Recovery())
	}
	if _, err := db.member(ctx, "leader"); err != nil {
		t.Fatal(err)
	}
	for try := 0; ; try++ {
		err := c.Begin(ctx, true)
		if err == nil {
			err = c.Put(ctx, "t", []byte("after"), []byte("v"))
		}
		if err == nil {
			err = c.Commit(ctx)
		}
		if dberr.ClassOf(err) == dberr.Unavailable && try < 50 {
			_ = c.Rollback(ctx)
			continue // the client's connection to the killed member
		}
		if err != nil {
			t.Fatal(err)
		}
		break
	}
}

// TestDroppedTable: a write transaction over two tables, one of which
// another connection drops before the commit, writes nothing and names the
// dropped table (the Txn's Else answers in the order its tables were asked).
func TestDroppedTable(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db := backendtest.Open(t, Spec, backend.Options{Conns: 2})
	a, b := backendtest.KVConn(t, db), backendtest.KVConn(t, db)
	for i := range 10 {
		for _, name := range []string{"a", "b"} {
			if err := a.CreateTable(ctx, name); err != nil {
				t.Fatal(err)
			}
		}
		for _, err := range []error{a.Begin(ctx, true), a.Put(ctx, "a", []byte("k"), []byte("v")), a.Put(ctx, "b", []byte("k"), []byte("v"))} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := b.DropTable(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		err := a.Commit(ctx)
		if !errors.Is(err, backend.ErrNoSuchTable) || !strings.Contains(err.Error(), `"b"`) {
			t.Fatalf("round %d: a commit into a table dropped meanwhile: %v, want no such table \"b\"", i, err)
		}
	}
}

// TestSerializableReads: --etcd-reads serializable on three members still
// reads what a commit wrote once every member has applied it, and says so.
func TestSerializableReads(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db := backendtest.Open(t, Spec, backend.Options{Conns: 1, Own: own{members: 3, serializable: true}})
	e, err := db.Engine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if e.Settings["reads"] != "serializable" {
		t.Errorf("reads %q, want serializable", e.Settings["reads"])
	}
	c := backendtest.KVConn(t, db)
	backendtest.Must(t, c.CreateTable(ctx, "s"))
	// The write checks its table with a serializable read too: the member
	// it asks may not have applied the table's creation yet.
	for try := 0; ; try++ {
		backendtest.Must(t, c.Begin(ctx, true))
		err := c.Put(ctx, "s", []byte("k"), []byte("v"))
		if err == nil {
			err = c.Commit(ctx)
		} else {
			_ = c.Rollback(ctx)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, backend.ErrNoSuchTable) || try == 100 {
			t.Fatalf("the write after the table's creation: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for try := 0; ; try++ {
		if err := c.Begin(ctx, false); err != nil {
			t.Fatal(err)
		}
		v, ok, err := c.Get(ctx, "s", []byte("k"))
		_ = c.Rollback(ctx)
		if (err == nil && ok && string(v) == "v") || try == 100 {
			if err != nil || !ok {
				t.Fatalf("a serializable read never saw the commit: %q %v %v", v, ok, err)
			}
			break
		}
		time.Sleep(20 * time.Millisecond) // a follower applies the entry a moment after the leader acknowledged it
	}
}
