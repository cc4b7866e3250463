package session

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/server"
)

// faultPlan is --fault kill-at=D[,node=ROLE]: the managed server (or the
// cluster's node that has ROLE then) killed D into the measure phase and
// restarted on its data; or --fault pause-at=D,for=P: the server's
// processes stopped for P, D into the measure phase.
type faultPlan struct {
	at    time.Duration
	node  string
	pause time.Duration // a pause's length; 0: a kill
	net   *netFault     // a fault of a cluster's network instead (netfault.go)
}

// nodeName is what node= may name: a role (leader, follower) or a node's
// name (primary, r1, node3); the engine finds it when the fault comes.
var nodeName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// faultConfig reads --fault kill-at=D or pause-at=D,for=P.
func (p *Plan) faultConfig(v *knob.Values) error {
	spec := v.Get("fault")
	if spec == "" {
		return nil
	}
	const hint = "write it as --fault kill-at=30s (into the measure phase), kill-at=30s,node=leader, pause-at=30s,for=1s, or partition=node3@10s,heal@25s"
	if nf, at, ok, err := parseNetFault(spec); ok {
		if err != nil {
			return err
		}
		return p.netFaultConfig(v, spec, nf, at)
	}
	kill, node, _ := strings.Cut(strings.TrimSpace(spec), ",")
	d, ok := strings.CutPrefix(kill, "kill-at=")
	var pause time.Duration
	var perr error
	if pd, isPause := strings.CutPrefix(kill, "pause-at="); isPause {
		f, hasFor := strings.CutPrefix(strings.TrimSpace(node), "for=")
		pause, perr = time.ParseDuration(strings.TrimSpace(f))
		if !hasFor || perr != nil || pause <= 0 {
			return knob.Bad(hint, "--fault %q is not pause-at=DURATION,for=DURATION (a length above 0)", spec)
		}
		d, ok, node = pd, true, ""
	}
	at, err := time.ParseDuration(strings.TrimSpace(d))
	role, hasNode := strings.CutPrefix(strings.TrimSpace(node), "node=")
	switch {
	case !ok || err != nil || at < 0 || (node != "" && (!hasNode || !nodeName.MatchString(role))):
		return knob.Bad(hint, "--fault %q is not kill-at=DURATION[,node=NODE], pause-at=DURATION,for=DURATION, partition=, loss= nor delay=", spec)
	case node != "" && !p.bspec.Has(backend.NodeFaults):
		return knob.Bad("drop node=, or use a cluster: --db etcd:managed, galera:managed, or postgres:managed or mariadb:managed with --topology", "--fault node=%s: %s has no nodes to kill", role, p.bspec.Name)
	case !p.bspec.Managed(p.bopts.DB) || p.bspec.Ext != "":
		return knob.Bad("use a server dbgauge starts: --db postgres:managed, mariadb:managed or firebird:managed",
			"--fault kills the server's processes and restarts it, which dbgauge does only to a server it manages, not --db %s", p.config.DB)
	case v.Get("topology") != "" && v.Get("topology") != "none" && role == "":
		return knob.Bad("name the server: --fault kill-at=D,node=primary (or r1, r2); --failover at=D promotes a replica instead", "--fault restarts one server, and --topology makes a cluster")
	case role != "" && p.oneServer(v):
		return knob.Bad("add --topology 1, 2-direct or 2-chain", "--fault node=%s: --topology none makes one server", role)
	case role != "" && p.bspec.Nodes != nil && !slices.Contains(p.bspec.Nodes(v), role):
		return knob.Bad("name one of "+strings.Join(p.bspec.Nodes(v), ", "), "--fault node=%s: the cluster has no such server", role)
	case p.run.Duration > 0 && at >= p.run.Duration:
		return knob.Bad(fmt.Sprintf("give the fault's time less than --duration %s", p.run.Duration), "--fault at %s comes after the measure phase ends", at)
	}
	p.fault = &faultPlan{at: at, node: role, pause: pause}
	return nil
}

// oneServer says whether the run makes a single server of an engine whose
// clusters are made by --topology (postgres:managed, zrs:managed): none.
// An engine without the knob (etcd's members, Galera's nodes) says how
// many servers it makes itself.
func (p *Plan) oneServer(v *knob.Values) bool {
	has := slices.ContainsFunc(p.bspec.Knobs, func(k knob.Spec) bool { return k.Name == server.TopologyKnob.Name })
	return has && v.Get("topology") == "none"
}

