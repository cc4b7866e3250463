// Package netns puts the servers of a cluster on a network of their own, so
// that a fault of the network is one the kernel makes: each node in a network
// namespace with an address on a bridge, dbgauge's clients on the bridge's
// own address in the root namespace, and faults made in the nodes'
// namespaces with nftables (a partition, packet loss) and tc (delay, where
// the kernel has netem). It runs ip, nft and tc, each call bounded; it needs
// root (Available says why it cannot work, when it cannot).
package netns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Clients names, in a partition, the side of dbgauge's clients: the root
// namespace, through the bridge's own address.
const Clients = "clients"

// callWithin bounds each call of ip, nft or tc.
const callWithin = 10 * time.Second

// subnet is the first two octets of every Net's addresses: Net k is
// 10.213.k.0/24, its bridge .1, its nodes from .10.
const subnet = "10.213."

// Available returns nil when namespaces can be made here, or why not.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("network namespaces need root: run dbgauge as root")
	}
	for _, tool := range []string{"ip", "nft", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			pkg := map[string]string{"ip": "iproute2", "nft": "nftables", "nsenter": "util-linux"}[tool]
			return fmt.Errorf("network namespaces need %s, which is not installed (apt-get install %s)", tool, pkg)
		}
	}
	return nil
}

// Net is one cluster's network: a bridge in the root namespace, named for
// its index, and a namespace per node joined to it by a veth pair.
type Net struct {
	k      int // the index: bridge dgK, namespaces dgK-NODE, subnet 10.213.K.0/24
	mu     sync.Mutex
	hosts  []*Host
	faults []string // what is in force, for Faults
}

// Host is one node's place on a Net.
type Host struct {
	Node      string // the node's name in the cluster ("primary", "r1", "node3")
	Namespace string // the network namespace's name (ip netns)
	Addr      string // the node's IPv4 address on the bridge
	Subnet    string // the Net's addresses in CIDR notation, the clients' among them
}

// New makes a Net on a subnet no other Net of this machine uses: the first
// free index, claimed by making its bridge (which fails when it exists). A
// bridge left by a process that died is taken back with its namespaces.
func New(ctx context.Context) (*Net, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	for k := 1; k < 250; k++ {
		br := bridge(k)
		err := run(ctx, "ip", "link", "add", br, "type", "bridge")
		if err != nil {
			if !strings.Contains(err.Error(), "exists") {
				return nil, err
			}
			if !stale(ctx, k) {
				continue
			}
			_ = run(ctx, "ip", "link", "del", br)
			if err := run(ctx, "ip", "link", "add", br, "type", "bridge"); err != nil {
				continue
			}
		}
		// The bridge is ours: what bears its name otherwise was left
		// (a killed dbgauge, a namespace the kernel had not yet destroyed).
		dropLeft(ctx, k)
		n := &Net{k: k}
		err = errors.Join(
			run(ctx, "ip", "link", "set", br, "alias", "dbgauge pid "+strconv.Itoa(os.Getpid())),
			run(ctx, "ip", "addr", "add", n.ClientAddr()+"/24", "dev", br),
			run(ctx, "ip", "link", "set", br, "up"))
		if err != nil {
			_ = n.Close()
			return nil, err
		}
		return n, nil
	}
	return nil, errors.New("every dbgauge network (10.213.1–249.0/24) is in use: remove stale bridges dg1…dg249 (ip link del dgN)")
}

func bridge(k int) string { return "dg" + strconv.Itoa(k) }

// veth names node i's end of its veth pair on bridge k (i < 0: the prefix
// of them all).
func veth(k, i int) string {
	if i < 0 {
		return bridge(k) + "v"
	}
	return bridge(k) + "v" + strconv.Itoa(i)
}

// stale reports whether bridge k was made by a process that is gone.
func stale(ctx context.Context, k int) bool {
	out, err := output(ctx, "ip", "-o", "link", "show", bridge(k))
	if err != nil {
		return false
	}
	_, pid, ok := strings.Cut(out, "alias dbgauge pid ")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(strings.Fields(pid)[0])
	if err != nil {
		return false
	}
	return syscall.Kill(n, 0) == syscall.ESRCH
}

