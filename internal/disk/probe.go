package disk

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Method is how a write is made durable.
type Method string

// The methods, as a database's log writer may use them.
const (
	Fsync     Method = "fsync"     // write, then fsync(2)
	Fdatasync Method = "fdatasync" // write, then fdatasync(2)
	OSync     Method = "osync"     // the file opened O_SYNC: each write returns when stored
	ODsync    Method = "odsync"    // the file opened O_DSYNC
	None      Method = "none"      // write only: the page cache's speed, for reference
)

// Methods lists every method, in the order the table shows them.
var Methods = []Method{Fdatasync, Fsync, ODsync, OSync, None}

// Flushes reports whether the method claims durability.
func (m Method) Flushes() bool { return m != None }

// Pattern is where each write goes.
type Pattern string

// The patterns.
const (
	// Rewrite writes one block at a fixed offset, over and over: the seed's
	// synthetic log writer (seek, write, flush).
	Rewrite Pattern = "rewrite"
	// Append writes at the end, so the file grows and its size must be
	// flushed too.
	Append Pattern = "append"
)

// Config says what to probe.
type Config struct {
	Dir      string
	Blocks   []int
	Methods  []Method
	Patterns []Pattern
	Duration time.Duration // per cell; 0 when Ops is set
	Ops      int64         // per cell
	Direct   bool          // O_DIRECT: bypass the page cache (block sizes must be multiples of 512)
}

// ParseMethods parses "fsync,fdatasync,…".
func ParseMethods(s string) ([]Method, error) {
	var out []Method
	for _, f := range strings.Split(s, ",") {
		m := Method(strings.TrimSpace(f))
		ok := false
		for _, k := range Methods {
			ok = ok || k == m
		}
		if !ok {
			return nil, knob.Bad("give methods among fdatasync, fsync, odsync, osync, none", "--method %q is not a method", f)
		}
		out = append(out, m)
	}
	return out, nil
}

// ParsePatterns parses "rewrite,append".
func ParsePatterns(s string) ([]Pattern, error) {
	var out []Pattern
	for _, f := range strings.Split(s, ",") {
		p := Pattern(strings.TrimSpace(f))
		if p != Rewrite && p != Append {
			return nil, knob.Bad("give rewrite, append or both", "--pattern %q is not a pattern", f)
		}
		out = append(out, p)
	}
	return out, nil
}

