package cli

import (
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/openmetrics"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
)

// outputKnobs are how a run talks to its user and to other tools: cli's
// own knobs, which the session never sees.
var outputKnobs = []knob.Spec{
	{Name: "live", Kind: knob.Switch, Single: true, Uses: knob.ForLoad,
		Usage: "on a terminal, one progress line rewritten in place instead of a line per interval that stays in the scrollback"},
	{Name: "quiet", Short: "q", Kind: knob.Switch, Single: true, Uses: knob.ForLoad,
		Usage: "nothing on stderr but errors and a script's debug() lines: no notes, no progress lines (the summary still goes to stdout)"},
	{Name: "json", Kind: knob.Switch, Single: true,
		Usage: "print the final summary on stdout as JSON instead of text (result.json beside it holds everything)"},
	{Name: "metrics-addr", Values: "HOST:PORT", Single: true,
		Usage: "serve the live run as OpenMetrics for Prometheus on http://HOST:PORT/metrics, e.g. 127.0.0.1:9464 (port 0: a free one, said on stderr); a matrix's cells serve in turn"},
	{Name: "metrics-linger", Kind: knob.Duration, Default: "0s", Single: true,
		Usage: "with --metrics-addr: keep serving the final figures this long after the run, so that a scrape sees its end (Prometheus scrapes every 15s by default)"},
}

// output is what the output knobs say.
type output struct {
	live, quiet, json bool
	metricsAddr       string        // --metrics-addr: "" serves nothing
	linger            time.Duration // --metrics-linger
}

// readOutput reads the output knobs a command bound.
func readOutput(fs *pflag.FlagSet) (output, error) {
	v := knob.NewValues(outputKnobs)
	setValues(fs, v)
	var o output
	var err error
	for name, dst := range map[string]*bool{"live": &o.live, "quiet": &o.quiet, "json": &o.json} {
		if *dst, err = v.Bool(name); err != nil {
			return o, err
		}
	}
	if o.linger, err = v.Duration("metrics-linger"); err != nil {
		return o, err
	}
	if o.metricsAddr = v.Get("metrics-addr"); o.metricsAddr != "" {
		if _, _, err := net.SplitHostPort(o.metricsAddr); err != nil {
			return o, knob.Bad("give HOST:PORT, e.g. --metrics-addr 127.0.0.1:9464 (or :9464 for every address)", "--metrics-addr %q: %v", o.metricsAddr, err)
		}
	}
	return o, nil
}

// progress prints the session's notes and its progress lines to stderr: a
// line per --progress interval that stays, as pgbench -P prints them, or
// with --live on a terminal one line rewritten in place.
type progress struct {
	env   *Env
	out   output
	cell  string        // a matrix's cell: "3/24"
	after time.Duration // the matrix's time left after this cell
	mu    sync.Mutex
	open  bool                // a progress line is on screen without its newline
	warm  *result.Result      // a warm-up went by and its note is still to print
	serve *openmetrics.Server // --metrics-addr; nil without

	// Long work (a load): a line every `every` (--progress), or a few times
	// a second in place with --live.
	every     time.Duration
	workStart time.Time
	workLast  time.Time
	workTotal int64 // the last total heard
}

// Work prints how far long work got: a line every --progress seconds that
// stays, or with --live on a terminal one line rewritten a few times a
// second; the last one when it is done.
func (p *progress) Work(what string, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.workStart.IsZero() {
		p.workStart, p.workLast = now, now
	}
	p.workTotal = total
	if p.every == 0 || p.out.quiet {
		return
	}
	step := p.every
	if p.inPlace() {
		step = 250 * time.Millisecond
	}
	if now.Sub(p.workLast) < step && done < total {
		return
	}
	p.workLast = now
	p.line(workLine(what, "records", done, total, now.Sub(p.workStart)))
}

// workDone is the total the long work last said.
func (p *progress) workDone() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.workTotal
}

