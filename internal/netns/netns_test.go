package netns

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// reach reports whether a process in node's namespace connects to addr
// within a second (bash's /dev/tcp, run through the Host's Wrap as root).
func reach(t *testing.T, h *Host, addr string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	bin, args := h.Wrap(-1, -1, "timeout", []string{"1", "bash", "-c", "exec 3<>/dev/tcp/" + strings.Replace(addr, ":", "/", 1)})
	return exec.CommandContext(ctx, bin, args...).Run() == nil
}

// TestPartition: nodes on a Net reach the clients' address until a
// partition cuts one off; the other still does; Heal joins them again; a
// loss of 100 % cuts like a partition; a delay works or says the kernel
// lacks netem.
func TestPartition(t *testing.T) {
	if err := Available(); err != nil {
		t.Fatalf("the tests run as root with ip, nft and nsenter (.ci/run installs them): %v", err)
	}
	ctx := context.Background()
	n, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := n.Close(); err != nil {
			t.Error(err)
		}
	}()
	a, err := n.Add(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.Add(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Add(ctx, "a"); err == nil {
		t.Error("a node added twice was taken")
	}
	l, err := net.Listen("tcp", n.ClientAddr()+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	srv := l.Addr().String()
	if !reach(t, a, srv) || !reach(t, b, srv) {
		t.Fatal("the nodes do not reach the clients' address before any fault")
	}
	if err := n.Partition(ctx, []string{"a"}, []string{Clients}); err != nil {
		t.Fatal(err)
	}
	if reach(t, a, srv) {
		t.Error("a reached the clients across the partition")
	}
	if !reach(t, b, srv) {
		t.Error("b, not in the partition, no longer reaches the clients")
	}
	if got := n.Faults(); len(got) != 1 || got[0] != "partition a | clients" {
		t.Errorf("Faults = %q", got)
	}
	if err := n.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	if !reach(t, a, srv) {
		t.Error("a does not reach the clients after Heal")
	}
	if err := n.Loss(ctx, "b", 100); err != nil {
		t.Fatal(err)
	}
	if reach(t, b, srv) {
		t.Error("b reached the clients through a loss of 100 %")
	}
	if err := n.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	if !reach(t, b, srv) {
		t.Error("b does not reach the clients after Heal")
	}
	if err := n.Delay(ctx, "a", 10*time.Millisecond); err != nil && !errors.Is(err, ErrNoNetem) {
		t.Error(err)
	}
	if err := n.Heal(ctx); err != nil {
		t.Error(err)
	}
	for _, bad := range [][2][]string{{{"a"}, {"a"}}, {{"a"}, {"nobody"}}, {{}, {"b"}}} {
		if err := n.Partition(ctx, bad[0], bad[1]); err == nil {
			t.Errorf("Partition(%q, %q) was taken", bad[0], bad[1])
		}
	}
}

// TestNetsApart: two Nets at once have subnets and bridges of their own.
func TestNetsApart(t *testing.T) {
	ctx := context.Background()
	n1, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer n1.Close()
	n2, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer n2.Close()
	if n1.Subnet() == n2.Subnet() {
		t.Errorf("two nets share %s", n1.Subnet())
	}
}
