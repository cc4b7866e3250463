package server

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestScanLog(t *testing.T) {
	cases := []struct {
		engine, text string
		want         map[string]int
	}{
		{"postgres", "2026-11-22 LOG:  database system is ready\n" +
			"2026-11-22 ERROR:  deadlock detected\n2026-11-22 ERROR:  deadlock detected\n" +
			"2026-11-22 FATAL:  the database system is starting up\n" +
			"2026-11-22 LOG:  server process (PID 42) was terminated by signal 9: Killed\n" +
			"2026-11-22 PANIC:  could not write to file\n", map[string]int{"error": 2, "crash": 1, "panic": 1}},
		{"mariadb", "2026-11-22 0 [Note] InnoDB: ready\n2026-11-22 0 [ERROR] InnoDB: Unable to lock ./ibdata1\n" +
			"mariadbd got signal 11 ;\n", map[string]int{"error": 1, "crash": 1}},
		{"firebird Super", "vm\tSun Nov 22 2026\n\tsetsockopt: error setting IPV6_V6ONLY to 0\n" +
			"vm\tSun Nov 22 2026\n\tINET/inet_error: read errno = 104\n" +
			"\tinternal Firebird consistency check (wrong record length (183), file: vio.cpp line: 1380)\n" +
			"\tPage type 4 lock denied\n\tPage type 5 lock denied\n" +
			"\tI/O error during \"read\" operation for file \"/db/fb_table_x\"\n", map[string]int{"bugcheck": 1, "lock denied": 2, "io error": 1}},
		{"sqlite", "ERROR: anything", map[string]int{}},
	}
	for _, c := range cases {
		got := map[string]int{}
		for _, a := range ScanLog(c.engine, c.text) {
			got[a.Kind] = a.Count
			if a.FirstLine < 1 || a.Sample == "" {
				t.Errorf("%s: %s has no first line or sample: %+v", c.engine, a.Kind, a)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.engine, got, c.want)
		}
	}
}

// TestLogFollower: only what is written after it starts, whole lines only,
// line numbers counted from the log's start.
func TestLogFollower(t *testing.T) {
	path := filepath.Join(t.TempDir(), "postgres.log")
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
	f := FollowLog("postgres", path)
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
	if FollowLog("sqlite", path) != nil {
		t.Error("an engine without rules is followed")
	}
}
