package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/sqlkv"
	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/hostinfo"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/verdict"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Observer follows a session. Its methods are called from one goroutine at a
// time and must return quickly.
type Observer interface {
	// Note is a line about what the session is doing ("loading…").
	Note(msg string)
	// Started is called once the engine is open and the data loaded.
	Started(res *result.Result)
	// Second is called when a second of the series closes.
	Second(res *result.Result, s result.Second)
}

// ErrRunFailed wraps the error that stopped a run after it had begun; the
// result says what was measured until then.
var ErrRunFailed = errors.New("run failed")

// Execute runs the plan. stop ends the run cleanly when closed; canceling ctx
// abandons the units in flight. The result is returned whenever a result
// folder was written, even with an error.
func (p *Plan) Execute(ctx context.Context, stop <-chan struct{}, obs Observer) (*result.Result, error) {
	w, err := createWriter(p.results, p.id, p.wspec.Name, p.bspec.Name)
	if err != nil {
		return nil, err
	}
	s := &session{Plan: p, writer: w, obs: obs}
	s.res = &result.Result{
		Schema: result.Schema, ID: filepath.Base(w.Dir()), Status: result.Running,
		Command: p.args, Started: time.Now().UTC(), Config: p.config,
		Phases: []result.Phase{}, Series: []result.Second{}, Checks: []result.Check{}, Verdicts: []result.Verdict{},
	}
	s.environment()
	if err := s.save(); err != nil {
		_ = os.RemoveAll(w.Dir())
		return nil, knob.Bad("pass --results DIR with a folder you can write", "cannot write %s: %v", w.Dir(), err)
	}
	err = s.execute(ctx, stop)
	var bad *knob.Error
	if errors.As(err, &bad) && !s.measured {
		// Bad input found by the engine (an unknown setting): nothing was
		// measured, so nothing is left behind.
		_ = os.RemoveAll(w.Dir())
		return nil, err
	}
	if err != nil {
		s.res.Status, s.res.Reason = result.Failed, err.Error()
		err = fmt.Errorf("%w: %w", ErrRunFailed, err)
	}
	now := time.Now().UTC()
	s.res.Ended = &now
	if serr := s.save(); serr != nil && err == nil {
		err = fmt.Errorf("%w: save result: %w", ErrRunFailed, serr)
	}
	return s.res, err
}

// Dir returns the folder of a result written by Execute.
func Dir(root string, res *result.Result) string { return filepath.Join(root, res.ID) }

func createWriter(root, id, wl, be string) (*result.Writer, error) {
	if id != "" {
		w, err := result.Create(root, id)
		if err != nil {
			return nil, knob.Bad("pass --results DIR with a folder you can write", "cannot create the result folder %s: %v", filepath.Join(root, id), err)
		}
		return w, nil
	}
	stamp := time.Now().Format("20060102-150405")
	var err error
	for i := 1; i < 100; i++ {
		id := stamp + "-" + wl + "-" + be
		if i > 1 {
			id += fmt.Sprintf("-%d", i)
		}
		var w *result.Writer
		if w, err = result.Create(root, id); err == nil {
			return w, nil
		}
		if !errors.Is(err, os.ErrExist) {
			break
		}
	}
	return nil, knob.Bad("pass --results DIR with a folder you can write", "cannot create a result folder in %s: %v", root, err)
}

type session struct {
	*Plan
	writer    *result.Writer
	res       *result.Result
	obs       Observer
	db        backend.DB
	measured  bool             // the clock has started
	before    map[string]int64 // engine counters when the measure phase began
	storage   *result.Storage  // sizes when the measure phase began
	harness   *harnessProbe    // dbgauge's own CPU and memory from the measure phase on
	mu        sync.Mutex
	acc       *span     // the --interval being gathered, when longer than a second
	unitLog   *unitLog  // --log-units
	t0        time.Time // when the first phase began: events' time line
	tail      *logTail  // a managed server's log, followed during the run
	runCtx    context.Context
	runDone   chan struct{} // closed when the clients have stopped
	watchDone chan struct{} // closed when watch no longer looks at the server
	bk        *backupRun    // --backup
	cl        *clusterRun   // a managed primary's replicas (--topology)
	recovery  struct {      // the crash-recovery measurement after the run
		seconds  float64
		note     string
		from, to int64 // the server log's bytes the deliberate crash wrote
	}
}

