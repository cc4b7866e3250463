package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// failoverPlan is --failover at=D[,pause=D].
type failoverPlan struct {
	at    time.Duration // into the measure phase: the primary is killed
	pause time.Duration // the primary is cut off from its replicas this long before
}

// failoverConfig reads --failover at=D[,pause=D].
func (p *Plan) failoverConfig(v *knob.Values) error {
	spec := v.Get("failover")
	if spec == "" {
		return nil
	}
	const hint = "write it as --failover at=20s, or at=20s,pause=1s"
	t, err := moments("failover", spec, hint, "pause")
	if err != nil {
		return err
	}
	f := &failoverPlan{at: t["at"], pause: t["pause"]}
	switch topo := v.Get("topology"); {
	case topo == "" || topo == "none":
		return knob.Bad("add --topology 1, 2-direct or 2-chain (--db postgres:managed, mariadb:managed or zrs:managed)", "--failover needs a replica to promote")
	case f.pause > f.at:
		return knob.Bad("give pause= at most at=", "--failover pause=%s begins before the measure phase", f.pause)
	case p.run.Duration > 0 && f.at >= p.run.Duration:
		return knob.Bad(fmt.Sprintf("give at= less than --duration %s", p.run.Duration), "--failover at=%s comes after the measure phase ends", f.at)
	}
	if _, ok := p.w.(workload.Ledgered); !ok {
		return knob.Bad("use insert or nms, whose commits dbgauge can account for", "--failover counts the acknowledged commits a failover loses, which %s cannot tell", p.wspec.Name)
	}
	p.failover = f
	return nil
}

// clusterRun follows a cluster through the run: its replicas' lag each
// second and, with --failover, the failover's steps.
type clusterRun struct {
	c        backend.Cluster
	rec      *result.Cluster
	plan     *failoverPlan
	lag      map[string]float64 // the latest sample; replaced, never changed
	ended    chan struct{}
	once     sync.Once // ends it once: after the run, or on the way out
	wg       sync.WaitGroup
	kill     time.Time // when the primary was gone
	promoted time.Time // when a replica accepted writes
}

// beforeRun starts following a managed primary's replicas (--topology),
// sends a read-only workload to them (--read-from replicas), and with
// --failover lets the clients wait out the outage.
func (cr *clusterRun) beforeRun(ctx context.Context, s *session, cfg *run.Config) error {
	if c, ok := s.db.(backend.Cluster); ok {
		s.startCluster(context.WithoutCancel(ctx), cr, c)
	}
	if rr, ok := s.db.(backend.ReadRouter); ok {
		// The plan made sure that a workload sent to the replicas only reads.
		if _, err := rr.RouteReads(); err != nil {
			return err
		}
	}
	if cr.plan != nil {
		// A promotion can take PostgreSQL's wal_retrieve_retry_interval
		// (5 s) and more: the clients keep trying meanwhile.
		cfg.Unavailable = time.Minute
	}
	return nil
}

// phaseBegins arranges the failover as the measure phase begins.
func (cr *clusterRun) phaseBegins(s *session, p *metrics.Phase) {
	if p.Name == run.Measure && cr.plan != nil && cr.c != nil {
		s.startFailover(context.WithoutCancel(s.runCtx), cr, p.Start)
	}
}

// second puts the replicas' latest lag into the second's point.
func (cr *clusterRun) second(s *session, _ *metrics.Phase, _ *metrics.Interval, sec *result.Second) {
	if cr.c == nil {
		return
	}
	s.mu.Lock()
	sec.Lag = cr.lag
	s.mu.Unlock()
}

func (cr *clusterRun) runEnded(context.Context, *session, *run.Outcome, time.Time) { cr.finish() }

// closing ends the sampling when the session stops before the run did.
func (cr *clusterRun) closing(*session) { cr.finish() }

func (cr *clusterRun) check(ctx context.Context, s *session, db backend.DB) {
	if cr.c != nil {
		s.failoverVerdict(ctx, cr, db)
	}
}

// startCluster records the cluster and samples its lag each second until
// the run ends.
func (s *session) startCluster(ctx context.Context, cr *clusterRun, c backend.Cluster) {
	cr.c, cr.ended = c, make(chan struct{})
	topology, replication := c.Topology()
	cr.rec = &result.Cluster{Topology: topology, Replication: replication}
	for _, n := range c.Nodes() {
		cr.rec.Nodes = append(cr.rec.Nodes, result.Node(n))
	}
	s.res.Cluster = cr.rec
	cr.wg.Add(1)
	go func() {
		defer cr.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			sctx, cancel := context.WithTimeout(ctx, 900*time.Millisecond)
			m, _ := c.Lag(sctx) // a server being killed answers no more: what answered is kept
			cancel()
			s.mu.Lock()
			cr.lag = m
			s.mu.Unlock()
			select {
			case <-t.C:
			case <-cr.ended:
				return
			}
		}
	}()
}

