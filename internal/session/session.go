package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
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
	// Second is called when a progress interval closes (--progress: every
	// second unless asked otherwise; never with --progress 0).
	Second(res *result.Result, s result.Second)
}

// Worker is an Observer that also hears how far long work got: a load, a
// fill to --init-docs (what: "loading"), done of total. Work is called from
// the goroutines doing the work, possibly several at once.
type Worker interface {
	Work(what string, done, total int64)
}

// Ticker is an Observer that also hears of every second of the run, with
// the name of its phase, whatever --progress says (a metrics endpoint
// serving the live result). Tick is called with the result held still and
// must return quickly.
type Ticker interface {
	Tick(res *result.Result, phase string)
}

// ErrRunFailed wraps the error that stopped a run after it had begun; the
// result says what was measured until then.
var ErrRunFailed = errors.New("run failed")

// Execute runs the plan. stop ends the run cleanly when closed; canceling ctx
// abandons the units in flight. Before the clients run, stop ends whatever
// the session waits for: its error then wraps ErrInterrupted, and the
// result says interrupted. The result is returned whenever a result folder
// was written, even with an error.
func (p *Plan) Execute(ctx context.Context, stop <-chan struct{}, obs Observer) (*result.Result, error) {
	w, err := createWriter(p.results, p.id, p.wspec.Name, p.bspec.Name)
	if err != nil {
		return nil, err
	}
	s := &session{Plan: p, writer: w, obs: obs, exts: newExtensions(p)}
	s.res = &result.Result{
		Schema: result.Schema, ID: filepath.Base(w.Dir()), Status: result.Running,
		Command: p.args, Started: time.Now().UTC(), Config: p.config,
		Phases: []result.Phase{}, Series: []result.Second{}, Checks: []result.Check{}, Verdicts: []result.Verdict{},
		Upgraded: p.upgraded,
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
	switch {
	case errors.Is(err, ErrInterrupted):
		// Stopped while it waited, before any unit: not a failure.
		s.res.Status, s.res.Reason = result.Interrupted, err.Error()
	case err != nil:
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
	w, err := result.CreateNew(root, time.Now().Format("20060102-150405")+"-"+wl+"-"+be)
	if err != nil {
		return nil, knob.Bad("pass --results DIR with a folder you can write", "cannot create a result folder in %s: %v", root, err)
	}
	return w, nil
}

type session struct {
	*Plan
	writer    *result.Writer
	res       *result.Result
	obs       Observer
	db        backend.DB
	exts      []any            // the extensions (extension.go), in the order their hooks run
	measured  bool             // the clock has started
	before    map[string]int64 // engine counters when the measure phase began
	storage   *result.Storage  // sizes when the measure phase began
	mu        sync.Mutex
	acc       *span     // the --interval being gathered, when longer than a second
	prog      *span     // the --progress interval being gathered, when longer than a second
	t0        time.Time // when the first phase began: events' time line
	runCtx    context.Context
	runDone   chan struct{} // closed when the clients have stopped
	watchDone chan struct{} // closed when watch no longer looks at the server
	// Closing unwatch asks watch to stop looking at the server (it is
	// about to be killed on purpose); it closes unwatched once it has.
	unwatch, unwatched chan struct{}
	letGo              sync.Once // closes unwatch, once
	// ownLog are the spans of a managed server's log that dbgauge's own
	// actions made it write (a --fault's kill and restart, the
	// crash-recovery test's): not anomalies of the run.
	ownLog  []logSpan
	cleanup []func() // after the engine has closed
}

// span gathers the one-second intervals of a longer --interval, merging their
// histograms so that its percentiles are exact.
type span struct {
	phase          string
	start, end     time.Time
	ok, fail, retr int64
	nothing, late  int64
	offered        float64 // starts the open loop intended
	units          []int64 // ok per unit kind, for a workload with figures
	hist           *hdrhistogram.Histogram
	failedBy       map[string]int64
	retriedBy      map[string]int64
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
	defer s.close()
	// Until the clients run, a stop ends what the session waits for (wait.go).
	pre, release := untilStop(ctx, stop)
	db, err := s.open(pre)
	if err == nil {
		db, err = s.load(pre, db)
	}
	release()
	if err != nil {
		if errors.Is(context.Cause(pre), ErrInterrupted) && !errors.Is(err, ErrInterrupted) {
			err = fmt.Errorf("%w: %w", ErrInterrupted, err)
		}
		return err
	}
	out, runEnd, err := s.measure(ctx, stop, db)
	if err != nil {
		return err
	}
	// What the workload chose while loading and running (TPC-C's NURand
	// constants, its load time) is part of its config.
	s.mu.Lock()
	s.res.Config.Workloads = s.w.Config()
	s.mu.Unlock()
	if out.Reason != run.Canceled {
		if err := s.check(context.WithoutCancel(ctx), db); err != nil {
			return err
		}
		for _, h := range hooks[checkHook](s) {
			h.check(context.WithoutCancel(ctx), s, db)
		}
	}
	var measureStart time.Time
	if m := s.res.Phase(run.Measure); m != nil {
		measureStart = m.Start
	}
	for _, h := range hooks[completedHook](s) {
		h.completed(context.WithoutCancel(ctx), s, out.Reason == run.Completed, measureStart, runEnd)
	}
	s.judge()
	for _, h := range hooks[judgeHook](s) {
		h.judge(s)
	}
	return nil
}

// open opens the engine (in --data-dir's folder of the run's own, which is
// removed after the session) and reads it back: its settings, its server,
// what the run's connections will meet, where its data lives. It returns
// the DB the workload is to use (kv on a SQL engine: its kv_ tables).
func (s *session) open(ctx context.Context) (backend.DB, error) {
	s.bopts.Dir = s.writer.Dir()
	if s.dataDir != "" {
		dir, err := s.makeDataDir()
		if err != nil {
			return nil, err
		}
		s.cleanup = append(s.cleanup, func() { os.RemoveAll(dir) }) // after the engine has closed
		s.bopts.DataDir = dir
	}
	s.res.Environment.PageCache = "not dropped: a single run (each cell of a matrix drops it, as root)"
	if s.dropCache {
		s.res.Environment.PageCache = disk.DropPageCache()
	}
	db, err := s.given, error(nil)
	if db == nil {
		db, err = s.bspec.Open(ctx, s.bopts)
	}
	if err != nil {
		return nil, err
	}
	s.db = db
	if srv, ok := db.(backend.Server); ok {
		info := result.Server(srv.ServerInfo())
		s.res.Server = &info
		if info.Note != "" {
			s.obs.Note(info.Note)
		}
	}
	eng, err := db.Engine(ctx)
	if err != nil {
		return nil, fmt.Errorf("read back %s settings: %w", s.bspec.Name, err)
	}
	s.res.Engine = result.Engine(eng)
	if l := s.bopts.Isolation; l != "" && l != backend.DefaultIsolation && eng.Isolation != string(l) {
		return nil, fmt.Errorf("--isolation %s: %s reads back %q for its clients' transactions", l, s.bspec.Name, eng.Isolation)
	}
	if l, ok := db.(backend.Limiter); ok {
		ro, _ := s.w.(workload.ReadOnly)
		notes, err := l.Limits(ctx, s.bopts.Conns, ro == nil || !ro.ReadOnly())
		if err != nil {
			return nil, err
		}
		s.res.Limits = notes
		for _, n := range notes {
			s.obs.Note(n)
		}
	}
	if s.bopts.ServerMemory > 0 && s.bopts.CacheBytes == 0 {
		// The engine's default cache, known only now.
		if err := tooSmall(knob.FormatSize(s.bopts.ServerMemory), s.bopts.ServerMemory, eng.CacheBytes, "the engine's default"); err != nil {
			return nil, err
		}
	}
	if eng.Path == "" {
		s.res.Environment.DataDir = result.Device{}
		s.res.Environment.Problems = append(s.res.Environment.Problems,
			"data folder: the engine keeps its data on a server dbgauge does not manage; its device is not described and no flush ceiling is measured")
	} else {
		s.describeData(filepath.Dir(eng.Path))
	}
	for _, h := range hooks[openedHook](s) {
		if err := h.opened(ctx, s); err != nil {
			return nil, err
		}
	}
	if sq, ok := db.(backend.SQLDB); ok && s.api == backend.KV {
		db = sqlkv.Wrap(sq)
	}
	return db, s.save()
}

// load loads the workload's data (or finds it loaded) and marks the ids
// it holds; it returns the DB the clients are to use.
func (s *session) load(ctx context.Context, db backend.DB) (backend.DB, error) {
	for _, h := range hooks[beforeLoadHook](s) {
		if err := h.beforeLoad(ctx, s); err != nil {
			return nil, err
		}
	}
	s.obs.Note(fmt.Sprintf("loading %s data", s.wspec.Name))
	if pr, ok := s.w.(workload.Progresser); ok {
		if wk, ok := s.obs.(Worker); ok {
			pr.SetProgress(func(done, total int64) { wk.Work("loading", done, total) })
		}
	}
	t := time.Now()
	ds, err := s.w.Load(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	s.res.Dataset = result.Dataset{Reused: ds.Reused, Seconds: time.Since(t).Seconds(), Facts: ds.Facts, Target: s.res.Dataset.Target, EmptyBytes: s.res.Dataset.EmptyBytes}
	if err := s.markExisting(ctx, db); err != nil {
		return nil, err
	}
	for _, h := range hooks[loadedHook](s) {
		if db, err = h.loaded(ctx, s, db); err != nil {
			return nil, err
		}
	}
	return db, nil
}

// measure runs the clients: warm-up, then the measure phase, until it
// ends; it records the phases, the storage and the engine's counters. It
// returns what the run engine said and when the clients stopped.
func (s *session) measure(ctx context.Context, stop <-chan struct{}, db backend.DB) (*run.Outcome, time.Time, error) {
	cfg := s.run
	for _, h := range hooks[beforeRunHook](s) {
		if err := h.beforeRun(ctx, s, &cfg); err != nil {
			return nil, time.Time{}, err
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
	out, err := run.Run(ctx, cfg, s.w.Shape(), open, stop, s)
	runEnd := time.Now()
	close(s.runDone)
	if s.watchDone != nil {
		<-s.watchDone // before anything restarts the server
	}
	ended := out
	if err != nil {
		ended = nil
	}
	for _, h := range hooks[runEndedHook](s) {
		h.runEnded(ctx, s, ended, runEnd)
	}
	if err != nil {
		return nil, runEnd, err
	}
	if len(out.Phases) > 0 {
		s.mu.Lock()
		s.flushSpan(out.Phases[len(out.Phases)-1]) // the last, shorter --interval
		s.flushProgress(out.Phases[len(out.Phases)-1])
		s.mu.Unlock()
	}
	if err := died(); err != nil {
		s.finishPhases(out.Phases)
		return nil, runEnd, fmt.Errorf("the server died during the run: %w", err)
	}
	s.finishPhases(out.Phases)
	if m := s.res.Phase("measure"); s.storage != nil && m != nil && m.Seconds > 0 {
		s.storage = s.sizes(s.storage)
		s.storage.MeasuredSeconds = m.Seconds
		s.res.Storage = s.storage
	}
	after := s.stats(ctx)
	if s.before != nil && after != nil {
		s.res.Stats = &result.Stats{Before: s.before, After: after}
		if why := s.countersReplaced(); why != "" {
			s.res.Stats.Note = "not differenced: " + why + ", so before and after are not one server's counters"
		} else {
			s.res.Stats.Delta = delta(s.before, after)
		}
		s.summarize()
	}
	switch out.Reason {
	case run.Completed:
		s.res.Status = result.Completed
	default:
		s.res.Status, s.res.Reason = result.Interrupted, string(out.Reason)
	}
	if out.Err != nil {
		return nil, runEnd, fmt.Errorf("stopped by a fatal error: %w", out.Err)
	}
	return out, runEnd, nil
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

// crashOnPurpose kills the managed server and starts it again on its data
// (rc's CrashRestart), for an extension (--fault, the crash-recovery test):
// watch lets go of the server first (its death is no news to the run, nor
// its replacement under it), killed is told the moment of the kill, and
// what the server logs meanwhile is marked dbgauge's own, not the run's
// anomalies. It returns when the kill began and when the server was back.
// Extensions reach the watch only through it.
func (s *session) crashOnPurpose(ctx context.Context, rc backend.Recoverer, killed func(time.Time)) (kill, back time.Time, err error) {
	if s.unwatch != nil {
		s.letGo.Do(func() { close(s.unwatch) })
		select {
		case <-s.unwatched:
		case <-s.watchDone:
		}
	}
	logPath := ""
	if s.res.Server != nil {
		logPath = s.res.Server.Log
	}
	from := backend.FileSize(logPath)
	kill = time.Now()
	if killed != nil {
		killed(kill)
	}
	err = rc.CrashRestart(ctx)
	back = time.Now()
	s.mu.Lock()
	s.ownLog = append(s.ownLog, logSpan{from, backend.FileSize(logPath)})
	s.mu.Unlock()
	return kill, back, err
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
	s.unwatch, s.unwatched = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.watchDone)
		select {
		case <-stop:
		case <-s.runDone:
		case <-s.unwatch: // a deliberate kill is coming (--fault): the run goes on
			close(s.unwatched)
			select {
			case <-stop:
			case <-s.runDone:
			}
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

// close closes the engine once; a managed server's shut-down time is then
// known. Then what the session made for itself goes (--data-dir's folder).
func (s *session) close() {
	defer func() {
		for _, f := range s.cleanup {
			f()
		}
		s.cleanup = nil
	}()
	if s.db == nil {
		return
	}
	for _, h := range hooks[closingHook](s) {
		h.closing(s)
	}
	var err error
	if s.keep {
		s.kept = s.db // the caller's to close (Plan.Kept)
	} else {
		err = s.db.Close()
	}
	if srv, ok := s.db.(backend.Server); ok {
		info := result.Server(srv.ServerInfo())
		s.res.Server = &info
	}
	if st := s.res.Storage; st != nil && st.MeasuredSeconds > 0 {
		st.DataPerHour = float64(st.DataEnd-st.DataBegin) / st.MeasuredSeconds * 3600
		if st.LogPath != "" {
			st.LogPerHour = float64(st.LogEnd-st.LogBegin) / st.MeasuredSeconds * 3600
		}
	}
	for _, h := range hooks[closedHook](s) {
		h.closed(s)
	}
	s.db = nil
	if err != nil {
		s.obs.Note("closing the engine: " + err.Error())
	}
}

// stats reads the engine's counters, or nil when it has none.
func (s *session) stats(ctx context.Context) map[string]int64 {
	st, ok := s.db.(backend.Statser)
	if !ok || s.sharded() {
		return nil
	}
	m, err := st.Stats(ctx)
	if err != nil {
		s.obs.Note("engine statistics unavailable: " + err.Error())
		return nil
	}
	return m
}

// countersReplaced says why the engine's counters after the run are not
// those it had before, "" when they are: the primary replaced by a
// failover, or the server (a cluster's primary, etcd's leader) killed and
// restarted, which clears PostgreSQL's.
func (s *session) countersReplaced() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.res.Cluster; c != nil && c.Failover != nil && c.Failover.KillT > 0 {
		return "the primary was replaced by a failover"
	}
	if f := s.res.Fault; f != nil && f.Kind == "kill" && f.KillT > 0 && (f.Node == "" || f.Node == "primary" || f.Node == "leader") {
		return "the server was killed and restarted"
	}
	return ""
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
	if p.Name == run.Measure {
		s.before = s.stats(context.Background())
		s.storage = s.sizes(nil)
	}
	for _, h := range hooks[phaseHook](s) {
		h.phaseBegins(s, p)
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
// series, refreshes the phase record and saves the result; every --progress
// seconds it tells the observer.
func (s *session) Interval(p *metrics.Phase, iv *metrics.Interval) {
	all := iv.All()
	sec := s.point(p, iv.Start, iv.End, iv.OK(), iv.Failed(), iv.Retries(), all)
	sec.FailedBy, sec.RetriedBy = iv.FailedByClass(), iv.RetriedByClass()
	sec.Nothing, sec.Late = iv.Nothing(), iv.Late()
	if dt := iv.End.Sub(iv.Start).Seconds(); dt > 0 {
		sec.Offered = iv.Offered / dt
	}
	if _, ok := s.w.(workload.Figurer); ok {
		sec.Units = iv.UnitOK()
	}
	for _, h := range hooks[secondHook](s) {
		h.second(s, p, iv, &sec)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interval > time.Second {
		// The series holds --interval points; the live line stays per second.
		if s.acc != nil && s.acc.phase != p.Name {
			s.flushSpan(p)
		}
		if s.acc == nil {
			s.acc = newSpan(p.Name, iv.Start)
		}
		s.acc.add(iv.End, sec, all)
		if s.acc.end.Sub(s.acc.start) >= s.interval-500*time.Millisecond { // ticks drift by milliseconds
			s.flushSpan(p)
		}
	} else {
		s.addPoint(sec)
	}
	s.setPhase(p.Record(true))
	if err := s.writer.Save(s.res); err != nil {
		s.obs.Note("saving the result failed: " + err.Error())
	}
	if t, ok := s.obs.(Ticker); ok {
		t.Tick(s.res, p.Name)
	}
	switch {
	case s.progress == time.Second:
		s.obs.Second(s.res, sec)
	case s.progress > 0:
		if s.prog != nil && s.prog.phase != p.Name {
			s.flushProgress(p) // a phase's last, shorter interval
		}
		if s.prog == nil {
			s.prog = newSpan(p.Name, iv.Start)
		}
		s.prog.add(iv.End, sec, all)
		if s.prog.end.Sub(s.prog.start) >= s.progress-500*time.Millisecond {
			s.flushProgress(p)
		}
	}
}

// newSpan starts gathering intervals of a phase from start.
func newSpan(phase string, start time.Time) *span {
	return &span{phase: phase, start: start, hist: metrics.NewHistogram()}
}

// add gathers the interval sec, ending at end, whose latencies are all.
func (a *span) add(end time.Time, sec result.Second, all *hdrhistogram.Histogram) {
	a.end, a.ok, a.fail, a.retr = end, a.ok+sec.OK, a.fail+sec.Failed, a.retr+sec.Retries
	a.nothing, a.late, a.offered = a.nothing+sec.Nothing, a.late+sec.Late, a.offered+sec.Offered*sec.Dt
	if sec.Units != nil {
		if a.units == nil {
			a.units = make([]int64, len(sec.Units))
		}
		for i, n := range sec.Units {
			a.units[i] += n
		}
	}
	metrics.Merge(a.hist, all)
	a.failedBy, a.retriedBy = result.AddCounts(a.failedBy, sec.FailedBy), result.AddCounts(a.retriedBy, sec.RetriedBy)
}

// spanPoint is the point of the series a gathered span makes.
func (s *session) spanPoint(p *metrics.Phase, a *span) result.Second {
	pt := s.point(p, a.start, a.end, a.ok, a.fail, a.retr, a.hist)
	pt.Phase, pt.FailedBy, pt.RetriedBy, pt.Nothing, pt.Units, pt.Late = a.phase, a.failedBy, a.retriedBy, a.nothing, a.units, a.late
	if pt.Dt > 0 {
		pt.Offered = a.offered / pt.Dt
	}
	return pt
}

// addPoint appends pt to the series. Call with s.mu held.
func (s *session) addPoint(pt result.Second) {
	s.res.Series = append(s.res.Series, pt)
	for _, h := range hooks[pointHook](s) {
		h.point(s, pt)
	}
}

// flushProgress tells the observer of the gathered --progress interval.
// Call with s.mu held.
func (s *session) flushProgress(p *metrics.Phase) {
	if a := s.prog; a != nil {
		s.prog = nil
		s.obs.Second(s.res, s.spanPoint(p, a))
	}
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
	sec.MeanUs, sec.SdUs = metrics.MeanSd(h)
	return sec
}

// flushSpan appends the gathered --interval to the series. Call with s.mu held.
func (s *session) flushSpan(p *metrics.Phase) {
	if a := s.acc; a != nil {
		s.addPoint(s.spanPoint(p, a))
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
		if f, ok := s.w.(workload.Figurer); ok {
			sum.Figures = f.Figures(measured(m))
		}
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
	var delta map[string]int64
	if s.res.Stats != nil {
		delta = s.res.Stats.Delta
	}
	s.res.Cost = unitCosts(s.res, delta, sum.OK, s.bspec.Flushes)
}

// measured is what a workload's figures are made of: the measure phase's
// counts and 90th percentiles per unit kind.
func measured(m *result.Phase) workload.Measured {
	out := workload.Measured{Seconds: m.Seconds}
	for _, u := range m.Units {
		out.Units = append(out.Units, workload.MeasuredUnit{Name: u.Name, OK: u.Count, Failed: u.Failed, Nothing: u.Nothing, P90Us: u.P90Us})
	}
	return out
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

// judge says whether the measure phase held level (every run), then judges
// --require.
func (s *session) judge() {
	s.mu.Lock()
	if prof := s.run.Profile; s.capacity == nil && (prof == nil || !prof.Varies()) {
		// A search's steps and a profile that moves change the rate on
		// purpose: no level to hold.
		s.res.Steady = verdict.Steady(s.res)
	}
	s.mu.Unlock()
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

// logSpan is a span of a log's bytes, [from, to).
type logSpan struct{ from, to int64 }
