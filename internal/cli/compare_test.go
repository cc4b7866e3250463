package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// oneRun runs insert once and returns its result folder.
func oneRun(t *testing.T, args ...string) string {
	t.Helper()
	root := t.TempDir()
	args = append([]string{"run", "insert", "--duration", "4s", "--warmup", "0", "--ceiling", "off", "--results", root}, args...)
	if code, out, errs := runCLI(t, nil, args...); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*-insert-*"))
	if len(dirs) != 1 {
		t.Fatalf("result folders: %v", dirs)
	}
	return dirs[0]
}

// rateRow returns the line of the throughput in compare's table.
func rateRow(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "inserts/s") {
			return l
		}
	}
	t.Fatalf("no throughput row:\n%s", out)
	return ""
}

func TestCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("four 4-second runs")
	}
	// The same configuration twice, paced so that both deliver the same
	// rate: nothing to tell apart.
	a := oneRun(t, "--durability", "off", "--rate", "300")
	b := oneRun(t, "--durability", "off", "--rate", "300")
	code, out, errs := runCLI(t, nil, "compare", a, b, "--html", filepath.Join(t.TempDir(), "c.html"))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if row := rateRow(t, out); !strings.Contains(row, "not significant") {
		t.Errorf("same configuration, paced: %s", row)
	}

	// sync against off, closed loop: off is faster, by a ratio above one.
	sync := oneRun(t, "--durability", "sync")
	off := oneRun(t, "--durability", "off")
	code, out, errs = runCLI(t, nil, "compare", sync, off, "--fail-if-slower", "5%")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	row := rateRow(t, out)
	m := regexp.MustCompile(`×([0-9.]+) \(([0-9.]+)–([0-9.]+)\) faster`).FindStringSubmatch(row)
	if m == nil {
		t.Fatalf("off against sync: %s", row)
	}
	if lo, _ := strconv.ParseFloat(m[2], 64); lo <= 1 {
		t.Errorf("off against sync: %s", row)
	}
	// The other way round, slower, and --fail-if-slower says so with exit 1.
	code, out, _ = runCLI(t, nil, "compare", off, sync, "--fail-if-slower", "5%")
	if code != ExitUnmet || !strings.Contains(rateRow(t, out), "slower") {
		t.Errorf("sync against off: exit %d\n%s", code, out)
	}
}