// startFailover arranges for the primary to be killed p.at into the
// measure phase, which begins now, and a replica promoted.
func (s *session) startFailover(ctx context.Context, cr *clusterRun, measure time.Time) {
	p := cr.plan
	rec := &result.Failover{AtSeconds: p.at.Seconds(), PauseSeconds: p.pause.Seconds()}
	s.mu.Lock()
	cr.rec.Failover = rec
	s.mu.Unlock()
	cr.wg.Add(1)
	go func() {
		defer cr.wg.Done()
		select {
		case <-time.After(time.Until(measure.Add(p.at - p.pause))):
		case <-cr.ended:
			s.mu.Lock()
			rec.Error = "the measure phase ended first"
			s.mu.Unlock()
			return
		}
		if err := s.failoverSteps(ctx, cr, rec); err != nil {
			s.mu.Lock()
			rec.Error = err.Error()
			s.mu.Unlock()
			s.event(time.Now(), result.EventFailover, "failed: "+err.Error())
		}
	}()
}

// failoverSteps cuts the primary off (to make its replicas lag), kills it,
// promotes the most advanced replica and points the others at it, marking
// each step on the time line.
func (s *session) failoverSteps(ctx context.Context, cr *clusterRun, rec *result.Failover) error {
	t := func(at time.Time) float64 { return at.Sub(s.t0).Seconds() }
	undo := func() {}
	if cr.plan.pause > 0 {
		u, how, err := cr.c.IsolatePrimary(ctx)
		if err != nil {
			return err
		}
		now := time.Now()
		s.mu.Lock()
		rec.PausedT = t(now)
		s.mu.Unlock()
		s.event(now, result.EventFailover, fmt.Sprintf("%s, for %s", how, cr.plan.pause))
		undo = u
		pause := time.NewTimer(cr.plan.pause)
		defer pause.Stop()
		select {
		case <-pause.C:
		case <-cr.ended:
			// The run ended (an interrupt, say) while the replicas lagged:
			// no failover then, and no wait for one.
			undo()
			return errors.New("the measure phase ended while the primary was cut off: it was not killed")
		}
	}
	kill := time.Now()
	err := cr.c.KillPrimary(ctx)
	gone := time.Now()
	undo()
	s.mu.Lock()
	cr.kill = gone
	rec.KillT, rec.GoneT, rec.DetectSeconds = t(kill), t(gone), gone.Sub(kill).Seconds()
	s.mu.Unlock()
	s.event(kill, result.EventFailover, "primary killed (SIGKILL to its process group)")
	if err != nil {
		return err
	}
	name, err := cr.c.Promote(ctx)
	promoted := time.Now()
	if err != nil {
		return err
	}
	s.mu.Lock()
	cr.promoted = promoted
	rec.Promoted, rec.PromotedT, rec.PromoteSeconds = name, t(promoted), promoted.Sub(gone).Seconds()
	s.mu.Unlock()
	s.event(promoted, result.EventFailover, name+" promoted: it accepts writes")
	if err := cr.c.Repoint(ctx); err != nil {
		return err
	}
	now := time.Now()
	s.mu.Lock()
	rec.RepointedT = t(now)
	s.mu.Unlock()
	return nil
}

// finish stops the sampling and waits for a failover under way.
func (cr *clusterRun) finish() {
	if cr.c == nil {
		return
	}
	cr.once.Do(func() {
		close(cr.ended)
		cr.wg.Wait()
	})
}

// failoverVerdict reads, after the run, what the failover cost: the write
// outage and the reconnection from the ledger, the acknowledged commits the
// new primary lacks, and whether exactly one server accepts writes.
func (s *session) failoverVerdict(ctx context.Context, cr *clusterRun, db backend.DB) {
	if h, err := cr.c.Health(ctx); err == nil || len(h.Writable) > 0 {
		cr.rec.Writable, cr.rec.Following = h.Writable, h.Following
	}
	rec := cr.rec.Failover
	if rec == nil || cr.kill.IsZero() {
		return
	}
	rec.SplitBrain = len(cr.rec.Writable) > 1
	// The outage is the gap between acknowledgements around the middle of
	// the failover (the primary gone, the replica promoted): a commit the
	// old primary acknowledged as it died can be marked a moment after it
	// was gone, and one the new primary acknowledged a moment before the
	// promotion call returned.
	mid := cr.kill
	if !cr.promoted.IsZero() {
		mid = cr.kill.Add(cr.promoted.Sub(cr.kill) / 2)
	}
	rec.LastAckT, rec.FirstAckT, rec.DowntimeSeconds = s.ackGap(mid)
	if rec.FirstAckT > 0 && rec.PromotedT > 0 {
		rec.ReconnectSeconds = max(rec.FirstAckT-rec.PromotedT, 0)
	}
	acked, v, ok, err := s.heldNow(ctx, db)
	if !ok {
		return
	}
	if err != nil {
		rec.Error = "the new primary's rows cannot be read: " + err.Error()
		return
	}
	rec.Acknowledged = acked
	rec.Lost, rec.LostSample, rec.Unknown, rec.Phantom = v.Lost, v.LostSample, v.Unknown, v.Phantom
	s.res.Checks = append(s.res.Checks, result.Check{Name: "failover_split_brain", OK: !rec.SplitBrain,
		Detail: fmt.Sprintf("servers accepting writes after the failover: %v", cr.rec.Writable)})
	s.summarize()
}
