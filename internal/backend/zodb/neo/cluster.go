package neo

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/pyworker"
	"github.com/dbgauge/dbgauge/internal/server"
)

// clusterName is the NEO cluster's name (-c): its nodes and clients must
// give the same.
const clusterName = "dbgauge"

// stopWithin bounds a node's clean stop, and the cluster's own shutdown.
const stopWithin = 10 * time.Second

// RunningWithin bounds the wait for the cluster (or a node started again)
// to be RUNNING, once its processes serve.
const RunningWithin = 2 * time.Minute

// Node is one process of a NEO cluster on the kit: the master, the admin
// or a storage node (neostorage on an SQLite database, DataDir/neo.sqlite).
type Node struct {
	*server.Instance
	Name string // "master", "admin", "storage1", …
	kind string // "master", "admin", "storage"
}

// ClusterConfig says where and how to start a cluster.
type ClusterConfig struct {
	server.Config
	Python   string // the NEO environment's interpreter: its bin holds neomaster, neostorage, neoadmin, neoctl
	Storages int    // storage nodes (--storage-nodes)
	Replicas int    // each partition's copies beyond the first (--replicas)
}

// Cluster is a NEO cluster dbgauge started: a master, storage nodes and an
// admin, each a process on loopback run by the account of the kit (its
// own system user when dbgauge is root); the storages' data in folders of
// their own beside the master's.
type Cluster struct {
	Master   *Node
	Admin    *Node
	Storages []*Node
	Replicas int
	bin      string   // the environment's bin
	logs     string   // the folder the nodes' logs go in: the run's
	env      []string // what its programs need to run as the account (pyworker.LibraryEnv)
}

// Start starts a cluster: the master, then the storage nodes, then the
// admin, each once it serves its port; then waits until the cluster is
// RUNNING (the master starts it when every storage node has joined: -A),
// read back through the admin (neoctl). A cluster that did not come up is
// stopped.
func Start(ctx context.Context, cfg ClusterConfig) (*Cluster, error) {
	in, err := server.New("neo", cfg.Config, "neo")
	if err != nil {
		return nil, err
	}
	c := newCluster(cfg.Python, in.Dir, cfg.Replicas)
	c.master(in, cfg.Storages)
	if err := c.launch(ctx, c.Master, true); err != nil {
		return nil, err
	}
	for i := 1; i <= cfg.Storages; i++ {
		n, err := c.beside(fmt.Sprintf("storage%d", i), "storage")
		if err == nil {
			err = c.launch(ctx, n, true)
		}
		if err != nil {
			_, _ = c.Stop()
			return nil, err
		}
		c.Storages = append(c.Storages, n)
	}
	admin, err := c.beside("admin", "admin")
	if err == nil {
		err = c.launch(ctx, admin, false)
	}
	if err != nil {
		_, _ = c.Stop()
		return nil, err
	}
	c.Admin = admin
	if err := c.WaitRunning(ctx, nil); err != nil {
		_, _ = c.Stop()
		return nil, err
	}
	return c, nil
}

// newCluster is a cluster of no node yet, of the environment whose
// interpreter is python, its logs in logs.
func newCluster(python, logs string, replicas int) *Cluster {
	return &Cluster{Replicas: replicas, bin: filepath.Dir(python), logs: logs,
		env: append(os.Environ(), pyworker.LibraryEnv(python)...)}
}

// master makes in the cluster's master, which starts the cluster once
// storages storage nodes have joined (-A).
func (c *Cluster) master(in *server.Instance, storages int) {
	c.Master = &Node{Instance: in, Name: "master", kind: "master"}
	c.recipe(c.Master, func(port int) []string {
		// The master's address is its own first master (-m): one master.
		addr := "127.0.0.1:" + strconv.Itoa(port)
		return []string{"-c", clusterName, "-m", addr, "-b", addr, "-A", strconv.Itoa(storages), "-r", strconv.Itoa(c.Replicas)}
	})
}

// beside makes the folders of a node beside the master's.
func (c *Cluster) beside(name, kind string) (*Node, error) {
	in, err := c.Master.Beside(name)
	if err != nil {
		return nil, err
	}
	return c.node(in, name, kind), nil
}

