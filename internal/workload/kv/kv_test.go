package kv_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload/kv"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestEngines runs kv for real on each embedded engine, every preset the
// engine can run at least once across the set, under each commit mode; the
// checks prove the record count and that no read missed or mixed up a record.
func TestEngines(t *testing.T) {
	for _, tc := range []struct {
		name string
		args map[string]string
	}{
		{"sqlite/ycsb-a", map[string]string{"db": "sqlite", "preset": "ycsb-a", "durability": "sync"}},
		{"sqlite/ycsb-e/every:4", map[string]string{"db": "sqlite", "preset": "ycsb-e", "commit": "every:4"}},
		{"bbolt/ycsb-e", map[string]string{"db": "bbolt", "preset": "ycsb-e"}},
		{"bbolt/ycsb-b/op", map[string]string{"db": "bbolt", "preset": "ycsb-b", "commit": "op"}},
		{"pebble/ycsb-d/every:3", map[string]string{"db": "pebble", "preset": "ycsb-d", "commit": "every:3"}},
		{"pebble/ycsb-f/op", map[string]string{"db": "pebble", "preset": "ycsb-f", "commit": "op"}},
		{"gdbm/ycsb-c", map[string]string{"db": "gdbm", "preset": "ycsb-c"}},
		{"gdbm/ycsb-f/every:5", map[string]string{"db": "gdbm", "preset": "ycsb-f", "commit": "every:5"}},
		{"gdbm/hotspot/insert", map[string]string{"db": "gdbm", "mix": "read=80,update=10,insert=10", "distribution": "hotspot", "hotspot": "0.1:0.9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]string{"records": "2000", "clients": "3", "duration": "1s", "durability": "off", "ceiling": "off"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := workloadtest.Run(t, kv.Spec, args)
			m := res.Phase("measure")
			for _, u := range m.Units {
				if u.Count == 0 {
					t.Errorf("no %s succeeded", u.Name)
				}
			}
			if res.Summary.Metric != "records/s" || res.Dataset.Facts["loaded"] != "2000" {
				t.Errorf("metric %s, facts %v", res.Summary.Metric, res.Dataset.Facts)
			}
		})
	}
}

// TestReuse runs twice on one file: the second run reuses the records, the
// first run's inserts included.
func TestReuse(t *testing.T) {
	db := "bbolt:" + t.TempDir() + "/kv.db"
	args := map[string]string{"db": db, "records": "1500", "preset": "ycsb-d", "units": "1000", "durability": "off", "ceiling": "off"}
	first := workloadtest.Run(t, kv.Spec, args)
	second := workloadtest.Run(t, kv.Spec, args)
	if first.Dataset.Reused || !second.Dataset.Reused {
		t.Fatalf("reused: first %v, second %v", first.Dataset.Reused, second.Dataset.Reused)
	}
	if second.Dataset.Facts["inserted_before"] == "0" {
		t.Errorf("the second run found none of the first run's inserts: %v", second.Dataset.Facts)
	}
	args["value-bytes"] = "64"
	if third := workloadtest.Run(t, kv.Spec, args); third.Dataset.Reused {
		t.Error("a dataset of other value sizes was reused")
	}
}

// TestGdbmRefusesScans: gdbm hashes its keys, so a mix with scans is refused
// before anything runs, with what to do instead.
func TestGdbmRefusesScans(t *testing.T) {
	for _, args := range []map[string]string{{"preset": "ycsb-e"}, {"mix": "read=90,scan=10"}} {
		err := plan(kv.Spec, map[string]string{"db": "gdbm"}, args)
		var bad *knob.Error
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), "range scans") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v on gdbm: %v, want one line of bad input about range scans", args, err)
		}
	}
	if err := plan(kv.Spec, map[string]string{"db": "gdbm", "preset": "ycsb-e", "mix": "read=95,insert=5"}); err != nil {
		t.Errorf("ycsb-e with its scans overridden by --mix was refused: %v", err)
	}
}

func TestBadKnobs(t *testing.T) {
	for _, args := range []map[string]string{
		{"records": "0"}, {"value-bytes": "4"}, {"mix": "read=50,delete=50"}, {"mix": ""},
		{"preset": "ycsb-g"}, {"distribution": "gaussian"}, {"distribution": "hotspot", "hotspot": "0.2"},
		{"distribution": "hotspot", "hotspot": "1:0.5"}, {"hotspot": "0.1:0.9"}, {"scan-length": "0"},
	} {
		var bad *knob.Error
		if err := plan(kv.Spec, args); !errors.As(err, &bad) {
			t.Errorf("%v: %v, want bad input", args, err)
		}
	}
}

func plan(spec interface{}, args ...map[string]string) error {
	v := session.NewValues(kv.Spec)
	for _, a := range args {
		for k, s := range a {
			v.Set(k, s)
		}
	}
	_, err := session.NewPlan(session.Request{Workload: kv.Spec, Values: v})
	return err
}
