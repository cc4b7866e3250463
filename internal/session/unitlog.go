package session

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// UnitLogFile is the name of --log-units' file inside the result folder.
const UnitLogFile = "units.csv.gz"

// unitLogger is --log-units: every unit written to units.csv.gz in the
// result folder, flushed every second.
type unitLogger struct{ l *unitLog }

func (u *unitLogger) beforeRun(_ context.Context, s *session, cfg *run.Config) error {
	if !s.logUnits {
		return nil
	}
	l, err := newUnitLog(s.writer.Dir(), s.w.Shape().Kinds(), time.Now())
	if err != nil {
		return fmt.Errorf("--log-units: %w", err)
	}
	u.l, cfg.Log = l, l.Unit
	s.res.UnitLog = UnitLogFile
	return nil
}

func (u *unitLogger) second(s *session, _ *metrics.Phase, _ *metrics.Interval, _ *result.Second) {
	if u.l == nil {
		return
	}
	if err := u.l.Flush(); err != nil {
		s.obs.Note("writing " + UnitLogFile + " failed: " + err.Error())
	}
}

func (u *unitLogger) runEnded(_ context.Context, s *session, _ *run.Outcome, _ time.Time) {
	u.closing(s)
}

// closing ends the file, once.
func (u *unitLogger) closing(s *session) {
	if u.l == nil {
		return
	}
	if err := u.l.Close(); err != nil {
		s.obs.Note("closing " + UnitLogFile + " failed: " + err.Error())
	}
	u.l = nil
}

// unitLog writes every unit to a gzipped CSV: when it started (seconds since
// the run began), the client, the unit kind, its latency, its outcome (ok,
// nothing, failed, lost: rolled back with its group) and the engine's
// code. It is flushed every second with the result, so a crash leaves all
// but the last second readable (zcat reads a stream cut short).
type unitLog struct {
	mu    sync.Mutex
	f     *os.File
	gz    *gzip.Writer
	w     *bufio.Writer
	t0    time.Time
	kinds []string
	buf   []byte
}

func newUnitLog(dir string, kinds []string, t0 time.Time) (*unitLog, error) {
	f, err := os.Create(filepath.Join(dir, UnitLogFile))
	if err != nil {
		return nil, err
	}
	gz := gzip.NewWriter(f)
	l := &unitLog{f: f, gz: gz, w: bufio.NewWriterSize(gz, 1<<16), t0: t0, kinds: kinds}
	_, err = l.w.WriteString("t_s,client,unit,latency_us,outcome,class,code\n")
	return l, err
}

// Unit records one unit; err is nil when it succeeded, ErrNothing when it
// found nothing to do, run.ErrRolledBack when its group rolled back (lost).
func (l *unitLog) Unit(client, kind int, start time.Time, d time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := strconv.AppendFloat(l.buf[:0], start.Sub(l.t0).Seconds(), 'f', 6, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(client), 10)
	b = append(b, ',')
	b = append(b, l.kinds[kind]...)
	b = append(b, ',')
	b = strconv.AppendInt(b, d.Microseconds(), 10)
	switch {
	case err == nil:
		b = append(b, ",ok,,\n"...)
	case errors.Is(err, workload.ErrNothing):
		b = append(b, ",nothing,,\n"...)
	case errors.Is(err, run.ErrRolledBack):
		b = append(b, ",lost,,\n"...)
	default:
		class, kind, code := dberr.Describe(err)
		b = append(b, ",failed,"...)
		b = append(b, class.String()+"/"+string(kind)...)
		b = append(b, ',')
		b = append(b, code...)
		b = append(b, '\n')
	}
	l.buf = b
	_, _ = l.w.Write(b)
}

// Flush pushes what was written so far to the file.
func (l *unitLog) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.w.Flush(); err != nil {
		return err
	}
	return l.gz.Flush()
}

// Close ends the file.
func (l *unitLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.w.Flush()
	if cerr := l.gz.Close(); err == nil {
		err = cerr
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