// node makes in the cluster's node named name, of kind (storage, admin).
func (c *Cluster) node(in *server.Instance, name, kind string) *Node {
	n := &Node{Instance: in, Name: name, kind: kind}
	c.recipe(n, func(port int) []string {
		a := []string{"-c", clusterName, "-m", c.MasterAddr(), "-b", "127.0.0.1:" + strconv.Itoa(port)}
		if kind == "storage" {
			a = append(a, "-a", "SQLite", "-d", n.DB())
		}
		return a
	})
	return n
}

// DB is a storage node's SQLite database.
func (n *Node) DB() string { return filepath.Join(n.DataDir, "neo.sqlite") }

// recipe: neoKIND with args for the port, its log (NEO logs its warnings,
// errors and tracebacks on stderr; its debugging log, -l, is not asked
// for) in the run's folder as neo-NAME.log; ready when its port accepts a
// connection; stopped by SIGTERM.
func (c *Cluster) recipe(n *Node, args func(port int) []string) {
	log := filepath.Join(c.logs, "neo-"+n.Name+".log")
	n.Recipe = server.Recipe{
		Command: func(port int) (server.Command, error) {
			return server.Command{Bin: filepath.Join(c.bin, "neo"+n.kind), Args: args(port), Env: c.env}, nil
		},
		Ready: func(ctx context.Context) error {
			return n.WaitReady(ctx, 50*time.Millisecond, func() error { return dial(n.Port) })
		},
		Taken:      server.AddressInUse,
		Stop:       syscall.SIGTERM,
		StopWithin: stopWithin,
		Log:        log,
	}
}

// launch makes a node's data folder (a storage's, its account's) and starts it.
func (c *Cluster) launch(ctx context.Context, n *Node, data bool) error {
	if data {
		if err := os.Mkdir(n.DataDir, 0o700); err != nil {
			return err
		}
		if err := n.Account.Own(n.DataDir); err != nil {
			return err
		}
	}
	if err := n.Launch(ctx); err != nil {
		n.Discard()
		return fmt.Errorf("start NEO's %s: %w", n.Name, err)
	}
	return nil
}

// dial connects to a node's port on loopback and closes the connection.
func dial(port int) error {
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return err
	}
	return conn.Close()
}

// MasterAddr is the master's address, which the other nodes and the
// clients are given.
func (c *Cluster) MasterAddr() string { return "127.0.0.1:" + strconv.Itoa(c.Master.Port) }

// Nodes lists the cluster's nodes: the master, the storages, the admin.
func (c *Cluster) Nodes() []*Node {
	ns := append([]*Node{c.Master}, c.Storages...)
	if c.Admin != nil {
		ns = append(ns, c.Admin)
	}
	return ns
}

