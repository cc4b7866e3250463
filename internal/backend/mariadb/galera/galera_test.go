package galera

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// needCluster skips t (fails it in CI) where MariaDB, Galera or rsync is
// missing.
func needCluster(t *testing.T) {
	t.Helper()
	testenv.Need(t, Find())
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		n     uint16
		class dberr.Class
		kind  dberr.Kind
	}{
		{1047, dberr.Unavailable, NotPrimary},
		{1180, dberr.Unavailable, Replication},
	} {
		err := galeraCode(&mysql.MySQLError{Number: c.n, Message: "x"})
		class, kind, code := dberr.Describe(err)
		if class != c.class || kind != c.kind || code != strings.TrimSpace(code) || err == nil {
			t.Errorf("%d: %v %v %q, want %v %v", c.n, class, kind, code, c.class, c.kind)
		}
	}
	// A certification failure is 1213, as an InnoDB deadlock: MariaDB's.
	if err := galeraCode(&mysql.MySQLError{Number: 1213, SQLState: [5]byte{'4', '0', '0', '0', '1'}}); err != nil {
		t.Errorf("1213 classified by Galera as %v, want it left to MariaDB's deadlock", err)
	}
}

func TestTransferOf(t *testing.T) {
	sst := "WSREP: Running: 'wsrep_sst_rsync --role 'joiner' …\nWSREP_SST: [INFO] rsync SST completed on joiner (20261129)\nWSREP: SST received\nWSREP: Receiving IST: 5 writesets, seqnos 2-6\nWSREP: IST received: u:6"
	ist := "WSREP_SST: [INFO] rsync IST completed on joiner (20261129)\nWSREP: SST received\nWSREP: Receiving IST: 5215 writesets, seqnos 8274-13488"
	for log, want := range map[string]string{sst: "SST (rsync)", ist: "IST (5215 write sets)", "nothing": "nothing to transfer"} {
		if got := transferOf(log, time.Second).Method; got != want {
			t.Errorf("transferOf(%q) = %q, want %q", log, got, want)
		}
	}
}

