package session

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/result"
)

// netFault is a fault of a cluster's network (--fault partition=…,
// loss=…, delay=…), made D into the measure phase (faultPlan.at) and
// healed at heal (0: left until the run ends).
type netFault struct {
	kind  string     // partition, loss, delay
	sides [][]string // a partition's sides: one (cut from every other node) or two
	node  string     // loss, delay: the node
	pct   int        // loss: the share of packets dropped
	delay time.Duration
	heal  time.Duration
}

// netHint is how a fault of the network is written.
const netHint = "write it as --fault partition=node3@10s,heal@25s, partition=primary|r1+r2@10s, loss=node2:20%@10s or delay=node2:50ms@10s"

// parseNetFault reads KIND=WHAT@D[,heal@H]; ok false: spec is no fault of
// the network.
func parseNetFault(spec string) (nf *netFault, at time.Duration, ok bool, err error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(spec), "=")
	if kind != "partition" && kind != "loss" && kind != "delay" {
		return nil, 0, false, nil
	}
	bad := func(why string) (*netFault, time.Duration, bool, error) {
		return nil, 0, true, knob.Bad(netHint, "--fault %q: %s", spec, why)
	}
	first, heal, hasHeal := strings.Cut(rest, ",")
	what, when, found := strings.Cut(first, "@")
	if !found || what == "" {
		return bad("say what and when: WHAT@DURATION")
	}
	if at, err = time.ParseDuration(strings.TrimSpace(when)); err != nil || at < 0 {
		return bad(fmt.Sprintf("%q is not a duration into the measure phase", when))
	}
	nf = &netFault{kind: kind}
	if hasHeal {
		h, hok := strings.CutPrefix(strings.TrimSpace(heal), "heal@")
		d, herr := time.ParseDuration(h)
		if !hok || herr != nil || d <= at {
			return bad(fmt.Sprintf("%q is not heal@DURATION after the fault's %s", heal, at))
		}
		nf.heal = d
	}
	switch kind {
	case "partition":
		for side := range strings.SplitSeq(what, "|") {
			var nodes []string
			for n := range strings.SplitSeq(side, "+") {
				if n = strings.TrimSpace(n); n == "" {
					return bad("a side of the partition names no node")
				}
				nodes = append(nodes, n)
			}
			nf.sides = append(nf.sides, nodes)
		}
		if len(nf.sides) > 2 {
			return bad("a partition has two sides: A|B, or one side cut from the rest")
		}
	default:
		node, amount, found := strings.Cut(what, ":")
		nf.node = strings.TrimSpace(node)
		if !found || nf.node == "" {
			return bad(fmt.Sprintf("write the node and the amount: %s=NODE:AMOUNT@D", kind))
		}
		if kind == "loss" {
			nf.pct, err = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(amount), "%"))
			if err != nil || nf.pct < 1 || nf.pct > 100 {
				return bad(fmt.Sprintf("%q is not a share of packets from 1%% to 100%%", amount))
			}
		} else if nf.delay, err = time.ParseDuration(strings.TrimSpace(amount)); err != nil || nf.delay <= 0 {
			return bad(fmt.Sprintf("%q is not a delay above 0", amount))
		}
	}
	return nf, at, true, nil
}