// span gathers the one-second intervals of a longer --interval, merging their
// histograms so that its percentiles are exact.
type span struct {
	phase          string
	start, end     time.Time
	ok, fail, retr int64
	nothing        int64
	hist           *hdrhistogram.Histogram
	failedBy       map[string]int64
	retriedBy      map[string]int64
}

// addTo adds the counts of src into dst, making it when needed.
func addTo(dst, src map[string]int64) map[string]int64 {
	for k, v := range src {
		if dst == nil {
			dst = map[string]int64{}
		}
		dst[k] += v
	}
	return dst
}

// save writes the result. Interval, which holds s.mu, writes it itself.
func (s *session) save() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writer.Save(s.res)
}

func (s *session) environment() {
	s.res.Environment = hostinfo.Collect()
	s.describeData(s.writer.Dir())
}

// describeData records the device under folder as the data folder.
func (s *session) describeData(folder string) {
	dev, err := disk.Describe(folder)
	if err != nil {
		s.res.Environment.Problems = append(s.res.Environment.Problems, "data folder: "+err.Error())
	}
	s.res.Environment.DataDir = dev
}

func (s *session) execute(ctx context.Context, stop <-chan struct{}) error {
	s.bopts.Dir = s.writer.Dir()
	if s.dataDir != "" {
		dir, err := s.makeDataDir()
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir) // after the engine has closed (defers run last first)
		s.bopts.DataDir = dir
	}
	s.res.Environment.PageCache = "not dropped: a single run (each cell of a matrix drops it, as root)"
	if s.dropCache {
		s.res.Environment.PageCache = disk.DropPageCache()
	}
	db, err := s.bspec.Open(ctx, s.bopts)
	if err != nil {
		return err
	}
	s.db = db
	defer s.close()
	if srv, ok := db.(backend.Server); ok {
		info := result.Server(srv.ServerInfo())
		s.res.Server = &info
		if info.Note != "" {
			s.obs.Note(info.Note)
		}
		s.tail = newLogTail(srv.LogRules(), info)
	}
	eng, err := db.Engine(ctx)
	if err != nil {
		return fmt.Errorf("read back %s settings: %w", s.bspec.Name, err)
	}
	s.res.Engine = result.Engine(eng)
	if l, ok := db.(backend.Limiter); ok {
		ro, _ := s.w.(workload.ReadOnly)
		notes, err := l.Limits(ctx, s.bopts.Conns, ro == nil || !ro.ReadOnly())
		if err != nil {
			return err
		}
		s.res.Limits = notes
		for _, n := range notes {
			s.obs.Note(n)
		}
	}
	if s.bopts.ServerMemory > 0 && s.bopts.CacheBytes == 0 {
		// The engine's default cache, known only now.
		if err := tooSmall(knob.FormatSize(s.bopts.ServerMemory), s.bopts.ServerMemory, eng.CacheBytes, "the engine's default"); err != nil {
			return err
		}
	}
	if eng.Path == "" {
		s.res.Environment.DataDir = result.Device{}
		s.res.Environment.Problems = append(s.res.Environment.Problems,
			"data folder: the engine keeps its data on a server dbgauge does not manage; its device is not described and no flush ceiling is measured")
	} else {
		s.describeData(filepath.Dir(eng.Path))
		if s.ceiling {
			s.probeCeiling(ctx, filepath.Dir(eng.Path))
		}
	}
	if sq, ok := db.(backend.SQLDB); ok && s.api == backend.KV {
		db = sqlkv.Wrap(sq)
	}
	if err := s.save(); err != nil {
		return err
	}

	if err := s.sizeData(ctx); err != nil { // --dataset, from the cache read back
		return err
	}
	s.obs.Note(fmt.Sprintf("loading %s data", s.wspec.Name))
	t := time.Now()
	ds, err := s.w.Load(ctx, db)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	s.res.Dataset = result.Dataset{Reused: ds.Reused, Seconds: time.Since(t).Seconds(), Facts: ds.Facts, Target: s.res.Dataset.Target, EmptyBytes: s.res.Dataset.EmptyBytes}
	s.measureDataset(ctx)
	if err := s.markExisting(ctx, db); err != nil {
		return err
	}
	if cs, ok := s.w.(workload.ColdStarter); ok && cs.ColdStart() {
		if db, err = s.clearCaches(ctx, db); err != nil {
			return err
		}
	}
	if s.backup != nil {
		s.bk = newBackupRun(s.backup)
		s.res.Backup = s.bk.rec
	}
	if c, ok := s.db.(backend.Cluster); ok {
		s.startCluster(context.WithoutCancel(ctx), c)
		defer s.finishCluster()
	}
	if rr, ok := s.db.(backend.ReadRouter); ok {
		// The plan made sure that a workload sent to the replicas only reads.
		if _, err := rr.RouteReads(); err != nil {
			return err
		}
	}
	s.runCtx = ctx
	s.obs.Started(s.res)

	s.measured = true
	open := func(ctx context.Context, id int, rng *rand.Rand) (workload.Client, error) {
		return s.w.Client(ctx, db, id, rng)
	}
	s.runDone = make(chan struct{})
	stop, died := s.watch(stop)
	cfg := s.run
	if s.failover != nil {
		// A promotion can take PostgreSQL's wal_retrieve_retry_interval
		// (5 s) and more: the clients keep trying meanwhile.
		cfg.Unavailable = time.Minute
	}
	if s.logUnits {
		ul, err := newUnitLog(s.writer.Dir(), s.w.Shape().Kinds(), time.Now())
		if err != nil {
			return fmt.Errorf("--log-units: %w", err)
		}
		s.unitLog, cfg.Log = ul, ul.Unit
		s.res.UnitLog = UnitLogFile
		defer func() {
			if err := ul.Close(); err != nil {
				s.obs.Note("closing " + UnitLogFile + " failed: " + err.Error())
			}
		}()
	}
	out, err := run.Run(ctx, cfg, s.w.Shape(), open, stop, s)
	runEnd := time.Now()
	if err == nil && s.harness != nil && len(out.Phases) > 0 {
		ok := out.Phases[len(out.Phases)-1].OK()
		h := s.harness.finish(runEnd, ok, s.run.Clients, s.GCPercent(), s.res.Server == nil && s.res.Engine.Path != "", s.harnessCPUs != nil)
		sc := s.harness.server(runEnd, ok)
		verdict.Harness(h, sc, s.res.Config.Unit)
		s.mu.Lock()
		s.res.Harness, s.res.ServerCPU = h, sc
		s.mu.Unlock()
	}
	close(s.runDone)
	if s.watchDone != nil {
		<-s.watchDone // before anything restarts the server
	}
	s.followLog()
	if s.bk != nil {
		s.finishBackup()
	}
	if s.cl != nil {
		s.finishCluster()
	}
	if err != nil {
		return err
	}
	if len(out.Phases) > 0 {
		s.mu.Lock()
		s.flushSpan(out.Phases[len(out.Phases)-1]) // the last, shorter --interval
		s.mu.Unlock()
	}
	if err := died(); err != nil {
		s.finishPhases(out.Phases)
		return fmt.Errorf("the server died during the run: %w", err)
	}
	s.finishPhases(out.Phases)
	if m := s.res.Phase("measure"); s.storage != nil && m != nil && m.Seconds > 0 {
		s.storage = s.sizes(s.storage)
		s.storage.MeasuredSeconds = m.Seconds
		s.res.Storage = s.storage
	}
	after := s.stats(ctx)
	if s.before != nil && after != nil {
		s.res.Stats = &result.Stats{Before: s.before, After: after, Delta: delta(s.before, after)}
		s.summarize()
	}
	switch out.Reason {
	case run.Completed:
		s.res.Status = result.Completed
	default:
		s.res.Status, s.res.Reason = result.Interrupted, string(out.Reason)
	}
	if out.Err != nil {
		return fmt.Errorf("stopped by a fatal error: %w", out.Err)
	}
	if out.Reason != run.Canceled {
		if err := s.check(context.WithoutCancel(ctx), db); err != nil {
			return err
		}
		if cp, ok := s.w.(workload.Checkpointed); ok {
			s.checkpoints(cp.Checkpoints())
		}
		if s.cl != nil {
			s.failoverVerdict(context.WithoutCancel(ctx), db)
		}
	}
	if out.Reason == run.Completed {
		// Restores and the crash-recovery test take a while: not after Ctrl-C.
		if m := s.res.Phase(run.Measure); s.bk != nil && m != nil {
			s.restores(context.WithoutCancel(ctx), m.Start, runEnd)
		}
		s.crashRecovery(context.WithoutCancel(ctx))
	} else if s.bk != nil && s.bk.plan.restore {
		s.bk.rec.Note = strings.TrimPrefix(s.bk.rec.Note+"; not restored: the run was interrupted", "; ")
	}
	s.judge()
	verdict.Durability(s.res)
	return nil
}