// dropLeft removes the veths and namespaces named for bridge k.
func dropLeft(ctx context.Context, k int) {
	links, _ := output(ctx, "ip", "-o", "link", "show")
	for _, line := range strings.Split(links, "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[1], veth(k, -1)) {
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			_ = run(ctx, "ip", "link", "del", name)
		}
	}
	out, _ := output(ctx, "ip", "netns", "list")
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], bridge(k)+"-") {
			_ = run(ctx, "ip", "netns", "del", f[0])
		}
	}
}

// ClientAddr is the bridge's address: where dbgauge's clients come from.
func (n *Net) ClientAddr() string { return subnet + strconv.Itoa(n.k) + ".1" }

// Subnet is the Net's addresses in CIDR notation (for a server's access
// rules).
func (n *Net) Subnet() string { return subnet + strconv.Itoa(n.k) + ".0/24" }

// Open is New where namespaces can be made here, and nil (the cluster on
// loopback: Add then places nothing) where they cannot: a cluster's servers
// are on a network of their own whenever dbgauge is root, and a fault that
// needs one is refused otherwise, with Available's reason.
func Open(ctx context.Context) (*Net, error) {
	if Available() != nil {
		return nil, nil
	}
	return New(ctx)
}

// Add makes node's namespace, with the loopback up and a veth to the bridge
// carrying its own address. On a nil Net (loopback) it returns nil: the
// node has no place of its own.
func (n *Net) Add(ctx context.Context, node string) (*Host, error) {
	if n == nil {
		return nil, nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.host(node) != nil {
		return nil, fmt.Errorf("network: node %s added twice", node)
	}
	i := len(n.hosts)
	h := &Host{Node: node, Namespace: fmt.Sprintf("%s-%s", bridge(n.k), node), Addr: subnet + strconv.Itoa(n.k) + "." + strconv.Itoa(10+i), Subnet: n.Subnet()}
	v := veth(n.k, i)
	err := run(ctx, "ip", "netns", "add", h.Namespace)
	if err == nil {
		n.hosts = append(n.hosts, h)
		err = run(ctx, "ip", "link", "add", v, "type", "veth", "peer", "name", "eth0", "netns", h.Namespace)
	}
	if err == nil {
		err = errors.Join(
			run(ctx, "ip", "link", "set", v, "master", bridge(n.k), "up"),
			run(ctx, "ip", "-n", h.Namespace, "addr", "add", h.Addr+"/24", "dev", "eth0"),
			run(ctx, "ip", "-n", h.Namespace, "link", "set", "eth0", "up"),
			run(ctx, "ip", "-n", h.Namespace, "link", "set", "lo", "up"))
	}
	if err != nil {
		return nil, fmt.Errorf("network: node %s: %w", node, err)
	}
	return h, nil
}

func (n *Net) host(node string) *Host {
	for _, h := range n.hosts {
		if h.Node == node {
			return h
		}
	}
	return nil
}

// Host returns node's place, nil when it has none.
func (n *Net) Host(node string) *Host {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.host(node)
}

// Nodes names the nodes on the Net, in the order they were added.
func (n *Net) Nodes() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]string, len(n.hosts))
	for i, h := range n.hosts {
		out[i] = h.Node
	}
	return out
}

// addr is a side's member's address: a node's, or the clients'.
func (n *Net) addr(member string) (string, error) {
	if member == Clients {
		return n.ClientAddr(), nil
	}
	if h := n.host(member); h != nil {
		return h.Addr, nil
	}
	return "", fmt.Errorf("network: no node %s (nodes: %s)", member, strings.Join(n.names(), ", "))
}

func (n *Net) names() []string {
	out := []string{Clients}
	for _, h := range n.hosts {
		out = append(out, h.Node)
	}
	return out
}

// table is the nftables table of dbgauge's faults in a node's namespace,
// with an input and an output chain; made at the first fault there.
const table = "dbgauge"

// ensure makes the table and its chains in h's namespace.
func ensure(ctx context.Context, h *Host) error {
	return nft(ctx, h, fmt.Sprintf(`table inet %[1]s {
	chain in { type filter hook input priority 0; policy accept; }
	chain out { type filter hook output priority 0; policy accept; }
}`, table))
}

// nft loads script into h's namespace's ruleset.
func nft(ctx context.Context, h *Host, script string) error {
	ctx, cancel := context.WithTimeout(ctx, callWithin)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", "netns", "exec", h.Namespace, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		return callErr(ctx, "nft in "+h.Namespace, err, out)
	}
	return nil
}