// ByName returns the node named name, nil when none is.
func (c *Cluster) ByName(name string) *Node {
	for _, n := range c.Nodes() {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Ctl runs neoctl against the admin with args and returns what it printed.
func (c *Cluster) Ctl(ctx context.Context, args ...string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, filepath.Join(c.bin, "neoctl"), append([]string{"-a", "127.0.0.1:" + strconv.Itoa(c.Admin.Port)}, args...)...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("neoctl %s: %w: %s", strings.Join(args, " "), err, server.LastLines(string(out), 3))
	}
	return strings.TrimSpace(string(out)), nil
}

// State is what the admin says of the cluster: its state (RUNNING), each
// node's state by address ("127.0.0.1:PORT": RUNNING), the partition
// table's replicas and partitions, and its cells that are not up to date
// (neoctl print pt: a row per storage node, "S1 R UUUU", a letter per
// partition: U up to date; O out of date, F feeding, D discarded, C
// corrupted; "." none there).
type State struct {
	Cluster    string
	Nodes      map[string]string
	Replicas   int
	Partitions int
	NotUp      int
}

var (
	nodeLine = regexp.MustCompile(`(?m)^\S+\s*\|\s*(\w+)\s*\|\s*(\S+)\s*\|\s*(\w+)`)
	ptHead   = regexp.MustCompile(`replicas: (\d+)`)
	ptLine   = regexp.MustCompile(`(?m)^S\d+\s+\S\s+([UOFDC.]+)\s*$`)
)

// ReadState asks the admin what the cluster is (neoctl print cluster,
// print node, print pt).
func (c *Cluster) ReadState(ctx context.Context) (State, error) {
	var said [3]string
	for i, what := range []string{"cluster", "node", "pt"} {
		var err error
		if said[i], err = c.Ctl(ctx, "print", what); err != nil {
			return State{}, err
		}
	}
	return parseState(said[0], said[1], said[2]), nil
}

// parseState reads what neoctl printed of the cluster, its nodes and its
// partition table.
func parseState(cluster, nodes, pt string) State {
	st := State{Cluster: strings.TrimSpace(cluster), Nodes: map[string]string{}}
	for _, m := range nodeLine.FindAllStringSubmatch(nodes, -1) {
		st.Nodes[m[2]] = m[3]
	}
	if m := ptHead.FindStringSubmatch(pt); m != nil {
		st.Replicas, _ = strconv.Atoi(m[1])
	}
	for _, m := range ptLine.FindAllStringSubmatch(pt, -1) {
		st.Partitions = len(m[1])
		st.NotUp += len(m[1]) - strings.Count(m[1], "U") - strings.Count(m[1], ".")
	}
	return st
}

// WaitRunning waits, at most RunningWithin or ctx's end, until the admin
// says the cluster is RUNNING, and, when n is given, that n is RUNNING and
// every cell of the partition table is up to date (a storage node started
// again has caught up with what was committed without it). Giving up, it
// says what it last read.
func (c *Cluster) WaitRunning(ctx context.Context, n *Node) error {
	ctx, cancel := context.WithTimeout(ctx, RunningWithin)
	defer cancel()
	what := "the NEO cluster to be RUNNING"
	if n != nil {
		what = "NEO's " + n.Name + " to be RUNNING and every partition's cells up to date"
	}
	var last string
	for {
		st, err := c.ReadState(ctx)
		if err == nil {
			last = fmt.Sprintf("cluster %s, nodes %v, %d cells not up to date", st.Cluster, st.Nodes, st.NotUp)
			if st.Cluster == "RUNNING" && (n == nil || st.Nodes["127.0.0.1:"+strconv.Itoa(n.Port)] == "RUNNING" && st.NotUp == 0) {
				return nil
			}
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last read: %s)", what, context.Cause(ctx), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// CrashRestart kills node n (SIGKILL to its process group) and starts it
// again on its data, on the same port; it returns once the cluster says n
// is RUNNING with every cell up to date, with what n logged meanwhile.
func (c *Cluster) CrashRestart(ctx context.Context, n *Node) (string, error) {
	log, err := n.CrashRestart(ctx)
	if err != nil {
		return log, err
	}
	if c.Admin == nil || n == c.Admin {
		return log, nil
	}
	return log, c.WaitRunning(ctx, n)
}

// Stop stops the cluster cleanly: NEO's own shutdown (neoctl set cluster
// STOPPING: the master has the storage nodes finish and exit, then exits),
// waited for StopWithin at most; then the kit stops whatever is left
// (server.StopAll: SIGTERM to the storages, the admin, the master last,
// and their folders removed; the logs stay). It returns how long the whole
// stop took.
func (c *Cluster) Stop() (time.Duration, error) {
	start := time.Now()
	if c.Admin != nil && c.Admin.Process != nil {
		ctx, cancel := context.WithTimeout(context.Background(), stopWithin)
		if _, err := c.Ctl(ctx, "set", "cluster", "STOPPING"); err == nil {
			select {
			case <-c.Master.Done():
			case <-ctx.Done():
			}
		}
		cancel()
	}
	ins := []*server.Instance{c.Master.Instance}
	if c.Admin != nil {
		ins = append(ins, c.Admin.Instance)
	}
	for _, n := range c.Storages {
		ins = append(ins, n.Instance)
	}
	_, err := server.StopAll(ins)
	return time.Since(start), err
}