// makeDataDir makes the run's own folder inside --data-dir, which another
// account (a managed server's) may reach: the server makes its data folder
// inside it, owned by that account.
func (s *session) makeDataDir() (string, error) {
	dir, err := os.MkdirTemp(s.dataDir, "dbgauge-"+filepath.Base(s.writer.Dir())+"-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		return "", knob.Bad("give a folder you can write with --data-dir", "cannot make a folder in --data-dir %s: %v", s.dataDir, err)
	}
	return dir, nil
}

// markExisting tells the ledgers the ids the database holds before the run.
func (s *session) markExisting(ctx context.Context, db backend.DB) error {
	l, ok := s.w.(workload.Ledgered)
	if !ok || s.led == nil {
		return nil
	}
	ids, err := l.Present(ctx, db)
	if err != nil {
		return fmt.Errorf("read the ids the database holds before the run: %w", err)
	}
	list := make([]int64, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	s.led.Mark(workload.Existing, list)
	return nil
}

// crashRecovery kills a managed server after the run and times its restart
// (--crash-recovery): from the kill to the first accepted connection.
func (s *session) crashRecovery(ctx context.Context) {
	r, ok := s.db.(backend.Recoverer)
	if !ok {
		return
	}
	if !s.recoveryOn {
		s.recovery.note = "--crash-recovery=false"
		return
	}
	if s.cl != nil && s.cl.rec.Failover != nil {
		s.recovery.note = "the primary was failed over"
		return
	}
	s.obs.Note("killing the server (SIGKILL) and timing its crash recovery")
	logPath := ""
	if s.res.Server != nil {
		logPath = s.res.Server.Log
	}
	s.recovery.from = backend.FileSize(logPath)
	t := time.Now()
	err := r.CrashRestart(ctx)
	s.recovery.to = backend.FileSize(logPath)
	if err != nil {
		s.recovery.note = "the server did not come back: " + err.Error()
		s.res.Checks = append(s.res.Checks, result.Check{Name: "crash_recovery", Detail: s.recovery.note})
		s.summarize()
		return
	}
	s.recovery.seconds = time.Since(t).Seconds()
}

// probeCeiling measures (or recalls) the flush ceiling of the device under
// the engine's data folder, before any load makes the disk busy.
func (s *session) probeCeiling(ctx context.Context, folder string) {
	s.obs.Note("measuring the flush ceiling of " + folder + " (once a day per device)")
	m, err := disk.CeilingOf(ctx, folder)
	if err != nil {
		s.obs.Note("flush ceiling not measured: " + err.Error())
		return
	}
	d := &result.Durability{Folder: folder, Ceiling: m.Rate, Method: m.Method, ProbedAt: m.At.Format(time.RFC3339), Cached: m.Cached}
	for _, f := range m.Findings {
		if f.Level == "warning" {
			d.DiskWarning = append(d.DiskWarning, f.Text)
		}
	}
	s.res.Durability = d
}

// watch returns a stop channel closed when stop is, or when a managed server
// dies; died tells whether it did, and why. It stops looking at the server
// when the run is done (runDone), and then closes watchDone.
func (s *session) watch(stop <-chan struct{}) (<-chan struct{}, func() error) {
	srv, ok := s.db.(backend.Server)
	if !ok {
		return stop, func() error { return nil }
	}
	merged := make(chan struct{})
	var once sync.Once
	s.watchDone = make(chan struct{})
	go func() {
		defer close(s.watchDone)
		select {
		case <-stop:
		case <-s.runDone:
		case <-srv.Died():
			err := srv.DeathErr()
			if err == nil {
				select { // killed on purpose (a failover): the run goes on
				case <-stop:
				case <-s.runDone:
				}
				break
			}
			s.event(time.Now(), result.EventServerDied, err.Error())
		}
		once.Do(func() { close(merged) })
	}()
	return merged, srv.DeathErr
}

// close closes the engine once; a managed server's shut-down time is then known.
func (s *session) close() {
	if s.db == nil {
		return
	}
	err := s.db.Close()
	if srv, ok := s.db.(backend.Server); ok {
		info := result.Server(srv.ServerInfo())
		info.RecoverySeconds = s.recovery.seconds
		if s.recovery.note != "" {
			info.RecoveryNote = s.recovery.note
		}
		s.res.Server = &info
		s.res.ServerLog = scanServerLog(srv.LogRules(), info, s.recovery.from, s.recovery.to)
	}
	if st := s.res.Storage; st != nil && st.MeasuredSeconds > 0 {
		st.DataPerHour = float64(st.DataEnd-st.DataBegin) / st.MeasuredSeconds * 3600
		if st.LogPath != "" {
			st.LogPerHour = float64(st.LogEnd-st.LogBegin) / st.MeasuredSeconds * 3600
		}
	}
	s.db = nil
	if err != nil {
		s.obs.Note("closing the engine: " + err.Error())
	}
}

// scanServerLog reads a managed server's log (kept in the result folder) for
// anomalies, or returns nil when the engine has no rules. The
// bytes from skip to until are what dbgauge's own crash-recovery test made
// the server write (a crash, a recovery): not anomalies of the run.
func scanServerLog(rules *server.LogRules, info result.Server, skip, until int64) *result.ServerLog {
	if rules == nil || info.Log == "" {
		return nil
	}
	text, err := os.ReadFile(info.Log)
	if err != nil {
		return nil
	}
	if until > skip && until <= int64(len(text)) {
		// Blank the lines, keep the newlines: line numbers stay true.
		for i := skip; i < until; i++ {
			if text[i] != '\n' {
				text[i] = ' '
			}
		}
	}
	sl := &result.ServerLog{Path: info.Log, Lines: strings.Count(string(text), "\n"), Anomalies: []result.LogAnomaly{}}
	for _, a := range rules.Scan(string(text)) {
		sl.Anomalies = append(sl.Anomalies, result.LogAnomaly(a))
	}
	return sl
}

// stats reads the engine's counters, or nil when it has none.
func (s *session) stats(ctx context.Context) map[string]int64 {
	st, ok := s.db.(backend.Statser)
	if !ok {
		return nil
	}
	m, err := st.Stats(ctx)
	if err != nil {
		s.obs.Note("engine statistics unavailable: " + err.Error())
		return nil
	}
	return m
}

func delta(before, after map[string]int64) map[string]int64 {
	d := map[string]int64{}
	for k, a := range after {
		d[k] = a - before[k]
	}
	return d
}

// PhaseBegins reads the engine's counters when the measure phase begins
// (units of the warm-up still in flight then are counted in the delta).
func (s *session) PhaseBegins(p *metrics.Phase) {
	s.mu.Lock()
	if s.t0.IsZero() {
		s.t0 = p.Start
	}
	s.mu.Unlock()
	if p.Name == run.Measure && s.bk != nil {
		s.startBackup(s.runCtx, p.Start)
	}
	if p.Name == run.Measure && s.failover != nil && s.cl != nil {
		s.startFailover(context.WithoutCancel(s.runCtx), p.Start)
	}
	if p.Name == run.Measure {
		s.before = s.stats(context.Background())
		s.storage = s.sizes(nil)
		s.harness = startHarness(p.Start, s.db)
	}
}

// sizes measures the engine's data and a managed server's log: into a new
// Storage as the measure phase begins (st nil), or as its end into st.
func (s *session) sizes(st *result.Storage) *result.Storage {
	path := s.res.Engine.Path
	if path == "" {
		return nil
	}
	logPath := ""
	if s.res.Server != nil {
		logPath = s.res.Server.Log
	}
	data, logBytes := sizeOf(path), backend.FileSize(logPath)
	if st == nil {
		return &result.Storage{DataPath: path, DataBegin: data, LogPath: logPath, LogBegin: logBytes}
	}
	st.DataEnd, st.LogEnd = data, logBytes
	return st
}

// sizeOf is the bytes under a folder, or of a file and its companions
// (SQLite's -wal and -shm, gdbm's .dir and .pag); 0 when unreadable.
func sizeOf(path string) int64 {
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return backend.DirSize(path)
	}
	m, _ := filepath.Glob(path + "*")
	var n int64
	for _, f := range m {
		n += backend.FileSize(f)
	}
	return n
}

