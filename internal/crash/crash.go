// Package crash runs a write workload in a child process, kills it at a
// seeded random moment, reopens the database and counts exactly what was
// acknowledged and lost. The ledger of acknowledged commits lives in the
// controlling process, outside the engine and its files: the child run
// tells it every commit through a pipe (child.Run.Ledger).
package crash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/child"
	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/powerloss"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Controller runs the cycles of one crash folder.
type Controller struct {
	Dir    string // the crash folder
	Exe    string // the dbgauge binary
	Cycles int
	Seed   uint64
	After  [2]time.Duration // the fault comes this long after the first acknowledgement
	Log    func(string)     // a line for people
	// Target says how to run and verify one configuration.
	Target func(values map[string]string) (Target, error)
	// PowerLoss puts each cycle's database on dbgauge's FUSE test disk and
	// cuts the power after the kill: writes never flushed are dropped.
	PowerLoss bool
}

// Target is one configuration: the child's flags, the embedded engine that
// runs inside it, and how to reopen and read the database after the fault.
type Target struct {
	Flags   []string // workload first: "insert", "--durability=lazy", …
	Backend string   // "sqlite" or "bbolt"; "postgres" with Managed
	Ext     string   // the database file's extension
	// Managed: the child starts a server (--db postgres:managed); the fault
	// kills the server's process group too, and Open gets its data folder.
	// DB is then the --db value that starts it (the engine's Spec.Manages).
	Managed bool
	DB      string
	// Open reopens the database at path; a restarted server logs into logDir
	// (the cycle's folder).
	Open    func(ctx context.Context, path, logDir string) (backend.DB, error)
	Present func(ctx context.Context, db backend.DB) (map[int64]bool, error) // the ids it holds
	// Promise is what the engine's documentation promises the
	// configuration's durability level keeps; nil: it says nothing.
	Promise *backend.Promise
}

// Run runs every cycle of every configuration, saving rec after each.
func (c *Controller) Run(ctx context.Context, rec *result.Crash, stop <-chan struct{}) error {
	for ci := range rec.Configs {
		cfg := &rec.Configs[ci]
		for n := 1; n <= c.Cycles; n++ {
			select {
			case <-stop:
				rec.Status = result.Interrupted
				return c.save(rec)
			default:
			}
			t, err := c.Target(cfg.Values)
			if err != nil {
				rec.Status = result.Failed
				return errors.Join(err, c.save(rec))
			}
			cy := c.cycle(ctx, ci, n, t)
			cfg.Cycles = append(cfg.Cycles, cy)
			cfg.Promise, cfg.Verdict = Judge(t.Promise, c.PowerLoss, cfg)
			cfg.Summary = Summarize(cfg)
			c.Log(fmt.Sprintf("%s cycle %d: %s", keyOr(cfg.Key), n, line(cy)))
			if err := c.save(rec); err != nil {
				return err
			}
		}
	}
	rec.Status = result.Completed
	return c.save(rec)
}

func keyOr(k string) string {
	if k == "" {
		return "run"
	}
	return k
}

func (c *Controller) save(rec *result.Crash) error {
	rec.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(c.Dir, "."+result.CrashFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(c.Dir, result.CrashFile))
}

// faultAt is the moment of cycle n's fault: the same seed, the same moments.
func (c *Controller) faultAt(ci, n int) time.Duration {
	rng := workload.NewRand(c.Seed, uint64(ci)<<32|uint64(n))
	span := c.After[1] - c.After[0]
	if span <= 0 {
		return c.After[0]
	}
	return c.After[0] + time.Duration(rng.Int64N(int64(span)))
}