// faultRun kills a managed server under load and restarts it (--fault),
// and records the outages every run may see (a server of the user's
// restarted by someone else, --reconnect).
type faultRun struct {
	plan  *faultPlan
	rec   *result.Fault
	ended chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
	kill  time.Time // when the server was killed
	back  time.Time // when it accepted connections again
}

// beforeRun lets the clients wait out the outage: reconnecting for as
// long as --reconnect says, and a minute at least through a --fault.
func (f *faultRun) beforeRun(_ context.Context, s *session, cfg *run.Config) error {
	cfg.Unavailable = max(cfg.Unavailable, s.reconnect)
	if f.plan != nil {
		cfg.Unavailable = max(cfg.Unavailable, time.Minute)
	}
	f.ended = make(chan struct{})
	return nil
}

// phaseBegins arranges the kill as the measure phase begins.
func (f *faultRun) phaseBegins(s *session, p *metrics.Phase) {
	if p.Name != run.Measure || f.plan == nil {
		return
	}
	if f.plan.pause > 0 {
		f.pauseAt(s, p.Start)
		return
	}
	if f.plan.net != nil {
		f.netAt(s, p.Start)
		return
	}
	rc, ok := s.db.(backend.Recoverer)
	if nr, is := s.db.(backend.NodeRecoverer); is && f.plan.node != "" {
		rc, ok = nr.OnNode(f.plan.node), true
	}
	if !ok {
		return
	}
	ctx := context.WithoutCancel(s.runCtx)
	f.arm(s, p.Start, &result.Fault{Kind: "kill", AtSeconds: f.plan.at.Seconds(), Node: f.plan.node}, func() { f.restart(ctx, s, rc) })
}

// arm records rec as the run's fault and calls act at the plan's time into
// the measure phase (which began at measure), unless the phase ends first.
func (f *faultRun) arm(s *session, measure time.Time, rec *result.Fault, act func()) {
	f.rec = rec
	s.mu.Lock()
	s.res.Fault = rec
	s.mu.Unlock()
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		select {
		case <-time.After(time.Until(measure.Add(f.plan.at))):
		case <-f.ended:
			s.mu.Lock()
			rec.Error = "the measure phase ended first"
			s.mu.Unlock()
			return
		}
		act()
	}()
}

// pauseAt arranges the stall: at the plan's time into the measure phase
// (which began at measure), the server's processes are stopped for the
// plan's pause, then let go on; both marked on the time line.
func (f *faultRun) pauseAt(s *session, measure time.Time) {
	srv, ok := s.db.(backend.Server)
	if !ok {
		return
	}
	pid := srv.ServerInfo().PID
	f.arm(s, measure, &result.Fault{Kind: "pause", AtSeconds: f.plan.at.Seconds(), PauseSeconds: f.plan.pause.Seconds()}, func() { f.stall(s, pid) })
}

// stall stops the server's processes for the plan's pause, then lets them
// go on: at once if the run ends first, never left stopped.
func (f *faultRun) stall(s *session, pid int) {
	resume, err := server.StopTree(pid)
	stopped := time.Now()
	if err != nil {
		s.mu.Lock()
		f.rec.Error = err.Error()
		s.mu.Unlock()
		return
	}
	s.event(stopped, result.EventFault, fmt.Sprintf("server stopped (SIGSTOP to its processes) for %s", f.plan.pause))
	t := time.NewTimer(f.plan.pause)
	select {
	case <-t.C:
	case <-f.ended:
		t.Stop()
	}
	resume()
	resumed := time.Now()
	s.event(resumed, result.EventFault, "server let go on (SIGCONT)")
	s.mu.Lock()
	f.kill = stopped
	f.rec.StopT, f.rec.ResumeT = stopped.Sub(s.t0).Seconds(), resumed.Sub(s.t0).Seconds()
	s.mu.Unlock()
}

// restart kills the server and starts it again on its data, marking both
// on the time line; what the server logs meanwhile is dbgauge's doing.
func (f *faultRun) restart(ctx context.Context, s *session, rc backend.Recoverer) {
	kill, back, err := s.crashOnPurpose(ctx, rc, func(kill time.Time) {
		s.event(kill, result.EventFault, "server killed (SIGKILL to its process group)")
	})
	s.mu.Lock()
	f.kill, f.back = kill, back
	f.rec.KillT, f.rec.BackT, f.rec.RecoverySeconds = kill.Sub(s.t0).Seconds(), back.Sub(s.t0).Seconds(), back.Sub(kill).Seconds()
	if err != nil {
		f.rec.Error = "the server did not come back: " + err.Error()
	}
	s.mu.Unlock()
	if err != nil {
		s.event(back, result.EventFault, "the server did not come back: "+err.Error())
		return
	}
	if srv, ok := s.db.(backend.Server); ok {
		s.mu.Lock()
		f.rec.RecoveryNote = srv.ServerInfo().RecoveryNote
		s.mu.Unlock()
	}
	s.event(back, result.EventFault, fmt.Sprintf("server back after crash recovery: it accepts connections %.2f s after the kill", back.Sub(kill).Seconds()))
}