// Interval receives each closed interval from the run engine: it extends the
// series, refreshes the phase record and saves the result.
func (s *session) Interval(p *metrics.Phase, iv *metrics.Interval) {
	s.followLog()
	if s.harness != nil {
		s.harness.sample()
	}
	all := iv.All()
	sec := s.point(p, iv.Start, iv.End, iv.OK(), iv.Failed(), iv.Retries(), all)
	sec.FailedBy, sec.RetriedBy = iv.FailedByClass(), iv.RetriedByClass()
	sec.Nothing = iv.Nothing()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.backupSecond(p, iv)
	if s.cl != nil {
		sec.Lag = s.cl.lag
	}
	if s.interval > time.Second {
		// The series holds --interval points; the live line stays per second.
		if s.acc != nil && s.acc.phase != p.Name {
			s.flushSpan(p)
		}
		if s.acc == nil {
			s.acc = &span{phase: p.Name, start: iv.Start, hist: metrics.NewHistogram()}
		}
		a := s.acc
		a.end, a.ok, a.fail, a.retr = iv.End, a.ok+iv.OK(), a.fail+iv.Failed(), a.retr+iv.Retries()
		a.nothing += sec.Nothing
		metrics.Merge(a.hist, all)
		a.failedBy, a.retriedBy = addTo(a.failedBy, sec.FailedBy), addTo(a.retriedBy, sec.RetriedBy)
		if a.end.Sub(a.start) >= s.interval-500*time.Millisecond { // ticks drift by milliseconds
			s.flushSpan(p)
		}
	} else {
		s.res.Series = append(s.res.Series, sec)
	}
	s.setPhase(p.Record(true))
	if err := s.writer.Save(s.res); err != nil {
		s.obs.Note("saving the result failed: " + err.Error())
	}
	if s.unitLog != nil {
		if err := s.unitLog.Flush(); err != nil {
			s.obs.Note("writing " + UnitLogFile + " failed: " + err.Error())
		}
	}
	s.obs.Second(s.res, sec)
}