// Tick hands --metrics-addr's endpoint the result of every second.
func (p *progress) Tick(res *result.Result, phase string) {
	if p.serve != nil {
		p.serve.Update(res, phase)
	}
}

// inPlace reports whether lines are rewritten in place.
func (p *progress) inPlace() bool { return p.out.live && p.env.IsTTY }

func (p *progress) Note(msg string) {
	if p.out.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(p.env.Stderr, "dbgauge: "+msg)
}

func (p *progress) Started(res *result.Result) {
	c := res.Config
	first := ""
	if c.Warmup > 0 {
		first = fmt.Sprintf(", %s of warm-up first (measured, then discarded)", time.Duration(c.Warmup))
		if c.WarmupAuto {
			first = fmt.Sprintf(", a warm-up first until the rate settles, %s at most (measured, then discarded)", time.Duration(c.Warmup))
		}
	}
	p.Note(fmt.Sprintf("%s on %s %s, %d client(s)%s, results in %s", c.Workload, res.Engine.Name, res.Engine.Version, c.Clients, first, res.ID))
}

// Second prints the line of a progress interval. The warm-up's intervals
// make no line: the measure phase's lines count from its start, as
// pgbench's do, and a note before them says what the warm-up did.
func (p *progress) Second(res *result.Result, s result.Second) {
	if p.out.quiet || s.Dt < 0.25 { // a sliver at a phase boundary: in the series, not worth a line
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.Phase != "measure" {
		p.warm = res
		return
	}
	p.warmNoteLocked()
	line := report.Progress(res, s)
	if p.cell != "" {
		left := p.after
		if res.Config.Units == 0 {
			left += time.Duration(res.Config.Warmup+res.Config.Duration) - time.Duration(s.T*float64(time.Second))
		}
		line += fmt.Sprintf("  [cell %s, matrix done in ~%s]", p.cell, max(left, 0).Round(time.Second))
	}
	p.line(line)
}

// line prints a progress line: in place with --live on a terminal, else
// as a line of its own. Call with p.mu held.
func (p *progress) line(line string) {
	if p.inPlace() {
		fmt.Fprint(p.env.Stderr, "\r\033[K"+line)
		p.open = true
		return
	}
	fmt.Fprintln(p.env.Stderr, line)
}

// warmNoteLocked says what the warm-up did, once. Call with p.mu held.
func (p *progress) warmNoteLocked() {
	res := p.warm
	p.warm = nil
	if res == nil || res.Phase("warmup") == nil {
		return
	}
	w := res.Phase("warmup")
	p.clearLocked()
	auto := ""
	if w.Settled != nil {
		auto = "; auto: the rate settled"
		if !*w.Settled {
			auto = fmt.Sprintf("; auto: the rate had not settled by its cap of %s", res.Config.Warmup)
		}
	}
	fmt.Fprintf(p.env.Stderr, "dbgauge: warm-up: %.1f s, %s %s, p99 %s (discarded%s)\n", w.Seconds, report.Rate(w.Rate), res.Config.UnitRate, report.Us(w.All.P99Us), auto)
}

func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.warmNoteLocked()
	p.clearLocked()
}

func (p *progress) clearLocked() {
	if p.open {
		fmt.Fprintln(p.env.Stderr)
		p.open = false
	}
}

// workLine is a progress line of long work (a load, a fill, a restore):
// how far it got, its rate and, once it has a pace, the time to go.
func workLine(what, unit string, done, total int64, el time.Duration) string {
	s := el.Seconds()
	done = min(done, total) // a fill may go a little past its target
	line := fmt.Sprintf("%s: %d of %d %s (%.0f %%), %.0f %s/s, %.0f s", what, done, total, unit, 100*float64(done)/float64(max(total, 1)), float64(done)/max(s, 1e-3), unit, s)
	if done > 0 && done < total && s >= 1 {
		line += fmt.Sprintf(", about %.0f s to go", s*float64(total-done)/float64(done))
	}
	return line
}