// Partition cuts every member of a off from every member of b, both ways,
// until Heal: packets between them are dropped (nftables, in the namespaces
// of the nodes among them), so that a connection between them neither
// fails nor moves, as across a cut cable. Members are nodes' names or
// Clients; the two sides must not share one.
func (n *Net) Partition(ctx context.Context, a, b []string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(a) == 0 || len(b) == 0 {
		return errors.New("network: a partition needs a node on each side")
	}
	for _, m := range a {
		if slices.Contains(b, m) {
			return fmt.Errorf("network: %s is on both sides of the partition", m)
		}
	}
	addrs := map[string]string{}
	for _, m := range append(slices.Clone(a), b...) {
		ad, err := n.addr(m)
		if err != nil {
			return err
		}
		addrs[m] = ad
	}
	cut := func(side, other []string) error {
		var far []string
		for _, m := range other {
			far = append(far, addrs[m])
		}
		set := "{ " + strings.Join(far, ", ") + " }"
		for _, m := range side {
			h := n.host(m)
			if h == nil {
				continue // the clients: cut from the other side
			}
			if err := ensure(ctx, h); err != nil {
				return err
			}
			err := nft(ctx, h, fmt.Sprintf("add rule inet %[1]s in ip saddr %[2]s drop\nadd rule inet %[1]s out ip daddr %[2]s drop\n", table, set))
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := errors.Join(cut(a, b), cut(b, a)); err != nil {
		return err
	}
	n.faults = append(n.faults, fmt.Sprintf("partition %s | %s", strings.Join(a, ","), strings.Join(b, ",")))
	return nil
}

// Isolate cuts node off from every other node of n, its clients still
// reaching it, and says what it did, for a time line. A nil n (a cluster on
// loopback) cannot: its error says why there is no network.
func Isolate(ctx context.Context, n *Net, node string) (string, error) {
	if n == nil {
		return "", fmt.Errorf("the cluster is on loopback, not on a network of its own, so %s cannot be cut off: %w", node, Available())
	}
	var others []string
	for _, o := range n.Nodes() {
		if o != node {
			others = append(others, o)
		}
	}
	if err := n.Partition(ctx, []string{node}, others); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s cut off from %s (nftables in its network namespace); its clients still reach it", node, strings.Join(others, ", ")), nil
}

// Loss drops pct % of the packets node sends and receives, at random
// (nftables' numgen), until Heal.
func (n *Net) Loss(ctx context.Context, node string, pct int) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.host(node)
	switch {
	case h == nil:
		return fmt.Errorf("network: no node %s (nodes: %s)", node, strings.Join(n.names()[1:], ", "))
	case pct <= 0 || pct > 100:
		return fmt.Errorf("network: a loss of %d %% is not between 1 and 100", pct)
	}
	if err := ensure(ctx, h); err != nil {
		return err
	}
	match := fmt.Sprintf("numgen random mod 100 < %d ", pct)
	if pct == 100 {
		match = "" // numgen's values end at 99
	}
	err := nft(ctx, h, fmt.Sprintf("add rule inet %[1]s in %[2]sdrop\nadd rule inet %[1]s out %[2]sdrop\n", table, match))
	if err == nil {
		n.faults = append(n.faults, fmt.Sprintf("loss %d %% at %s", pct, node))
	}
	return err
}

// ErrNoNetem is Delay's error where the kernel has no netem queueing
// discipline (CONFIG_NET_SCH_NETEM): a delay cannot be made there.
var ErrNoNetem = errors.New("this kernel has no netem queueing discipline (CONFIG_NET_SCH_NETEM), which a delay needs")

var netem struct {
	once sync.Once
	err  error
}

// Netem returns nil when the kernel has tc's netem queueing discipline,
// which Delay needs, else why not: tried once, in a namespace of its own.
func Netem(ctx context.Context) error {
	netem.once.Do(func() {
		if netem.err = Available(); netem.err != nil {
			return
		}
		ns := "dgprobe-" + strconv.Itoa(os.Getpid())
		if netem.err = run(ctx, "ip", "netns", "add", ns); netem.err != nil {
			return
		}
		defer func() { _ = run(ctx, "ip", "netns", "del", ns) }()
		err := run(ctx, "ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms")
		if err != nil && strings.Contains(err.Error(), "qdisc kind is unknown") {
			err = ErrNoNetem
		}
		netem.err = err
	})
	return netem.err
}

// Delay holds every packet node sends for d (tc netem on its veth), until
// Heal.
func (n *Net) Delay(ctx context.Context, node string, d time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.host(node)
	if h == nil {
		return fmt.Errorf("network: no node %s (nodes: %s)", node, strings.Join(n.names()[1:], ", "))
	}
	ms := strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + "ms"
	err := run(ctx, "ip", "netns", "exec", h.Namespace, "tc", "qdisc", "replace", "dev", "eth0", "root", "netem", "delay", ms)
	if err != nil && strings.Contains(err.Error(), "qdisc kind is unknown") {
		return ErrNoNetem
	}
	if err == nil {
		n.faults = append(n.faults, fmt.Sprintf("delay %s at %s", d, node))
	}
	return err
}

// Heal undoes every partition, loss and delay in force.
func (n *Net) Heal(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	var errs []error
	for _, h := range n.hosts {
		// Both may be absent: no fault was made there.
		if err := run(ctx, "ip", "netns", "exec", h.Namespace, "nft", "delete", "table", "inet", table); err != nil && !absent(err) {
			errs = append(errs, err)
		}
		if err := run(ctx, "ip", "netns", "exec", h.Namespace, "tc", "qdisc", "del", "dev", "eth0", "root"); err != nil && !absent(err) {
			errs = append(errs, err)
		}
	}
	n.faults = nil
	return errors.Join(errs...)
}

// absent tells an undo of something that was not there.
func absent(err error) bool {
	s := err.Error()
	return strings.Contains(s, "No such file") || strings.Contains(s, "Cannot delete qdisc with handle of zero") ||
		strings.Contains(s, "Invalid handle") || strings.Contains(s, "does not exist")
}

// Faults says what is in force ("partition primary | r1,r2"), in the order
// it was made.
func (n *Net) Faults() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.faults)
}