// TestCluster starts one cluster of three nodes and puts it through what
// a run asks of it, in order: the settings read back, clients spread over
// the nodes, a certification failure, a node partitioned off and healed,
// a node killed and rejoining, and the quorum lost when two of three are
// gone.
func TestCluster(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	db := backendtest.Open(t, Spec, backend.Options{Conns: 3, Own: own{nodes: 3, syncWait: 1}})
	m := db.(managedDB)
	node := func(i int) *sql.DB { return m.Node(i) }
	// spread is the cluster's clients spread over its nodes (--write-to
	// all), classified as Open does.
	var dsns []string
	for _, n := range m.cluster.Nodes {
		dsns = append(dsns, n.DSN(false))
	}
	spread, err := mariadb.OpenNodes(ctx, backend.Options{Conns: 3, Prepare: backend.Once}, mariadb.NodesConfig{DSNs: dsns, Spread: true, Classify: galeraCode})
	if err != nil {
		t.Fatal(err)
	}
	defer spread.Close()
	conns := make([]backend.Conn, 3) // on node1, node2, node3
	for i := range conns {
		conns[i] = backendtest.Conn(t, ctx, spread)
	}
	// refused tries st on c until the node refuses it as not-primary, for
	// up to 30 s (Galera's evs timeouts), and returns the last error.
	refused := func(c backend.Conn, st *backend.Stmt, id int) error {
		var err error
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if _, err = c.Exec(ctx, st, id); err != nil {
				if _, k, _ := dberr.Describe(err); k == NotPrimary {
					return err
				}
			}
		}
		return err
	}

	t.Run("read back", func(t *testing.T) {
		e, err := db.Engine(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range map[string]string{"wsrep_cluster_size": "3", "wsrep_cluster_status": "Primary", "wsrep_local_state_comment": "Synced",
			"wsrep_sync_wait": "1", "wsrep_sst_method": "rsync", "wsrep_on": "ON"} {
			if e.Settings[k] != want {
				t.Errorf("%s = %q, want %q", k, e.Settings[k], want)
			}
		}
		if !strings.HasPrefix(e.Settings["wsrep_provider_version"], "4.") {
			t.Errorf("wsrep_provider_version = %q, want galera-4's", e.Settings["wsrep_provider_version"])
		}
		for _, n := range []string{"node2", "node3"} {
			if s := e.Settings[n]; !strings.HasPrefix(s, "Synced, Primary, 3 nodes; SST (rsync) in ") {
				t.Errorf("%s = %q, want it Synced after a snapshot's transfer", n, s)
			}
		}
	})

	t.Run("spread", func(t *testing.T) {
		var got []string
		for _, c := range conns {
			var name string
			backendtest.Must(t, c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT @@wsrep_node_name"}, nil, &name))
			got = append(got, name)
		}
		if strings.Join(got, ",") != "node1,node2,node3" {
			t.Errorf("the clients' connections went to %v, want node1, node2, node3 in turn", got)
		}
	})

	// Two transactions on two nodes update the same row: the one that
	// commits second loses certification (or is aborted by the first's
	// write set) with 1213, a deadlock to retry, which the nodes count:
	// once, or twice when the first's write set aborts it while its own
	// is being replicated (a brute-force abort, and then its write set
	// fails certification: both counters, one transaction; seen here 1
	// in 8 runs).
	t.Run("certification", func(t *testing.T) {
		backendtest.Must(t, conns[0].ExecScript(ctx, "CREATE TABLE c (id INT PRIMARY KEY, v INT)"))
		backendtest.Must(t, conns[0].ExecScript(ctx, "INSERT INTO c VALUES (1, 0)"))
		before, err := m.Stats(ctx)
		backendtest.Must(t, err)
		update := &backend.Stmt{SQL: "UPDATE c SET v = ? WHERE id = 1"}
		backendtest.Must(t, conns[1].Begin(ctx))
		if _, err := conns[1].Exec(ctx, update, 10); err != nil {
			t.Fatal(err)
		}
		backendtest.Must(t, conns[0].Begin(ctx)) // node1's commit of the same row is certified first
		if _, err := conns[0].Exec(ctx, update, 1); err != nil {
			t.Fatal(err)
		}
		backendtest.Must(t, conns[0].Commit(ctx))
		err = conns[1].Commit(ctx)
		if c, k, code := dberr.Describe(err); c != dberr.Retryable || k != dberr.Deadlock || code != "1213" {
			t.Fatalf("node2's commit after node1's of the same row: %v (%v %v %s), want 1213, a deadlock to retry", err, c, k, code)
		}
		_ = conns[1].Rollback(ctx)
		after, err := m.Stats(ctx)
		backendtest.Must(t, err)
		if n := after["cert_failures"] + after["bf_aborts"] - before["cert_failures"] - before["bf_aborts"]; n != 1 && n != 2 {
			t.Errorf("the nodes counted %d certification failures and brute-force aborts, want 1 (or 2: a brute-force abort during replication, then a certification failure)", n)
		}
	})

	// node3 cut off from the two others (the clients still reach it): a
	// minority, it leaves the Primary component and refuses statements,
	// while node1 and node2 go on; healed, it rejoins.
	t.Run("partition", func(t *testing.T) {
		n := m.Network()
		if n == nil {
			t.Skip("the cluster is on loopback: " + fmt.Sprint(netns.Available()))
		}
		insert := &backend.Stmt{SQL: "INSERT INTO p VALUES (?)"}
		backendtest.Must(t, conns[0].ExecScript(ctx, "CREATE TABLE p (id INT PRIMARY KEY)"))
		backendtest.Must(t, n.Partition(ctx, []string{"node3"}, []string{"node1", "node2"}))
		err := refused(conns[2], insert, 1)
		if c, k, code := dberr.Describe(err); c != dberr.Unavailable || k != NotPrimary || code != "1047" {
			t.Fatalf("a write on node3 cut off: %v (%v %v %s), want it refused as not-primary", err, c, k, code)
		}
		if _, err := conns[0].Exec(ctx, insert, 2); err != nil {
			t.Errorf("a write on node1, with node2 a majority: %v", err)
		}
		h, _ := m.Health(ctx)
		if strings.Join(h.Writable, ",") != "node1,node2" || !strings.Contains(h.Following["node3"], "non-Primary") || h.SplitBrain() {
			t.Errorf("health %+v, want node1 and node2 writable, node3 non-Primary", h)
		}
		backendtest.Must(t, n.Heal(ctx))
		backendtest.Must(t, m.cluster.Nodes[2].synced(ctx))
		if _, err := conns[2].Exec(ctx, insert, 3); err != nil {
			t.Errorf("a write on node3 after the heal: %v", err)
		}
		var rows int
		if err := node(2).QueryRowContext(ctx, "SELECT COUNT(*) FROM p").Scan(&rows); err != nil || rows != 2 {
			t.Errorf("node3 has %d rows after the heal (%v), want 2", rows, err)
		}
	})

	// node3 killed while rows are written on node1, started again: it
	// rejoins by IST (its position recovered from InnoDB: the write sets
	// committed while it was down) and has every row.
	t.Run("kill and rejoin", func(t *testing.T) {
		c := conns[0]
		backendtest.Must(t, c.ExecScript(ctx, "CREATE TABLE k (id INT PRIMARY KEY)"))
		insert := &backend.Stmt{SQL: "INSERT INTO k VALUES (?)"}
		stop, done := make(chan struct{}), make(chan [2]int)
		go func() { // the load: on node1 until node3 is back
			acked, failed := 0, 0 // a failed insert (the membership changing) may or may not have committed
			for id := 0; ; id++ {
				select {
				case <-stop:
					done <- [2]int{acked, failed}
					return
				default:
				}
				if _, err := c.Exec(ctx, insert, id); err == nil {
					acked++
				} else {
					failed++
				}
			}
		}()
		time.Sleep(200 * time.Millisecond)
		err := m.OnNode("node3").CrashRestart(ctx)
		close(stop)
		load := <-done
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.Recovery(), "node3 killed and restarted; rejoined by IST") || !strings.Contains(m.Recovery(), "3 of 3 nodes accept writes") {
			t.Errorf("recovery note %q, want node3 back by IST and every node writable", m.Recovery())
		}
		var n int
		if err := node(2).QueryRowContext(ctx, "SELECT COUNT(*) FROM k").Scan(&n); err != nil || n < load[0] || n > load[0]+load[1] {
			t.Errorf("node3 has %d rows (%v), want the %d acknowledged (and up to %d failed)", n, err, load[0], load[1])
		}
		h, err := m.Health(ctx)
		if err != nil || len(h.Writable) != 3 || h.SplitBrain() {
			t.Errorf("health %+v (%v), want 3 writable nodes in one component", h, err)
		}
	})

	// Two of three nodes gone: node1 is a minority, leaves the Primary
	// component and refuses statements (1047), a class of its own.
	t.Run("quorum lost", func(t *testing.T) {
		c := conns[0]
		for _, n := range m.cluster.Nodes[1:] {
			if err := n.Kill(); err != nil {
				t.Fatal(err)
			}
		}
		err := refused(c, &backend.Stmt{SQL: "INSERT INTO k VALUES (?)"}, 1000)
		if c, k, code := dberr.Describe(err); c != dberr.Unavailable || k != NotPrimary || code != "1047" {
			t.Fatalf("a write on node1 alone: %v (%v %v %s), want it refused as not-primary", err, c, k, code)
		}
		h, _ := m.Health(ctx)
		if len(h.Writable) != 0 || !strings.Contains(h.Following["node1"], "non-Primary") {
			t.Errorf("health %+v, want no writable node and node1 non-Primary", h)
		}
	})
}