// cycle runs the workload in a child, kills it, reopens the database and
// compares it with the ledger.
func (c *Controller) cycle(ctx context.Context, ci, n int, t Target) result.CrashCycle {
	rel := filepath.Join(fmt.Sprintf("config-%02d", ci+1), fmt.Sprintf("cycle-%02d", n))
	dir := filepath.Join(c.Dir, rel)
	cy := result.CrashCycle{N: n, Dir: rel}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		cy.Harness, cy.Error = true, err.Error()
		return cy
	}
	// Where the engine's files go: the cycle's folder, or the test disk.
	dataDir := dir
	var disk *powerloss.Disk
	base := dir
	if c.PowerLoss && t.Managed {
		// The server runs as its own account, which must reach the disk:
		// a folder of its own under the system's temporary folder.
		var err error
		if base, err = os.MkdirTemp("", "dbgauge-crash-"); err != nil {
			cy.Harness, cy.Error = true, err.Error()
			return cy
		}
		defer func() {
			keepLogs(filepath.Join(base, "disk", "run"), dir) // the servers' logs stay with the cycle
			os.RemoveAll(base)
		}()
		if err := os.Chmod(base, 0o755); err != nil {
			cy.Harness, cy.Error = true, err.Error()
			return cy
		}
	}
	if c.PowerLoss {
		backing, mnt := filepath.Join(base, "disk"), filepath.Join(base, "mnt")
		for _, d := range []string{backing, mnt} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				cy.Harness, cy.Error = true, err.Error()
				return cy
			}
		}
		var err error
		if disk, err = powerloss.Mount(backing, mnt); err != nil {
			cy.Harness, cy.Error = true, err.Error()
			return cy
		}
		defer disk.Unmount() //nolint:errcheck // unmounted below; this is for the early returns
		disk.PowerLoss()
		dataDir = mnt
	}
	path := filepath.Join(dataDir, "data"+t.Ext)
	at := c.faultAt(ci, n)
	bk, srv, err := c.runAndKill(ctx, dir, dataDir, path, at, t, ci, n, disk)
	cy.FaultAt = at.Seconds()
	if err != nil {
		cy.Harness, cy.Error = true, err.Error()
		return cy
	}
	if srv != nil {
		path = srv.DataDir
	}
	if disk != nil {
		// The power cut: every write not flushed is gone. Then the database
		// is read from the backing folder, as after a reboot.
		w, f := disk.Unflushed()
		cy.Dropped = fmt.Sprintf("%d unflushed writes, %d unflushed new files", w, f)
		if err := disk.Cut(); err != nil {
			cy.Harness, cy.Error = true, "the power cut failed: "+err.Error()
			return cy
		}
		if err := disk.Unmount(); err != nil {
			cy.Harness, cy.Error = true, "unmount the test disk: "+err.Error()
			return cy
		}
		rel, err := filepath.Rel(dataDir, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			cy.Harness, cy.Error = true, fmt.Sprintf("the database (%s) was not on the test disk (%s), so the power cut could not reach it", path, dataDir)
			return cy
		}
		path = filepath.Join(base, "disk", rel)
	}
	cy.Acknowledged, cy.Unknown = bk.Counts()

	start := time.Now()
	db, err := t.Open(ctx, path, dir)
	if err != nil {
		cy.Error = "the database did not open again: " + err.Error()
		return cy
	}
	defer db.Close()
	present, err := t.Present(ctx, db)
	cy.RecoverySeconds = time.Since(start).Seconds()
	if err != nil {
		cy.Error = "the database opened but its rows cannot be read: " + err.Error()
		return cy
	}
	cy.Started = true
	if r, ok := db.(backend.Recovered); ok {
		cy.RecoveryNote = r.Recovery()
	}
	compare(bk, present, &cy)
	if ch, ok := db.(backend.Checker); ok {
		cy.IntegrityOK, cy.Integrity, err = ch.Integrity(ctx)
		if err != nil {
			cy.Integrity = "the integrity check failed to run: " + err.Error()
		}
	} else {
		cy.Integrity, cy.IntegrityOK = "no integrity check for this engine", true
	}
	return cy
}

