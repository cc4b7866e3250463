package galera

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Provider is the Galera library every node loads (Debian's galera-4).
const Provider = "/usr/lib/galera/libgalera_smm.so"

// syncWithin bounds the wait for a node to be Synced after it started or
// restarted: a state transfer of the run's data (rsync of the datadir,
// or the write sets it missed).
const syncWithin = 5 * time.Minute

// Node is one server of a managed Galera cluster: MariaDB's managed server
// with wsrep on, and the ports it talks to the others on.
type Node struct {
	*mariadb.Server
	Name  string      // "node1", "node2", …
	host  *netns.Host // its place on the cluster's network; nil: loopback
	Gcomm int         // group communication (gmcast.listen_addr)
	IST   int         // incremental state transfer's receiver (ist.recv_addr)
	SST   int         // state snapshot transfer's receiver (wsrep_sst_receive_address): rsync's daemon
	// Joined is how the node last came to be Synced: bootstrapped, or a
	// state transfer and its time.
	Joined Transfer
}

// Transfer is how a node joined its cluster: its first node bootstraps it;
// another, or one started again, receives a state transfer: a snapshot of
// a donor's datadir (SST, by wsrep_sst_method) or the write sets it missed
// from a donor's cache (IST), read back from what the node logged.
type Transfer struct {
	Method  string  // "bootstrap", "SST (rsync)", "IST", "nothing to transfer"
	Seconds float64 // from the node's start to Synced
}

// String says it in a few words: "SST (rsync) in 2.41 s".
func (t Transfer) String() string {
	switch t.Method {
	case "bootstrap":
		return fmt.Sprintf("bootstrapped the cluster in %.2f s", t.Seconds)
	case "nothing to transfer":
		return fmt.Sprintf("no state transfer (it had every write set) in %.2f s", t.Seconds)
	}
	return fmt.Sprintf("%s in %.2f s", t.Method, t.Seconds)
}

// Cluster is a throwaway Galera cluster dbgauge started: N MariaDB
// servers, each a process of its own with its data, as the mysql account
// when dbgauge runs as root; each in a network namespace of its own on a
// bridge (Net) where namespaces can be made, so that a partition is the
// kernel's, else all on loopback.
type Cluster struct {
	Nodes []*Node
	Net   *netns.Net // nil: loopback
}

// ClusterConfig says where and how to start a cluster: the kit's Config,
// how many nodes, and the servers' variables (the durability level's, the
// run's --set), given to every node beside wsrep's.
type ClusterConfig struct {
	server.Config
	Nodes    int
	Settings map[string]string
}

// Find says what is missing to start a Galera cluster here: MariaDB's
// server, the Galera library, rsync (the state transfer).
func Find() error {
	if _, _, err := mariadb.FindServer(); err != nil {
		return err
	}
	if _, err := os.Stat(Provider); err != nil {
		return errors.New("no Galera library (" + Provider + "): apt-get install galera-4")
	}
	for _, tool := range []string{"rsync", "wsrep_sst_rsync"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("no %s, which Galera's state transfer runs: apt-get install rsync mariadb-server", tool)
		}
	}
	return nil
}

// Start starts a cluster of cfg.Nodes nodes: the first bootstraps it
// (--wsrep-new-cluster), the others join it one after another, each
// receiving a snapshot of the first's datadir (rsync); it returns once
// every node is Synced in a Primary component of them all. On an error
// the nodes started are stopped.
func Start(ctx context.Context, cfg ClusterConfig) (*Cluster, error) {
	if err := Find(); err != nil {
		return nil, err
	}
	net, err := netns.Open(ctx)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Net: net}
	for i := range max(cfg.Nodes, 1) {
		n := &Node{Name: "node" + strconv.Itoa(i+1)}
		if n.host, err = c.Net.Add(ctx, n.Name); err != nil {
			_, _ = c.Stop()
			return nil, err
		}
		for _, p := range []*int{&n.Gcomm, &n.IST, &n.SST} {
			var err error
			if *p, err = server.FreePort(); err != nil {
				_, _ = c.Stop()
				return nil, err
			}
		}
		c.Nodes = append(c.Nodes, n)
	}
	var peers []string
	for _, n := range c.Nodes {
		peers = append(peers, n.hostPort(n.Gcomm))
	}
	name := "dbgauge-" + server.Secret()[:12]
	for i, n := range c.Nodes {
		sc := mariadb.ServerConfig{Config: cfg.Config, Settings: n.settings(name, peers, cfg.Settings), Log: "galera-" + n.Name + ".log",
			Again: startPosition}
		sc.Host = n.host
		start := time.Now()
		var err error
		if i == 0 {
			sc.First = []string{"--wsrep-new-cluster"}
			sc.Serving = bootstrapped(n.Name)
			n.Server, err = mariadb.Start(ctx, sc)
		} else {
			n.Server, err = c.Nodes[0].Join(ctx, n.Name, sc)
		}
		if err == nil {
			err = n.synced(ctx)
		}
		if err != nil {
			_, _ = c.Stop()
			return nil, fmt.Errorf("galera %s: %w", n.Name, err)
		}
		n.Joined = Transfer{Method: "bootstrap", Seconds: time.Since(start).Seconds()}
		if i > 0 {
			n.Joined = transferOf(server.ReadFrom(n.LogPath, 0), time.Since(start))
		}
	}
	return c, nil
}

