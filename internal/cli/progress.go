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
		Usage: "nothing on stderr but errors: no notes, no progress lines (the summary still goes to stdout)"},
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
	fmt.Fprintf(p.env.Stderr, "dbgauge: warm-up: %.1f s, %s %s, p99 %s (discarded)\n", w.Seconds, report.Rate(w.Rate), res.Config.UnitRate, report.Us(w.All.P99Us))
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
