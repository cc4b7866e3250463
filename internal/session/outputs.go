package session

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
)

// The files beside result.json that other tools read, written as the run
// goes (flushed every second, as the result is saved).
const (
	// SeriesFile is the series of result.json as CSV, a row a point: what a
	// notebook or a spreadsheet reads.
	SeriesFile = "series.csv"
	// LatencyLogFile is an HdrHistogram interval log (format 1.3) of the
	// units' latencies, one interval histogram a second, tagged with its
	// phase; values in microseconds. HdrHistogram's own tools read it
	// (HistogramLogProcessor -i latency.hlog -outputValueUnitRatio 1000
	// prints milliseconds), as hdrhistogram-go's HistogramLogReader does.
	LatencyLogFile = "latency.hlog"
)

// seriesClasses are the error classes series.csv has a column for, failed
// and retried: every class a unit can fail with.
var seriesClasses = []dberr.Class{dberr.Retryable, dberr.Rollback, dberr.Unavailable, dberr.Canceled, dberr.Fatal}

// outputs writes series.csv and latency.hlog.
type outputs struct {
	csv, hlog *os.File
	cw, hw    *bufio.Writer
	log       *hdrhistogram.HistogramLogWriter
	err       error // the first write that failed: said once
}

func (o *outputs) beforeRun(_ context.Context, s *session, _ *run.Config) error {
	dir := s.writer.Dir()
	var err error
	if o.csv, err = os.Create(filepath.Join(dir, SeriesFile)); err != nil {
		return err
	}
	if o.hlog, err = os.Create(filepath.Join(dir, LatencyLogFile)); err != nil {
		_ = o.csv.Close()
		o.csv = nil // closing has nothing to close
		return err
	}
	o.cw, o.hw = bufio.NewWriter(o.csv), bufio.NewWriter(o.hlog)
	head := "t,dt,phase,partial,ok,rate,failed,nothing,retries,mean_us,sd_us,p50_us,p99_us,max_us"
	for _, c := range seriesClasses {
		head += ",failed_" + c.String()
	}
	for _, c := range seriesClasses {
		head += ",retried_" + c.String()
	}
	fmt.Fprintln(o.cw, head)
	o.log = hdrhistogram.NewHistogramLogWriter(o.hw)
	start := time.Now().UnixMilli()
	o.log.SetBaseTime(start)
	_ = o.log.OutputLogFormatVersion() // writes to a bufio.Writer; its error comes at Flush
	_ = o.log.OutputComment("[dbgauge " + s.res.Config.Workload + " on " + s.res.Config.Backend + ", result " + s.res.ID + ": latencies of the units that succeeded, in microseconds; each interval tagged with its phase; Interval_Max in seconds]")
	_ = o.log.OutputStartTime(start)
	_ = o.log.OutputBaseTime(start)
	_ = o.log.OutputLegend()
	return o.flush(s)
}

// second writes the interval's histogram to latency.hlog.
func (o *outputs) second(s *session, p *metrics.Phase, iv *metrics.Interval, _ *result.Second) {
	if o.log == nil {
		return
	}
	h := hdrhistogram.Import(iv.All().Export()) // a copy: the interval's own is not to be touched
	h.SetTag(p.Name)
	h.SetStartTimeMs(iv.Start.UnixMilli())
	h.SetEndTimeMs(iv.End.UnixMilli())
	if err := o.log.OutputIntervalHistogram(h); err != nil {
		o.fail(s, err)
	}
}

// point writes a point of the series to series.csv, and flushes both
// files: it comes when the result is saved.
func (o *outputs) point(s *session, pt result.Second) {
	if o.cw == nil {
		return
	}
	rate := ""
	if !pt.Partial && pt.Dt > 0 {
		rate = strconv.FormatFloat(float64(pt.OK)/pt.Dt, 'f', 3, 64)
	}
	fmt.Fprintf(o.cw, "%.3f,%.3f,%s,%t,%d,%s,%d,%d,%d,%.1f,%.1f,%d,%d,%d", pt.T, pt.Dt, pt.Phase, pt.Partial, pt.OK, rate,
		pt.Failed, pt.Nothing, pt.Retries, pt.MeanUs, pt.SdUs, pt.P50Us, pt.P99Us, pt.MaxUs)
	for _, c := range seriesClasses {
		fmt.Fprintf(o.cw, ",%d", pt.FailedBy[c.String()])
	}
	for _, c := range seriesClasses {
		fmt.Fprintf(o.cw, ",%d", pt.RetriedBy[c.String()])
	}
	fmt.Fprintln(o.cw)
	if err := o.flush(s); err != nil {
		o.fail(s, err)
	}
}

func (o *outputs) flush(*session) error {
	if err := o.cw.Flush(); err != nil {
		return err
	}
	return o.hw.Flush()
}

// fail says the first error writing the files, once: the run goes on.
func (o *outputs) fail(s *session, err error) {
	if o.err == nil {
		o.err = err
		s.obs.Note(fmt.Sprintf("writing %s and %s failed: %v", SeriesFile, LatencyLogFile, err))
	}
}

// closing closes both files, once, after the series' last point.
func (o *outputs) closing(s *session) {
	if o.csv == nil {
		return
	}
	if err := o.flush(s); err != nil {
		o.fail(s, err)
	}
	for _, f := range []*os.File{o.csv, o.hlog} {
		if err := f.Close(); err != nil {
			o.fail(s, err)
		}
	}
	o.csv, o.hlog, o.cw, o.hw, o.log = nil, nil, nil, nil, nil
}
