package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestHelpShowsKnobTypes: `run WORKLOAD --help` shows each knob's type from
// its declaration (the choices of a choice, a range), its default, and
// which knobs take a comma list (a matrix axis); a switch takes no value,
// and a knob whose commas are its own is no list.
func TestHelpShowsKnobTypes(t *testing.T) {
	code, out, errs := runCLI(t, nil, "run", "nms", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := []string{
		`--clients int\[,\.\.\.\] .*\(default 1\)`,
		`--durability sync\|lazy\|off\[,\.\.\.\] .*\(default sync\)`,
		`--ops-per-call int 3\.\.\[,\.\.\.\] .*\(default 15\)`,
		`--warmup duration\[,\.\.\.\] .*\(default 2s\)`,
		`--cache size\[,\.\.\.\] `,
		`--procedure  +run each call`,
		`--set key=value  +a raw engine setting`,
		`--backup at=D\[,to=D\]  +take`,
		`--topology none\|1\|2-direct\|2-chain\[,\.\.\.\] .*\(default none\)`,
	}
	for _, w := range want {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("help lacks %s", w)
		}
	}
	if !strings.Contains(out, "takes a comma list") {
		t.Error("help does not say what [,...] means")
	}
	if strings.Contains(out, " string ") || strings.Contains(out, "stringArray") {
		t.Errorf("a knob shows as a string:\n%s", out)
	}
}