// netFaultConfig checks a fault of the network against the run: an engine
// whose cluster has a network of its own, a cluster to make, and a machine
// where namespaces (and, for a delay, netem) can be made.
func (p *Plan) netFaultConfig(v *knob.Values, spec string, nf *netFault, at time.Duration) error {
	switch {
	case !p.bspec.Has(backend.NetFaults) || !p.bspec.Managed(p.bopts.DB):
		return knob.Bad("use a cluster dbgauge starts: --db galera:managed, or postgres:managed or mariadb:managed with --topology",
			"--fault %s cuts a cluster's own network, which %s has not", nf.kind, p.config.DB)
	case p.oneServer(v):
		return knob.Bad("add --topology 1, 2-direct or 2-chain", "--fault %s needs a cluster, and --topology none makes one server", nf.kind)
	case p.run.Duration > 0 && at >= p.run.Duration:
		return knob.Bad(fmt.Sprintf("give the fault's time less than --duration %s", p.run.Duration), "--fault at %s comes after the measure phase ends", at)
	}
	if names := p.bspec.Nodes; names != nil {
		known := names(v)
		if nf.kind == "partition" {
			known = append(known, netns.Clients)
		}
		for _, n := range append(slices.Concat(nf.sides...), nf.node) {
			if n != "" && !slices.Contains(known, n) {
				return knob.Bad("name one of "+strings.Join(known, ", "), "--fault %q: the cluster has no server %s", spec, n)
			}
		}
	}
	if err := netns.Available(); err != nil {
		return knob.Bad("run dbgauge as root, or drop --fault "+nf.kind, "--fault %q: %v", spec, err)
	}
	if nf.kind == "delay" {
		if err := netns.Netem(context.Background()); err != nil {
			return knob.Bad("use partition= or loss=, which nftables makes", "--fault %q: %v", spec, err)
		}
	}
	p.fault = &faultPlan{at: at, net: nf}
	return nil
}

// netAt arranges the fault of the network at the plan's time into the
// measure phase, and its heal.
func (f *faultRun) netAt(s *session, measure time.Time) {
	nf := f.plan.net
	rec := &result.Fault{Kind: nf.kind, AtSeconds: f.plan.at.Seconds(), HealAtSeconds: nf.heal.Seconds()}
	f.arm(s, measure, rec, func() { f.cut(s, measure) })
}

// cut makes the fault, then heals it at its time (or leaves it to the end
// of the run), each on the time line.
func (f *faultRun) cut(s *session, measure time.Time) {
	nf := f.plan.net
	ctx := context.WithoutCancel(s.runCtx)
	fail := func(err error) {
		s.mu.Lock()
		f.rec.Error = err.Error()
		s.mu.Unlock()
		s.event(time.Now(), result.EventFault, "not made: "+err.Error())
	}
	nw, ok := s.db.(backend.Networked)
	var n *netns.Net
	if ok {
		n = nw.Network()
	}
	if n == nil {
		fail(fmt.Errorf("the cluster is not on a network of its own (its servers are on loopback): %w", netns.Available()))
		return
	}
	what, err := makeNetFault(ctx, n, nf)
	made := time.Now()
	if err != nil {
		fail(err)
		return
	}
	s.event(made, result.EventFault, what)
	s.mu.Lock()
	f.kill, f.rec.Net, f.rec.MadeT = made, what, made.Sub(s.t0).Seconds()
	s.mu.Unlock()
	if nf.heal == 0 {
		f.back = made
		return
	}
	t := time.NewTimer(time.Until(measure.Add(nf.heal)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-f.ended:
		f.back = time.Now()
		return // left as it is: the run ended first
	}
	err = n.Heal(ctx)
	healed := time.Now()
	f.back = healed
	if err != nil {
		fail(fmt.Errorf("heal: %w", err))
		return
	}
	s.event(healed, result.EventFault, "network healed: "+what+" undone")
	s.mu.Lock()
	f.rec.HealedT = healed.Sub(s.t0).Seconds()
	s.mu.Unlock()
}

// makeNetFault makes nf on n and says what it made.
func makeNetFault(ctx context.Context, n *netns.Net, nf *netFault) (string, error) {
	switch nf.kind {
	case "loss":
		return fmt.Sprintf("%d %% of %s's packets dropped (nftables)", nf.pct, nf.node), n.Loss(ctx, nf.node, nf.pct)
	case "delay":
		return fmt.Sprintf("%s's packets delayed %s (tc netem)", nf.node, nf.delay), n.Delay(ctx, nf.node, nf.delay)
	}
	a, b := nf.sides[0], []string(nil)
	if len(nf.sides) == 2 {
		b = nf.sides[1]
	} else {
		for _, node := range n.Nodes() {
			if !slices.Contains(a, node) {
				b = append(b, node)
			}
		}
	}
	return fmt.Sprintf("partition: %s | %s (nftables)", strings.Join(a, ", "), strings.Join(b, ", ")), n.Partition(ctx, a, b)
}