// runEnded waits for a restart under way and records the run's outages.
func (f *faultRun) runEnded(_ context.Context, s *session, out *run.Outcome, _ time.Time) {
	f.finish()
	if out == nil {
		return
	}
	t := func(at time.Time) float64 { return at.Sub(s.t0).Seconds() }
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range out.Outages {
		r := result.Outage{StartT: t(o.Start), Failed: o.Failed}
		if !o.End.IsZero() {
			r.EndT, r.Seconds = t(o.End), o.End.Sub(o.Start).Seconds()
		}
		s.res.Outages = append(s.res.Outages, r)
	}
	if f.rec != nil && !f.kill.IsZero() { // whether or not the run then passes its checks
		at := f.rec.KillT
		switch f.rec.Kind {
		case "pause":
			at = f.rec.StopT
		case "partition", "loss", "delay":
			at = f.rec.MadeT
		}
		f.rec.RateBefore, f.rec.RateAfter = rates(s.res.Series, at, s.res.Outages)
	}
}

// closing ends a kill not yet made when the session stops first.
func (f *faultRun) closing(*session) { f.finish() }

func (f *faultRun) finish() {
	if f.ended == nil {
		return
	}
	f.once.Do(func() {
		close(f.ended)
		f.wg.Wait()
	})
}

// check reads what the kill cost against the ledger: the downtime between
// acknowledgements and the acknowledged commits the restarted server lacks.
func (f *faultRun) check(ctx context.Context, s *session, db backend.DB) {
	rec := f.rec
	if rec == nil || f.kill.IsZero() {
		return
	}
	if h, ok := db.(backend.Healther); ok {
		f.health(ctx, s, h)
	}
	if rec.Kind == "pause" {
		return // a pause loses nothing to check: its stall is in the latencies
	}
	acked, v, ok, err := s.heldNow(ctx, db)
	if !ok {
		return
	}
	rec.Ledger = true
	// Around the middle of the outage: a commit the server acknowledged as
	// it was killed can be marked a moment after the kill.
	rec.LastAckT, rec.FirstAckT, rec.DowntimeSeconds = s.ackGap(f.kill.Add(f.back.Sub(f.kill) / 2))
	if err != nil {
		rec.Error = "the restarted server's rows cannot be read: " + err.Error()
		return
	}
	rec.Acknowledged = acked
	rec.Lost, rec.LostSample, rec.Unknown, rec.Phantom = v.Lost, v.LostSample, v.Unknown, v.Phantom
	s.summarize()
}

// health records which of a cluster's nodes accept writes after the
// fault, and checks that they are one part of it: no split brain.
func (f *faultRun) health(ctx context.Context, s *session, h backend.Healther) {
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ch, err := h.Health(hctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	f.rec.Writable, f.rec.Nodes, f.rec.SplitBrain = ch.Writable, ch.Following, ch.SplitBrain()
	if err != nil && len(ch.Following) == 0 {
		return
	}
	s.res.Checks = append(s.res.Checks, result.Check{Name: "fault_split_brain", OK: !f.rec.SplitBrain,
		Detail: fmt.Sprintf("nodes accepting writes after the fault: %v", ch.Writable)})
}

// rates returns the measure phase's rate before the kill at killT and
// after the outage that followed it (from its end; from the kill when the
// clients saw none), from the whole seconds of the series.
func rates(series []result.Second, killT float64, outages []result.Outage) (before, after float64) {
	from := killT
	for _, o := range outages {
		if o.EndT > killT && o.StartT <= killT+5 {
			from = o.EndT
			break
		}
	}
	var nb, na int64
	var sb, sa float64
	for _, p := range series {
		if p.Phase != run.Measure || p.Partial || p.Dt <= 0 {
			continue
		}
		switch start := p.T - p.Dt; {
		case p.T <= killT:
			nb, sb = nb+p.OK, sb+p.Dt
		case start >= from:
			na, sa = na+p.OK, sa+p.Dt
		}
	}
	if sb > 0 {
		before = float64(nb) / sb
	}
	if sa > 0 {
		after = float64(na) / sa
	}
	return before, after
}
