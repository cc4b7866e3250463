// Package browsertest opens an HTML report in headless Chromium and says what
// the browser saw: console errors, uncaught exceptions, every network request,
// and whether the charts drew. Tests use it to hold the HTML reports to their
// promise: one file that opens offline, draws every chart and asks the network
// for nothing.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Seen is what the browser saw while it opened a page.
type Seen struct {
	ConsoleErrors []string // console.error calls, and the browser's own error log entries
	Exceptions    []string // uncaught exceptions
	Requests      []string // every network request other than file:// URLs (the page's own and those beside it) and data:/blob: URLs
	Files         []string // the file:// URLs the page loaded besides itself (a matrix's shared ECharts)
	Charts        int      // charts drawn: the page's data-charts-count, set as each chart fires "finished"
	Drawn         bool     // body data-charts == "drawn"
	Painted       int      // chart containers whose canvas has at least one non-transparent pixel
}

// WaitTimeout bounds the wait for body[data-charts].
const WaitTimeout = 30 * time.Second

// Chromium returns the path of the browser, or an error saying how to get one.
func Chromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found on PATH: install Debian's chromium package (apt-get install chromium)")
}

// Check opens the HTML file at path in headless Chromium (a 1440×900 window),
// waits up to WaitTimeout for body[data-charts], and returns what it saw. It
// writes a full-page PNG screenshot to screenshot unless that is "". The
// error is about the browser or the wait; what the page did wrong is in Seen.
func Check(ctx context.Context, path, screenshot string) (Seen, error) {
	var seen Seen
	bin, err := Chromium()
	if err != nil {
		return seen, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return seen, err
	}
	page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.WindowSize(1440, 900),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()

	var mu sync.Mutex
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				seen.ConsoleErrors = append(seen.ConsoleErrors, args(ev.Args))
			}
		case *runtime.EventExceptionThrown:
			seen.Exceptions = append(seen.Exceptions, exception(ev.ExceptionDetails))
		case *log.EventEntryAdded:
			if e := ev.Entry; e != nil && e.Level == log.EntryLevelError {
				seen.ConsoleErrors = append(seen.ConsoleErrors, fmt.Sprintf("[%s] %s %s", e.Source, e.Text, e.URL))
			}
		case *network.EventRequestWillBeSent:
			if ev.Request == nil {
				return
			}
			u := ev.Request.URL
			if u == page || strings.HasPrefix(u, page+"#") || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") {
				return
			}
			if strings.HasPrefix(u, "file://") {
				seen.Files = append(seen.Files, u)
				return
			}
			seen.Requests = append(seen.Requests, u)
		}
	}
	tctx, cancelTab := chromedp.NewContext(actx, chromedp.WithListener(listen))
	defer cancelTab()

	snapshot := func() Seen {
		mu.Lock()
		defer mu.Unlock()
		s := seen
		s.ConsoleErrors = append([]string(nil), seen.ConsoleErrors...)
		s.Exceptions = append([]string(nil), seen.Exceptions...)
		s.Requests = append([]string(nil), seen.Requests...)
		s.Files = append([]string(nil), seen.Files...)
		return s
	}

	if err := chromedp.Do(tctx, chromedp.Navigate(page)); err != nil {
		return snapshot(), fmt.Errorf("open %s in %s: %w", page, bin, err)
	}
	// A loop of plain evaluations, not chromedp.Poll: Poll builds its
	// predicate with new Function, which the report's Content-Security-Policy
	// (no 'unsafe-eval') rightly refuses.
	waitErr := waitFor(tctx, `document.body !== null && document.body.hasAttribute("data-charts")`, WaitTimeout)

	type state struct {
		Charts  string `json:"charts"`
		Count   string `json:"count"`
		Painted int    `json:"painted"`
	}
	st, err := chromedp.Run(tctx, chromedp.Evaluate[state](stateJS))
	if err != nil {
		return snapshot(), fmt.Errorf("read the page's state: %w", err)
	}
	if screenshot != "" {
		png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
		if err != nil {
			return snapshot(), fmt.Errorf("screenshot: %w", err)
		}
		if err := os.WriteFile(screenshot, png, 0o644); err != nil {
			return snapshot(), err
		}
	}
	out := snapshot()
	out.Drawn = st.Charts == "drawn"
	out.Charts, _ = strconv.Atoi(st.Count)
	out.Painted = st.Painted
	if waitErr != nil {
		return out, fmt.Errorf("waiting %s for body[data-charts]: %w (console errors: %q, exceptions: %q)",
			WaitTimeout, waitErr, out.ConsoleErrors, out.Exceptions)
	}
	return out, nil
}

// waitFor evaluates expr every 50 ms until it is true or timeout passes.
func waitFor(ctx context.Context, expr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stateJS reads the body's chart attributes and counts chart containers
// whose canvas holds a visible pixel.
const stateJS = `(() => {
  const b = document.body;
  let painted = 0;
  for (const el of document.querySelectorAll('[data-chart]')) {
    const c = el.querySelector('canvas');
    if (!c || !c.width || !c.height) continue;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < d.length; i += 4) {
      if (d[i] !== 0) { painted++; break; }
    }
  }
  return {
    charts: (b && b.getAttribute('data-charts')) || '',
    count: (b && b.getAttribute('data-charts-count')) || '0',
    painted: painted,
  };
})()`

func args(list []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range list {
		if a == nil {
			continue
		}
		switch {
		case a.Type == runtime.RemoteObjectTypeString && len(a.Value) > 0:
			s, err := strconv.Unquote(string(a.Value))
			if err != nil {
				s = string(a.Value)
			}
			parts = append(parts, s)
		case a.Description != "":
			parts = append(parts, a.Description)
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

func exception(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "exception"
	}
	s := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		s += " " + d.Exception.Description
	}
	return fmt.Sprintf("%s (%s:%d:%d)", s, d.URL, d.LineNumber+1, d.ColumnNumber+1)
}