// settings are a node's server variables: the run's, then wsrep's, which
// win (a --set wsrep_provider_options is added to the node's own).
func (n *Node) settings(cluster string, peers []string, run map[string]string) map[string]string {
	s := map[string]string{}
	for k, v := range run {
		s[k] = v
	}
	opts := "gmcast.listen_addr=tcp://" + n.hostPort(n.Gcomm) + ";ist.recv_addr=" + n.hostPort(n.IST)
	if v := run["wsrep_provider_options"]; v != "" {
		opts += ";" + v
	}
	for k, v := range map[string]string{
		"wsrep_on": "ON", "wsrep_provider": Provider, "wsrep_cluster_name": cluster,
		"wsrep_cluster_address": "gcomm://" + strings.Join(peers, ","),
		"wsrep_node_name":       n.Name, "wsrep_node_address": n.hostPort(n.Gcomm),
		"wsrep_provider_options":    opts,
		"wsrep_sst_receive_address": n.hostPort(n.SST),
		// Galera's requirements: row-based write sets, InnoDB, and
		// interleaved auto-increment locks (no table lock for a bulk insert).
		"binlog_format": "ROW", "default_storage_engine": "InnoDB", "innodb_autoinc_lock_mode": "2",
	} {
		s[k] = v
	}
	if _, ok := run["wsrep_sst_method"]; !ok {
		s["wsrep_sst_method"] = "rsync"
	}
	return s
}

// hostPort is the node's address with port: on the cluster's network, or
// loopback.
func (n *Node) hostPort(port int) string {
	addr := "127.0.0.1"
	if n.host != nil {
		addr = n.host.Addr
	}
	return net.JoinHostPort(addr, strconv.Itoa(port))
}

// State is what a node says of itself: wsrep's status variables.
type State struct {
	Comment string // wsrep_local_state_comment: Synced, Donor/Desynced, Joining, Joined, Initialized
	Status  string // wsrep_cluster_status: Primary, non-Primary, Disconnected
	Size    int    // wsrep_cluster_size: the nodes of its component
	Ready   bool   // wsrep_ready: it accepts statements
	Conf    string // wsrep_cluster_conf_id: its component's view, the same on every node of it
}

// Writable says whether the node accepts writes: in a Primary component
// and ready.
func (s State) Writable() bool { return s.Status == "Primary" && s.Ready }

// String is the state as a reader sees it: "Synced, Primary, 3 nodes".
func (s State) String() string {
	r := ""
	if !s.Ready {
		r = ", not ready"
	}
	return fmt.Sprintf("%s, %s, %d nodes%s", s.Comment, s.Status, s.Size, r)
}

// stateOf reads a node's state through p.
func stateOf(ctx context.Context, p *sql.DB) (State, error) {
	rows, err := p.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_status', 'wsrep_cluster_size', 'wsrep_ready', 'wsrep_cluster_conf_id')")
	if err != nil {
		return State{}, err
	}
	defer rows.Close()
	var s State
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return State{}, err
		}
		switch strings.ToLower(k) {
		case "wsrep_local_state_comment":
			s.Comment = v
		case "wsrep_cluster_status":
			s.Status = v
		case "wsrep_cluster_size":
			s.Size, _ = strconv.Atoi(v)
		case "wsrep_ready":
			s.Ready = v == "ON"
		case "wsrep_cluster_conf_id":
			s.Conf = v
		}
	}
	return s, rows.Err()
}

// synced waits, bounded by syncWithin, until the node says it is Synced
// in a Primary component, through a connection of its own.
func (n *Node) synced(ctx context.Context) error {
	p, err := sql.Open("mysql", n.DSN(true))
	if err != nil {
		return err
	}
	defer p.Close()
	return awaitState(ctx, n.Name, n.Server, p, "Synced in a Primary component (its state transfer)",
		func(s State) bool { return s.Comment == "Synced" && s.Writable() })
}

// bootstrapped is the first node's Serving: it waits, bounded by
// syncWithin, until the node that bootstraps the cluster accepts
// statements (wsrep_ready), before its users are made: it accepts
// connections first, and a statement then fails with "WSREP has not yet
// prepared node for application use".
func bootstrapped(name string) func(context.Context, *mariadb.Server, *sql.DB) error {
	return func(ctx context.Context, m *mariadb.Server, root *sql.DB) error {
		return awaitState(ctx, name, m, root, "ready in a Primary component (its bootstrap)", State.Writable)
	}
}

