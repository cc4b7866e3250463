// Package openmetrics serves a run as it goes to the tools that watch
// services (Prometheus, Grafana, VictoriaMetrics): --metrics-addr. It is
// built on the official Prometheus Go client, whose handler speaks the
// Prometheus text format and OpenMetrics to whoever asks for it.
//
// What it serves is a copy of the live result (Update, once a second):
// the units of each phase by outcome and the failures by error class as
// counters, the units' latencies as histograms (from the phase's own
// HdrHistogram, so the buckets count exactly what result.json counts), the
// phase the run is in, and the engine's counters as dbgauge read them at
// the measure phase's two ends (it reads none in between, so as not to add
// queries to the engine it measures). A scrape reads the copy; it never
// touches the run.
package openmetrics

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
)

// States are the values of dbgauge_phase's phase label, in order.
var States = []string{"starting", "warmup", "measure", "done"}

// Buckets are the upper bounds of the latency histograms' buckets, in
// seconds: 100 µs to 60 s.
var Buckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Server serves one run's figures on http://ADDR/metrics. Its methods are
// safe for concurrent use.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}

	mu    sync.Mutex
	state string
	start time.Time
	snap  *result.Result // the figures as of the last Update
}

// Listen binds addr (HOST:PORT; PORT 0 picks a free one) and serves on it.
// A port that cannot be bound is an error now, before the run starts.
func Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, done: make(chan struct{}), state: States[0], start: time.Now()}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{s})
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return // the listener failed: scrapes fail, the run goes on
		}
	}()
	return s, nil
}

// Addr is the address served, its port resolved.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Update takes a copy of r's live figures; state is the phase the run is
// in (a phase's name, or "done"). Call it from the goroutine that owns r
// while r does not change.
func (s *Server) Update(r *result.Result, state string) {
	c := *r
	c.Phases = append([]result.Phase(nil), r.Phases...)
	c.Series = nil
	if r.Stats != nil {
		st := *r.Stats
		c.Stats = &st
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snap, s.state = &c, state
}

// Close stops serving, waiting at most a few seconds for a scrape in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	return err
}

// collector turns the last copy into Prometheus metrics at each scrape.
type collector struct{ s *Server }

var (
	descInfo     = prometheus.NewDesc("dbgauge_run_info", "The run served: its workload, engine and result folder.", []string{"workload", "backend", "engine", "result"}, nil)
	descPhase    = prometheus.NewDesc("dbgauge_phase", "1 for the phase the run is in (starting, warmup, measure, done), 0 for the others.", []string{"phase"}, nil)
	descElapsed  = prometheus.NewDesc("dbgauge_elapsed_seconds", "Seconds since dbgauge began serving this run.", nil, nil)
	descUnits    = prometheus.NewDesc("dbgauge_units_total", "Units of work that ended, by phase and outcome: ok (the throughput), failed (after retries), nothing (found no work to do), lost (done, then rolled back with their group).", []string{"phase", "outcome"}, nil)
	descRetries  = prometheus.NewDesc("dbgauge_retries_total", "Retries of units after a retryable error, by phase.", []string{"phase"}, nil)
	descFailures = prometheus.NewDesc("dbgauge_failures_total", "Units that failed after retries, by phase and error class.", []string{"phase", "class"}, nil)
	descLatency  = prometheus.NewDesc("dbgauge_latency_seconds", "Latency of the units that succeeded, by phase and unit kind (\"all\": every kind).", []string{"phase", "kind"}, nil)
	descEngine   = prometheus.NewDesc("dbgauge_engine_counter", "The engine's own counters as dbgauge read them when the measure phase began (at=measure_start) and after it ended (at=measure_end).", []string{"counter", "at"}, nil)
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descInfo, descPhase, descElapsed, descUnits, descRetries, descFailures, descLatency, descEngine} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	c.s.mu.Lock()
	r, state, start := c.s.snap, c.s.state, c.s.start
	c.s.mu.Unlock()
	for _, st := range States {
		v := 0.0
		if st == state {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(descPhase, prometheus.GaugeValue, v, st)
	}
	ch <- prometheus.MustNewConstMetric(descElapsed, prometheus.GaugeValue, time.Since(start).Seconds())
	if r == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(descInfo, prometheus.GaugeValue, 1, r.Config.Workload, r.Config.Backend, r.Engine.Name+" "+r.Engine.Version, r.ID)
	for i := range r.Phases {
		p := &r.Phases[i]
		for _, o := range []struct {
			name string
			n    int64
		}{{"ok", p.OK}, {"failed", p.Failed}, {"nothing", p.Nothing}, {"lost", p.Lost}} {
			ch <- prometheus.MustNewConstMetric(descUnits, prometheus.CounterValue, float64(o.n), p.Name, o.name)
		}
		ch <- prometheus.MustNewConstMetric(descRetries, prometheus.CounterValue, float64(p.Retries), p.Name)
		byClass := map[string]int64{}
		for _, f := range p.Failures {
			byClass[f.Class] += f.Count
		}
		for _, class := range slices.Sorted(maps.Keys(byClass)) {
			ch <- prometheus.MustNewConstMetric(descFailures, prometheus.CounterValue, float64(byClass[class]), p.Name, class)
		}
		latency(ch, p.Name, "all", p.All)
		for _, u := range p.Units {
			latency(ch, p.Name, u.Name, u)
		}
	}
	if r.Stats != nil {
		for at, m := range map[string]map[string]int64{"measure_start": r.Stats.Before, "measure_end": r.Stats.After} {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				ch <- prometheus.MustNewConstMetric(descEngine, prometheus.GaugeValue, float64(m[k]), k, at)
			}
		}
	}
}

// latency sends the histogram of a phase's latencies, from its HdrHistogram.
func latency(ch chan<- prometheus.Metric, phase, kind string, l result.Latency) {
	limits := make([]int64, len(Buckets))
	for i, b := range Buckets {
		limits[i] = int64(b * 1e6)
	}
	buckets := make(map[float64]uint64, len(Buckets))
	var count uint64
	sum := 0.0
	if l.Count > 0 && l.Hist != "" {
		h, err := metrics.Decode(l)
		if err != nil {
			return // a histogram that does not decode: no series rather than a wrong one
		}
		for i, n := range metrics.AtOrBelow(h, limits) {
			buckets[Buckets[i]] = uint64(n)
		}
		count, sum = uint64(h.TotalCount()), l.MeanUs*float64(h.TotalCount())/1e6
	} else {
		for _, b := range Buckets {
			buckets[b] = 0
		}
	}
	ch <- prometheus.MustNewConstHistogram(descLatency, count, sum, buckets, phase, kind)
}