// runAndKill starts the workload in a child with a ledger pipe, waits for
// the first acknowledged commit, waits at, and kills the child with SIGKILL.
func (c *Controller) runAndKill(ctx context.Context, dir, dataDir, path string, at time.Duration, t Target, ci, n int, disk *powerloss.Disk) (*ledger.Book, *result.Server, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	logf, err := os.Create(filepath.Join(dir, "run.log"))
	if err != nil {
		_ = w.Close()
		return nil, nil, err
	}
	defer logf.Close()
	db := t.Backend + ":" + path
	if t.Managed {
		db = t.DB
	}
	args := slices.Clone(t.Flags)
	results := dir // the result's own files stay off the test disk…
	if t.Managed {
		results = dataDir // …but a managed server's cluster lives in it
	}
	args = append(args, "--db="+db, "--results="+results, "--duration=1h", "--warmup=0", "--ceiling=off",
		"--seed="+strconv.FormatUint(c.Seed+uint64(ci)<<20+uint64(n), 10))
	cmd := exec.CommandContext(ctx, c.Exe)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Start closes our write end: the child holds the only one, EOF when it dies.
	if err := child.Start(cmd, child.Spec{Role: child.RoleRun, Run: &child.Run{Args: args, ResultID: "run", Ledger: child.Pass(w)}}); err != nil {
		return nil, nil, err
	}
	bk := ledger.New()
	done := make(chan error, 1)
	go func() { done <- bk.Read(r) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var srv *result.Server
	select {
	case <-bk.First():
	case err := <-exited:
		return nil, nil, fmt.Errorf("the run ended before its first commit (%w): %s", err, matrix.LastLine(filepath.Join(dir, "run.log")))
	case <-time.After(2 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		werr := <-exited
		return nil, nil, fmt.Errorf("no commit was acknowledged within 2 minutes (the run was killed: %w)", werr)
	}
	if disk != nil {
		disk.Checkpoint() // setting up (initdb, the schema) is not under test
	}
	if t.Managed {
		// The child saved its result, with the server's process, before it began.
		res, err := result.Load(filepath.Join(results, "run"))
		if err != nil || res.Server == nil || res.Server.PID <= 0 {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			if werr := <-exited; err == nil {
				err = werr
			}
			return nil, nil, fmt.Errorf("the run's result does not name its server (%w)", err)
		}
		srv = res.Server
	}
	select {
	case <-time.After(at):
	case err := <-exited:
		return nil, nil, fmt.Errorf("the run ended before the fault (%w): %s", err, matrix.LastLine(filepath.Join(dir, "run.log")))
	}
	// kill -9 of the server's whole process group first (what it acknowledged
	// is what the ledger holds), then of the process that ran the workload.
	var serverKids []int
	if srv != nil {
		serverKids, _ = server.KillTree(srv.PID)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if werr := <-exited; werr == nil {
		return nil, nil, errors.New("the run ended on its own just before the kill: no fault happened")
	}
	if err := <-done; err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read the ledger: %w", err)
	}
	if srv != nil && (!server.GroupGone(srv.PID, 10*time.Second) || !server.Gone(serverKids, 10*time.Second)) {
		return nil, nil, fmt.Errorf("the server's processes (group %d) were still there 10 s after kill -9", srv.PID)
	}
	return bk, srv, nil
}

// line describes a cycle in one line.
func line(cy result.CrashCycle) string {
	if cy.Harness {
		return "NOT RUN (dbgauge's side): " + cy.Error
	}
	if !cy.Started {
		return "DID NOT OPEN AGAIN: " + cy.Error
	}
	recovered := fmt.Sprintf("recovered in %.0f ms", cy.RecoverySeconds*1000)
	if cy.RecoveryNote != "" {
		recovered += " (" + cy.RecoveryNote + ")"
	}
	s := fmt.Sprintf("fault at %.2f s: %d acknowledged, %d lost, %d unknown (%d survived), %s, %s",
		cy.FaultAt, cy.Acknowledged, cy.Lost, cy.Unknown, cy.UnknownSurvived, recovered, cy.Integrity)
	if cy.Phantom > 0 {
		s += fmt.Sprintf(", %d rows never committed", cy.Phantom)
	}
	if cy.Dropped != "" {
		s += "; the cut dropped " + cy.Dropped
	}
	return s
}

// Summarize says what a configuration's cycles found, in one line: lost
// commits, databases that did not open, failed integrity checks.
func Summarize(cfg *result.CrashConfig) string {
	n := len(cfg.Cycles)
	var lostCycles, dead, bad, harness int
	var maxLost, maxUnknown int64
	var acked []int64
	var recovery []float64
	for _, cy := range cfg.Cycles {
		switch {
		case cy.Harness:
			harness++
			continue
		case !cy.Started:
			dead++
			continue
		case !cy.IntegrityOK:
			bad++
		}
		if cy.Lost > 0 {
			lostCycles++
		}
		maxLost, maxUnknown = max(maxLost, cy.Lost), max(maxUnknown, cy.Unknown)
		acked = append(acked, cy.Acknowledged)
		recovery = append(recovery, cy.RecoverySeconds*1000)
	}
	ran := n - dead - harness
	parts := []string{fmt.Sprintf("0 lost in %d cycles", ran)}
	switch {
	case lostCycles > 0:
		parts[0] = fmt.Sprintf("lost up to %d acknowledged commits in %d of %d cycles", maxLost, lostCycles, ran)
	case ran == 0 && dead == 0:
		parts[0] = "no cycle ran" // never "0 lost": nothing was put on trial
	}
	if harness > 0 {
		parts = append(parts, fmt.Sprintf("%d cycles could not be run (dbgauge's side: see their errors)", harness))
	}
	if dead > 0 {
		parts = append(parts, fmt.Sprintf("DID NOT OPEN AGAIN in %d cycles", dead))
	}
	if bad > 0 {
		parts = append(parts, fmt.Sprintf("integrity check FAILED in %d cycles", bad))
	} else if ran > 0 {
		parts = append(parts, "integrity ok")
	}
	if rows, in := phantoms(cfg); rows > 0 {
		parts = append(parts, fmt.Sprintf("%d rows present that no commit made, in %d cycles", rows, in))
	}
	if ran > 0 {
		parts = append(parts, fmt.Sprintf("at most %d in flight (unknown)", maxUnknown))
	}
	if len(acked) > 0 {
		parts = append(parts, fmt.Sprintf("%d–%d acknowledged per cycle", slices.Min(acked), slices.Max(acked)))
		parts = append(parts, fmt.Sprintf("recovery %.0f–%.0f ms", slices.Min(recovery), slices.Max(recovery)))
	}
	if cfg.Verdict != "" {
		parts = append(parts, cfg.Verdict)
	}
	return keyOr(cfg.Key) + ": " + strings.Join(parts, "; ")
}

// Judge holds a configuration's cycles to what the engine's documentation
// promises its durability level keeps through the fault (power: a power
// loss after the kill): lost acknowledged commits, or a failed integrity
// check, where the promise says none is "NOT as documented". Where the
// documentation allows losses, any count is as documented.
func Judge(p *backend.Promise, power bool, cfg *result.CrashConfig) (promise, verdict string) {
	if p == nil {
		return "", ""
	}
	ran := 0
	for _, cy := range cfg.Cycles {
		if !cy.Harness {
			ran++
		}
	}
	if ran == 0 {
		return p.Doc, "" // nothing of the engine's to judge yet
	}
	fault := "a crash"
	if power {
		fault = "a power loss"
	}
	promise = p.Doc
	if !p.Keeps(power) {
		return promise, "as documented (" + fault + " may lose acknowledged commits: " + p.Doc + ")"
	}
	var lost int64
	var lostIn, bad, dead int
	for _, cy := range cfg.Cycles {
		if cy.Harness {
			continue
		}
		if !cy.Started {
			dead++
			continue
		}
		if cy.Lost > 0 {
			lost, lostIn = lost+cy.Lost, lostIn+1
		}
		if !cy.IntegrityOK {
			bad++
		}
	}
	switch {
	case lostIn > 0:
		return promise, fmt.Sprintf("NOT as documented: %s keeps every acknowledged commit through %s (%s), yet %d were lost in %d cycles", keyOr(cfg.Key), fault, p.Doc, lost, lostIn)
	case bad > 0 || dead > 0:
		var yet []string
		if dead > 0 {
			yet = append(yet, fmt.Sprintf("it did not open again in %d cycles", dead))
		}
		if bad > 0 {
			yet = append(yet, fmt.Sprintf("it failed its integrity check in %d cycles", bad))
		}
		return promise, fmt.Sprintf("NOT as documented: %s keeps the database whole through %s (%s), yet %s", keyOr(cfg.Key), fault, p.Doc, strings.Join(yet, " and "))
	}
	return promise, "as documented (nothing acknowledged may be lost to " + fault + ")"
}

// NotAsDocumented reports whether a configuration's verdict (Judge's) is
// that its cycles broke what its engine documents.
func NotAsDocumented(cfg *result.CrashConfig) bool {
	return strings.HasPrefix(cfg.Verdict, "NOT as documented")
}

// Outcome is what the cycles of a crash record found, in the words of the
// command's last line: cli decides its exit status from it.
type Outcome struct {
	Cycles int // the cycles recorded, run or not
	// NotRun names each cycle that could not be run, with its error:
	// "durability=sync cycle 2: the run ended before its first commit …".
	NotRun []string
	// NotDocumented names each configuration whose verdict is NOT as
	// documented, with its figures: "durability=sync: 1414 acknowledged
	// commits lost in 2 of 2 cycles".
	NotDocumented []string
	// Failed names each other configuration that failed a check that
	// holds whatever the engine promises: the database opens again,
	// passes its integrity check, and holds no row that no commit made.
	Failed []string
}

// Tally sums up a crash record's configurations.
func Tally(rec *result.Crash) Outcome {
	var o Outcome
	for i := range rec.Configs {
		cfg := &rec.Configs[i]
		var ran, dead, bad, lostIn int
		var lost int64
		for _, cy := range cfg.Cycles {
			o.Cycles++
			switch {
			case cy.Harness:
				o.NotRun = append(o.NotRun, fmt.Sprintf("%s cycle %d: %s", keyOr(cfg.Key), cy.N, cy.Error))
				continue
			case !cy.Started:
				dead++
			case !cy.IntegrityOK:
				bad++
			}
			ran++
			if cy.Lost > 0 {
				lost, lostIn = lost+cy.Lost, lostIn+1
			}
		}
		wrong := NotAsDocumented(cfg)
		var what []string
		if wrong && lostIn > 0 { // lost commits fail only a promise that keeps them
			what = append(what, fmt.Sprintf("%d acknowledged commits lost in %d of %d cycles", lost, lostIn, ran))
		}
		if dead > 0 {
			what = append(what, fmt.Sprintf("did not open again in %d of %d cycles", dead, ran))
		}
		if bad > 0 {
			what = append(what, fmt.Sprintf("integrity check failed in %d of %d cycles", bad, ran))
		}
		if rows, in := phantoms(cfg); rows > 0 {
			what = append(what, fmt.Sprintf("%d rows present that no commit made, in %d of %d cycles", rows, in, ran))
		}
		switch {
		case wrong:
			o.NotDocumented = append(o.NotDocumented, keyOr(cfg.Key)+": "+strings.Join(what, ", "))
		case len(what) > 0:
			o.Failed = append(o.Failed, keyOr(cfg.Key)+": "+strings.Join(what, ", "))
		}
	}
	return o
}

// phantoms counts the rows a configuration's reopened databases held that
// no commit made (a bug in the engine or in dbgauge), and in how many cycles.
func phantoms(cfg *result.CrashConfig) (rows int64, cycles int) {
	for _, cy := range cfg.Cycles {
		if !cy.Harness && cy.Started && cy.Phantom > 0 {
			rows, cycles = rows+cy.Phantom, cycles+1
		}
	}
	return rows, cycles
}

// compare counts, against the ledger, the acknowledged ids missing from the
// database (lost), the ids in flight that survived, and ids present that
// were never committed (phantoms: a bug in the engine or in dbgauge).
func compare(bk *ledger.Book, present map[int64]bool, cy *result.CrashCycle) {
	// The child is dead and its pipe read to the end: every mark is older
	// than any moment from now on.
	after := time.Now().Add(time.Minute)
	v := bk.Verify(present, after, after)
	cy.Lost, cy.LostSample, cy.UnknownSurvived, cy.Phantom = v.Lost, v.LostSample, v.UnknownSurvived, v.Phantom
}

// keepLogs copies the *.log files of from into to.
func keepLogs(from, to string) {
	logs, _ := filepath.Glob(filepath.Join(from, "*.log"))
	for _, l := range logs {
		if b, err := os.ReadFile(l); err == nil {
			_ = os.WriteFile(filepath.Join(to, filepath.Base(l)), b, 0o644)
		}
	}
}
