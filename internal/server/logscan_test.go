package server

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// rules is a small rule set of the shape engines declare.
var rules = &LogRules{
	Rules:    []LogRule{Rule("crash", `terminated by signal`), Rule("panic", `PANIC: `), Rule("error", `ERROR: `)},
	Harmless: []LogRule{Rule("", `ERROR:  harmless`)},
}

// TestScan: each line counts once, for the first rule it matches; harmless
// lines and lines matching no rule are not counted; the first line and a
// sample are kept; nil rules find nothing.
func TestScan(t *testing.T) {
	text := "LOG:  ready\nERROR:  deadlock detected\nERROR:  deadlock detected\nERROR:  harmless\n" +
		"LOG:  server process (PID 42) was terminated by signal 9: ERROR: \nPANIC:  could not write\n"
	got := map[string]int{}
	for _, a := range rules.Scan(text) {
		got[a.Kind] = a.Count
		if a.FirstLine < 1 || a.Sample == "" {
			t.Errorf("%s has no first line or sample: %+v", a.Kind, a)
		}
	}
	if want := map[string]int{"error": 2, "crash": 1, "panic": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if a := rules.Scan(text); a[0].Kind != "error" || a[0].FirstLine != 2 {
		t.Errorf("the first anomaly: %+v, want error at line 2", a[0])
	}
	var none *LogRules
	if a := none.Scan(text); a != nil {
		t.Errorf("nil rules found %+v", a)
	}
}

// TestLogFollower: only what is written after it starts, whole lines only,
// line numbers counted from the log's start.
func TestLogFollower(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.log")
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write("ERROR:  before the run\nLOG:  ready\n")
	f := rules.Follow(path)
	if got := f.Next(); len(got) != 0 {
		t.Fatalf("what was there before: %+v", got)
	}
	write("LOG:  checkpoint\nERROR:  deadlock detected\nPANIC:  half a li")
	got := f.Next()
	if len(got) != 1 || got[0].Kind != "error" || got[0].FirstLine != 4 {
		t.Fatalf("%+v", got)
	}
	write("ne\n")
	if got := f.Next(); len(got) != 1 || got[0].Kind != "panic" || got[0].FirstLine != 5 {
		t.Fatalf("the line finished: %+v", got)
	}
	var none *LogRules
	if none.Follow(path) != nil {
		t.Error("an engine without rules is followed")
	}
}