// point makes a point of the series.
func (s *session) point(p *metrics.Phase, start, end time.Time, ok, failed, retries int64, h *hdrhistogram.Histogram) result.Second {
	sec := result.Second{
		T: end.Sub(s.runStart(p)).Seconds(), Dt: end.Sub(start).Seconds(),
		Phase: p.Name, OK: ok, Failed: failed, Retries: retries,
		P50Us: h.ValueAtQuantile(50), P99Us: h.ValueAtQuantile(99), MaxUs: metrics.Max(h),
		// What is left when a run stops just after a tick (the run engine
		// merges the other short intervals into their neighbours).
		Partial: end.Sub(start) < run.Edge(run.DefaultTick),
	}
	if h.TotalCount() == 0 {
		sec.MaxUs = 0
	}
	return sec
}

// flushSpan appends the gathered --interval to the series. Call with s.mu held.
func (s *session) flushSpan(p *metrics.Phase) {
	if a := s.acc; a != nil {
		pt := s.point(p, a.start, a.end, a.ok, a.fail, a.retr, a.hist)
		pt.Phase, pt.FailedBy, pt.RetriedBy, pt.Nothing = a.phase, a.failedBy, a.retriedBy, a.nothing
		s.res.Series = append(s.res.Series, pt)
		s.acc = nil
	}
}