// ParseBlocks parses "512,4k,8k,16k" into bytes.
func ParseBlocks(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"), strings.HasSuffix(f, "kib"):
			mult, f = 1024, strings.TrimSuffix(strings.TrimSuffix(f, "ib"), "k")
		case strings.HasSuffix(f, "m"), strings.HasSuffix(f, "mib"):
			mult, f = 1024*1024, strings.TrimSuffix(strings.TrimSuffix(f, "ib"), "m")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || n*mult > 64<<20 {
			return nil, knob.Bad("give sizes from 1 byte to 64m, e.g. --block 512,4k,8k,16k", "--block %q is not a block size", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// Validate checks the folder and the combination of settings.
func (c Config) Validate() error {
	st, err := os.Stat(c.Dir)
	if err != nil {
		return knob.Bad("give an existing folder with --path", "--path %s: %v", c.Dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return knob.Bad("give a folder, not a file", "--path %s is not a folder", c.Dir)
	}
	f, err := os.CreateTemp(c.Dir, ".dbgauge-writable-*")
	if err != nil {
		return knob.Bad("give a folder you can write", "--path %s is not writable: %v", c.Dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	if c.Direct {
		for _, b := range c.Blocks {
			if b%512 != 0 {
				return knob.Bad("with --direct, give multiples of 512", "--block %d cannot be written with O_DIRECT", b)
			}
		}
	}
	if c.Duration <= 0 && c.Ops <= 0 {
		return knob.Bad("give --duration 5s or --ops 1000", "the probe has neither a duration nor a number of operations")
	}
	return nil
}

// scratchPrefix names the probe's files; files left by a dead probe are removed.
const scratchPrefix = ".dbgauge-probe-"

// appendLimit is where an appending probe truncates its file and starts over.
const appendLimit = 64 << 20

// Probe measures every cell of cfg in turn. each, if not nil, sees each cell
// as it is done. Closing stop ends the probe after the current operation;
// the scratch file is removed whatever happens.
func Probe(ctx context.Context, cfg Config, stop <-chan struct{}, each func(result.DiskCell)) ([]result.DiskCell, error) {
	removeStale(cfg.Dir)
	var cells []result.DiskCell
	for _, p := range cfg.Patterns {
		for _, b := range cfg.Blocks {
			for _, m := range cfg.Methods {
				select {
				case <-stop:
					return cells, nil
				default:
				}
				c, err := probeCell(ctx, cfg, m, p, b, stop)
				if err != nil {
					c.Error = err.Error()
				}
				cells = append(cells, c)
				if each != nil {
					each(c)
				}
			}
		}
	}
	return cells, nil
}

var shape = workload.Shape{Units: []workload.Weighted{{Name: "write+flush", Weight: 1}}, Ops: []string{"write", "flush"}}

const (
	opWrite = iota
	opFlush
)

func probeCell(ctx context.Context, cfg Config, m Method, p Pattern, block int, stop <-chan struct{}) (result.DiskCell, error) {
	cell := result.DiskCell{Method: string(m), Pattern: string(p), Block: block, Direct: cfg.Direct}
	path := filepath.Join(cfg.Dir, fmt.Sprintf("%s%d", scratchPrefix, os.Getpid()))
	defer os.Remove(path)
	f, err := openScratch(path, m, cfg.Direct)
	if err != nil {
		return cell, err
	}
	defer f.Close()
	buf := alignedBlock(block)
	for i := range buf {
		buf[i] = byte(i*7 + 3)
	}
	if p == Rewrite {
		// The block exists and is stored before the clock starts: only its
		// rewrite is measured, as a log writer overwrites its current page.
		if _, err := f.WriteAt(buf, 0); err != nil {
			return cell, err
		}
		if err := f.Sync(); err != nil {
			return cell, err
		}
	}
	limit := int64(max(appendLimit, 1000*block))
	open := func(context.Context, int, *rand.Rand) (workload.Client, error) {
		return newWriter(f, m, p, buf, limit), nil
	}
	out, err := run.Run(ctx, run.Config{Clients: 1, Duration: cfg.Duration, Units: cfg.Ops, Seed: 1}, shape, open, stop, nil)
	if err != nil {
		return cell, err
	}
	rec := out.Phases[len(out.Phases)-1].Record(true)
	cell.Ops, cell.Seconds, cell.Rate, cell.Latency = rec.OK, rec.Seconds, rec.Rate, rec.All
	cell.Latency.Name = "write+flush"
	cell.Write = rec.Ops[opWrite]
	if m == Fsync || m == Fdatasync {
		cell.Flush = rec.Ops[opFlush]
	}
	if out.Err != nil {
		return cell, out.Err
	}
	return cell, nil
}

// writer is the probe's one client: the synthetic log writer.
type writer struct {
	f     *os.File
	p     Pattern
	buf   []byte
	at    int64 // where the current write goes
	off   int64 // append: where the next write goes
	limit int64
	// The operations, made once: a closure made in Do was garbage at every unit.
	write, flush func() error
	units        int // between units so far, to yield every yieldEvery
}

// yieldEvery is how many units the writer does between two passes through
// Go's scheduler. A goroutine that lives in blocking system calls never
// passes through it on its own; after 10 ms on one scheduling tick the
// runtime's monitor takes its processor away during a call and hands it to
// another thread, and the goroutine resumes on yet another: a plain Go loop
// of O_DSYNC writes did 0.90–0.94 of fio's writes a second (medians of 12–20
// alternating rounds), the same loop yielding every 32 writes 0.99
// (runtime.Gosched: it goes on at once on its own thread, nothing else
// waiting).
const yieldEvery = 32

func newWriter(f *os.File, m Method, p Pattern, buf []byte, limit int64) *writer {
	w := &writer{f: f, p: p, buf: buf, limit: limit}
	w.write = func() error {
		_, err := w.f.WriteAt(w.buf, w.at)
		return err
	}
	switch m {
	case Fsync:
		w.flush = w.f.Sync
	case Fdatasync:
		w.flush = func() error { return fdatasync(w.f) }
	}
	return w
}

func (w *writer) Do(_ context.Context, _ int, ops workload.Ops) error {
	w.at = 0
	if w.p == Append {
		if w.off+int64(len(w.buf)) > w.limit {
			if err := w.f.Truncate(0); err != nil {
				return ioError(err)
			}
			w.off = 0
		}
		w.at = w.off
		w.off += int64(len(w.buf))
	}
	if err := ops.Time(opWrite, w.write); err != nil {
		return ioError(err)
	}
	if w.flush == nil {
		return nil
	}
	return ioError(ops.Time(opFlush, w.flush))
}

var _ workload.Interluder = (*writer)(nil)

// BetweenUnits passes through Go's scheduler every yieldEvery units,
// outside any unit's latency (workload.Interluder).
func (w *writer) BetweenUnits(context.Context) {
	if w.units++; w.units%yieldEvery == 0 {
		runtime.Gosched()
	}
}

func (w *writer) Close(context.Context) error { return nil }

// ioError classifies an I/O error: the probe cannot go on, so it is fatal.
func ioError(err error) error {
	if err == nil {
		return nil
	}
	return dberr.New(dberr.Fatal, dberr.IO, "", err)
}

// alignedBlock returns a buffer of n bytes aligned to 4096, for O_DIRECT.
func alignedBlock(n int) []byte {
	const align = 4096
	raw := make([]byte, n+align)
	shift := 0
	if r := int(uintptrOf(raw) % align); r != 0 {
		shift = align - r
	}
	return raw[shift : shift+n : shift+n]
}

// removeStale deletes scratch files of probes whose process is gone.
func removeStale(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, scratchPrefix+"*"))
	for _, m := range matches {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), scratchPrefix))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
			continue // alive
		}
		os.Remove(m)
	}
}