// Close removes the namespaces and the bridge. The servers in them must
// have stopped: a namespace lives on while a process is in it.
func (n *Net) Close() error {
	if n == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), callWithin)
	defer cancel()
	n.mu.Lock()
	defer n.mu.Unlock()
	var errs []error
	for i, h := range n.hosts {
		// The veth first: a namespace's own links go only once the kernel
		// has destroyed it, later, and a new Net may want the name.
		if err := run(ctx, "ip", "link", "del", veth(n.k, i)); err != nil && !strings.Contains(err.Error(), "Cannot find device") {
			errs = append(errs, err)
		}
		errs = append(errs, run(ctx, "ip", "netns", "del", h.Namespace))
	}
	n.hosts = nil
	errs = append(errs, run(ctx, "ip", "link", "del", bridge(n.k)))
	return errors.Join(errs...)
}

// Wrap returns the command line that runs bin with args inside h's
// namespace as the user and group uid and gid (nsenter: dbgauge, as root,
// enters the namespace, then the command runs as the account; it replaces
// nsenter, so its process is the one started).
func (h *Host) Wrap(uid, gid int, bin string, args []string) (string, []string) {
	nsenter, err := exec.LookPath("nsenter")
	if err != nil {
		nsenter = "nsenter"
	}
	w := []string{"--net=/run/netns/" + h.Namespace}
	if uid >= 0 {
		w = append(w, "--setuid", strconv.Itoa(uid), "--setgid", strconv.Itoa(gid))
	}
	return nsenter, append(append(w, "--", bin), args...)
}

// run runs a tool, bounded; its error ends with what the tool said.
func run(ctx context.Context, name string, args ...string) error {
	_, err := output(ctx, name, args...)
	return err
}

func output(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, callWithin)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return "", callErr(ctx, name+" "+strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// callErr says which call failed and how.
func callErr(ctx context.Context, what string, err error, out []byte) error {
	if ctx.Err() != nil {
		return fmt.Errorf("network: %s: gave up after %s: %w", what, callWithin, context.Cause(ctx))
	}
	return fmt.Errorf("network: %s: %w: %s", what, err, strings.TrimSpace(string(out)))
}