// runStart returns when the first phase began.
func (s *session) runStart(p *metrics.Phase) time.Time {
	if len(s.res.Phases) > 0 {
		return s.res.Phases[0].Start
	}
	return p.Start
}

// setPhase records phase ph, replacing the record of the same name, and
// refreshes the summary.
func (s *session) setPhase(ph result.Phase) {
	for i := range s.res.Phases {
		if s.res.Phases[i].Name == ph.Name {
			s.res.Phases[i] = ph
			s.summarize()
			return
		}
	}
	s.res.Phases = append(s.res.Phases, ph)
	s.summarize()
}

func (s *session) finishPhases(ps []*metrics.Phase) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		s.setPhase(p.Record(true))
	}
}

// summarize computes the headline from the measure phase.
func (s *session) summarize() {
	sum := result.Summary{Metric: s.wspec.Metric(), ChecksOK: true}
	if m := s.res.Phase(run.Measure); m != nil {
		sum.Rate, sum.OK, sum.Failed, sum.Retries, sum.Seconds = m.Rate, m.OK, m.Failed, m.Retries, m.Seconds
		sum.Nothing = m.Nothing
		if s.wspec.PerMinute {
			sum.PerMinute = 60 * m.Rate
		}
		if n := m.OK + m.Failed; n > 0 {
			sum.ErrorsPct = 100 * float64(m.Failed) / float64(n)
		}
		sum.P50Us, sum.P95Us, sum.P99Us, sum.MaxUs = m.All.P50Us, m.All.P95Us, m.All.P99Us, m.All.MaxUs
	}
	for _, c := range s.res.Checks {
		sum.ChecksOK = sum.ChecksOK && c.OK
	}
	if st := s.res.Stats; st != nil && sum.OK > 0 && sum.Seconds > 0 {
		if wal, ok := st.Delta["wal_bytes"]; ok {
			sum.LogBytesPerUnit = float64(wal) / float64(sum.OK)
			sum.LogBytesPerHour = float64(wal) / sum.Seconds * 3600
		}
	}
	if st := s.res.Stats; st != nil {
		cacheHits(&sum, st.Delta)
	}
	sum.Pass = s.res.Summary.Pass
	s.res.Summary = sum
}

func (s *session) check(ctx context.Context, db backend.DB) error {
	c, ok := s.w.(workload.Checker)
	if !ok {
		return nil
	}
	s.obs.Note("checking consistency")
	checks, err := c.Check(ctx, db)
	if err != nil {
		return fmt.Errorf("consistency checks: %w", err)
	}
	for _, ch := range checks {
		s.res.Checks = append(s.res.Checks, result.Check(ch))
	}
	s.summarize()
	return nil
}

func (s *session) judge() {
	if len(s.require) == 0 {
		return
	}
	pass := true
	for _, r := range s.require {
		v := verdict.Judge(r, s.res)
		s.res.Verdicts = append(s.res.Verdicts, v)
		pass = pass && v.OK
	}
	s.res.Summary.Pass = &pass
}
