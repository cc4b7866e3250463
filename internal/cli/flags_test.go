package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestHelpShowsKnobTypes: `run WORKLOAD --help` shows each knob's type from
// its declaration (the choices of a choice, a range), its default, and
// which knobs take a comma list (a matrix axis); a switch takes no value,
// and a knob whose commas are its own is no list. --db lists its forms one
// a line.
func TestHelpShowsKnobTypes(t *testing.T) {
	code, out, errs := runCLI(t, nil, "run", "nms", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := []string{
		`(?m)^  -c, --clients int  +concurrent clients[^()]*\(default\s+1;\s+a\s+list\s+makes\s+a\s+matrix\s+axis\)`,
		`--durability sync\|lazy\|off  +flush at every commit[^()]*\(default\s+sync;\s+a\s+list\s+makes\s+a\s+matrix\s+axis\)`,
		`--ops-per-call int 3\.\.  +operations`,
		`--warmup DURATION\|auto\[:MAX\]  +warm-up`,
		`--cache size  +the engine's own cache`,
		`(?m)--procedure  +run each call as one stored procedure \(engines that have them\)$`,
		`--set key=value  +a raw engine setting`,
		`(?m)--backup at=D\[,to=D\]  +take[^(]*\([^)]*\)[^(]*\(PostgreSQL\)$`,
		`--topology none\|1\|2-direct\|2-chain\s+postgres:managed`,
		`(?m)--db URL  +the engine \(default sqlite; a list makes a matrix axis\):\n +sqlite \(a file in the run's folder\)\n +sqlite:PATH\n`,
	}
	for _, w := range want {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("help lacks %s", w)
		}
	}
	if !strings.Contains(out, "takes a comma list") {
		t.Error("help does not say what a list does")
	}
	if strings.Contains(out, " string ") || strings.Contains(out, "stringArray") || strings.Contains(out, "[,...]") {
		t.Errorf("a knob shows as a Go type or in list's notation:\n%s", out)
	}
	if regexp.MustCompile(`seed [0-9]|seed note`).MatchString(out) {
		t.Errorf("help speaks of the seeds:\n%s", out)
	}
}

// TestHelpOnlyItsOwn: a command that does not read a run's flags neither
// lists nor takes them (the flags the issue found in load tpcb --help).
func TestHelpOnlyItsOwn(t *testing.T) {
	code, out, _ := runCLI(t, nil, "load", "tpcb", "--help")
	if code != 0 || !strings.Contains(out, "--scale int") || !strings.Contains(out, "--db URL") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, name := range []string{"warmup", "rate", "require", "backup", "select-only", "clients", "repeat", "results"} {
		if strings.Contains(out, "--"+name+" ") {
			t.Errorf("load tpcb --help lists --%s", name)
		}
		code, _, errs := runCLI(t, nil, "load", "tpcb", "--"+name+"=1", "--db", "sqlite:"+t.TempDir()+"/x.db")
		if code != ExitUsage || !strings.Contains(errs, "unknown flag: --"+name) {
			t.Errorf("load tpcb --%s: exit %d, %q", name, code, errs)
		}
		// run tpcb takes each of them: the refusal says whose it is.
		if !strings.Contains(errs, "(a flag of dbgauge run tpcb; load only fills the dataset") {
			t.Errorf("load tpcb --%s: %q does not say it is run's", name, errs)
		}
	}
	if _, _, errs := runCLI(t, nil, "load", "tpcb", "--bogus=1"); !strings.Contains(errs, "unknown flag: --bogus: see") {
		t.Errorf("load tpcb --bogus, which run lacks too: %q", errs)
	}
	code, out, _ = runCLI(t, nil, "crash", "insert", "--help")
	if code != 0 || !strings.Contains(out, "--cycles int") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, name := range []string{"duration", "warmup", "units", "stop-file", "data-dir", "repeat"} {
		if strings.Contains(out, "--"+name+" ") {
			t.Errorf("crash insert --help lists --%s, which crash sets itself", name)
		}
	}
}
