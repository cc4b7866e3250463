package browsertest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/htmlreport/browsertest"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestCheckSeesTrouble proves the checker can fail: a page that logs an
// error, throws, and asks the network for an image is reported as such.
func TestCheckSeesTrouble(t *testing.T) {
	if _, err := browsertest.Chromium(); err != nil {
		testenv.Need(t, err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "bad.html")
	html := `<!DOCTYPE html><html><head><title>bad</title></head><body>
<div data-chart="x"><canvas width="10" height="10"></canvas></div>
<img src="http://127.0.0.1:9/missing.png">
<script>throw new Error("planted exception");</script>
<script>
console.error("planted error");
var c = document.querySelector("canvas").getContext("2d");
c.fillRect(0, 0, 5, 5);
document.body.setAttribute("data-charts-count", "1");
document.body.setAttribute("data-charts", "drawn");
</script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	png := filepath.Join(dir, "bad.png")
	seen, err := browsertest.Check(ctx, page, png)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(seen.Exceptions, "planted exception") {
		t.Errorf("exceptions %q lack the planted one", seen.Exceptions)
	}
	if !contains(seen.ConsoleErrors, "planted error") {
		t.Errorf("console errors %q lack the planted one", seen.ConsoleErrors)
	}
	if len(seen.Requests) == 0 || !strings.Contains(strings.Join(seen.Requests, " "), "127.0.0.1:9/missing.png") {
		t.Errorf("requests %q lack the image", seen.Requests)
	}
	if !seen.Drawn || seen.Charts != 1 || seen.Painted != 1 {
		t.Errorf("drawn %v, charts %d, painted %d; want true, 1, 1", seen.Drawn, seen.Charts, seen.Painted)
	}
	if _, err := os.Stat(png); err != nil {
		t.Errorf("no screenshot: %v", err)
	}
	t.Logf("seen: %+v", seen)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