// awaitState asks the node through p, bounded by syncWithin, until its
// state is ok; it says what it waited for and what the node last said when
// it gives up or the node exits.
func awaitState(ctx context.Context, name string, m *mariadb.Server, p *sql.DB, what string, ok func(State) bool) error {
	wctx, cancel := context.WithTimeout(ctx, syncWithin)
	defer cancel()
	var last State
	for {
		qctx, qcancel := context.WithTimeout(wctx, 2*time.Second)
		s, err := stateOf(qctx, p)
		qcancel()
		if err == nil && ok(s) {
			return nil
		}
		said := "its last answer: " + s.String()
		if err != nil {
			said = "it did not answer: " + err.Error()
		} else {
			last = s
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("waited %s for %s to be %s: last it said %s (%s); its log: %s",
				syncWithin, name, what, last, said, m.LogTail(5))
		case <-m.Done():
			return fmt.Errorf("%s exited while waiting to be %s; its log: %s", name, what, m.LogTail(5))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// recoverWithin bounds mariadbd --wsrep-recover: InnoDB's crash recovery
// of a killed node's data.
const recoverWithin = 5 * time.Minute

// recovered is the line mariadbd --wsrep-recover prints (the line
// galera_recovery, which systemd runs before a node's start, reads).
var recovered = regexp.MustCompile(`WSREP: Recovered position:? ([0-9a-f-]{36}:-?\d+)`)

// startPosition is a killed node's --wsrep-start-position: the last write
// set its InnoDB committed, which mariadbd --wsrep-recover reads from the
// data, as systemd's galera_recovery does before a start. With it the node
// asks a donor for the write sets it missed (IST); without it, Galera's
// saved state says seqno -1 after a crash and it asks for a whole
// snapshot (SST).
func startPosition(ctx context.Context, m *mariadb.Server) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, recoverWithin)
	defer cancel()
	out, err := m.RunOnData(ctx, "--wsrep-recover")
	if err != nil {
		return nil, err
	}
	p := recovered.FindStringSubmatch(out)
	if p == nil {
		return nil, nil // nothing recovered: the node asks for a snapshot
	}
	return []string{"--wsrep-start-position=" + p[1]}, nil
}

// transferOf reads from a joiner's log which state transfer it received.
// The SST script runs for both, and says which it made: "rsync SST
// completed on joiner" (a snapshot of a donor's datadir, followed by an
// IST of what came after it, part of it) or "rsync IST completed on
// joiner" (the write sets it missed alone: "Receiving IST: 5215
// writesets"); MariaDB logs "SST received" after either.
func transferOf(log string, took time.Duration) Transfer {
	t := Transfer{Method: "nothing to transfer", Seconds: took.Seconds()} // it had every write set
	m := transferred.FindStringSubmatch(log)
	switch {
	case m != nil && m[2] == "SST":
		t.Method = "SST (" + m[1] + ")"
	case m != nil || strings.Contains(log, "IST received"):
		t.Method = "IST"
		if w := writesets.FindStringSubmatch(log); w != nil {
			t.Method += " (" + w[1] + " write sets)"
		}
	}
	return t
}

var (
	transferred = regexp.MustCompile(`WSREP_SST: \[INFO\] (\w+) (SST|IST) completed on joiner`)
	writesets   = regexp.MustCompile(`Receiving IST: (\d+) writesets`)
)

// CrashRestart kills the node (SIGKILL to its processes) and starts it
// again on its data and ports: it rejoins the cluster, by IST when a
// donor's cache holds every write set it missed, else by SST. It returns
// once the node is Synced, with how it rejoined.
func (n *Node) CrashRestart(ctx context.Context) (Transfer, error) {
	from := backend.FileSize(n.LogPath)
	start := time.Now()
	if _, err := n.Server.CrashRestart(ctx); err != nil {
		return Transfer{}, err
	}
	if err := n.synced(ctx); err != nil {
		return Transfer{}, err
	}
	n.Joined = transferOf(server.ReadFrom(n.LogPath, from), time.Since(start))
	return n.Joined, nil
}

// Stop stops every node cleanly (SIGTERM), the last first, removes their
// folders (their logs stay) and their network; it returns how long the
// first node's stop took.
func (c *Cluster) Stop() (time.Duration, error) {
	defer func() {
		_ = c.Net.Close() // nil on loopback: nothing to close
	}()
	ins := make([]*server.Instance, len(c.Nodes))
	for i, n := range c.Nodes {
		if n.Server != nil {
			ins[i] = n.Instance
		}
	}
	return server.StopAll(ins)
}
