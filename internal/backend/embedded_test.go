package backend

import (
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
)

func TestEmbeddedForms(t *testing.T) {
	match := EmbeddedMatch("bbolt")
	for db, want := range map[string]bool{"bbolt": true, "bbolt:/tmp/x.db": true, "bbolts": false, "sqlite": false, "": false} {
		if got := match(db); got != want {
			t.Errorf("match(%q) = %v, want %v", db, got, want)
		}
	}
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"db=name", Options{DB: "bbolt", Dir: "/run"}, filepath.Join("/run", "bbolt.db")},
		{"db=name/data-dir", Options{DB: "bbolt", Dir: "/run", DataDir: "/data"}, filepath.Join("/data", "bbolt.db")},
		{"db=name:path", Options{DB: "bbolt:/x/y.db", Dir: "/run"}, "/x/y.db"},
		{"db=name:", Options{DB: "bbolt:", Dir: "/run"}, filepath.Join("/run", "bbolt.db")},
	}
	for _, c := range cases {
		if got := c.o.EmbeddedPath("bbolt", "bbolt.db"); got != c.want {
			t.Errorf("%s: EmbeddedPath = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFlusher: flushes run until Stop, the first error is kept and said to
// be the background sync's, and Stop is safe unstarted and twice.
func TestFlusher(t *testing.T) {
	var never Flusher
	if err := never.Stop(); err != nil {
		t.Fatalf("Stop of a Flusher never started = %v", err)
	}
	first, second := errors.New("first"), errors.New("second")
	var n atomic.Int64
	var f Flusher
	f.Start(time.Millisecond, func() error {
		switch n.Add(1) {
		case 2:
			return first
		case 3:
			return second
		}
		return nil
	})
	for deadline := time.Now().Add(10 * time.Second); n.Load() < 4; {
		if time.Now().After(deadline) {
			t.Fatalf("%d flushes in 10 s", n.Load())
		}
		time.Sleep(time.Millisecond)
	}
	err := f.Stop()
	if !errors.Is(err, first) || err.Error() != "background sync: first" {
		t.Fatalf("Stop = %v, want the first error, as the background sync's", err)
	}
	stopped := n.Load()
	time.Sleep(5 * time.Millisecond)
	if n.Load() != stopped {
		t.Errorf("flushes went on after Stop")
	}
	if again := f.Stop(); !errors.Is(again, first) {
		t.Errorf("second Stop = %v, want the first error again", again)
	}
}

// TestSetSyncInterval: SyncInterval takes a positive duration, and refuses
// anything else as bad input, the interval kept.
func TestSetSyncInterval(t *testing.T) {
	cases := []struct {
		value string
		want  time.Duration // 0: refused
	}{
		{"50ms", 50 * time.Millisecond}, {"1s", time.Second}, {"0", 0}, {"-1s", 0}, {"soon", 0},
	}
	for _, c := range cases {
		iv := LazyInterval
		err := ApplySet("bbolt", []SetKey{SyncIntervalKey(&iv)}, []KeyValue{{Key: "SyncInterval", Value: c.value}})
		var bad *knob.Error
		switch {
		case c.want == 0 && (!errors.As(err, &bad) || iv != LazyInterval):
			t.Errorf("SyncInterval=%s: %v, interval %v; want refused as bad input, the interval kept", c.value, err, iv)
		case c.want != 0 && (err != nil || iv != c.want):
			t.Errorf("SyncInterval=%s: %v, interval %v; want %v", c.value, err, iv, c.want)
		}
	}
}

func TestTxStateErrors(t *testing.T) {
	open, none := TxStateErrors("bbolt")
	for err, want := range map[error]string{
		open: "bbolt: a transaction is already open on this connection",
		none: "bbolt: no transaction is open on this connection",
	} {
		if dberr.ClassOf(err) != dberr.Fatal || err.Error() != want {
			t.Errorf("%v (%v), want %q, fatal", err, dberr.ClassOf(err), want)
		}
	}
}

// TestApplySet: each --set goes through its key; an unknown key and a value
// its key refuses are bad input that names the engine, the key, and what it
// takes; --page-size and a --set of the same must agree.
func TestApplySet(t *testing.T) {
	var on bool
	var n int
	var size int64
	keys := []SetKey{
		BoolKey("On", func(b bool) { on = b }),
		IntKey("N", "give 1 to 9", 1, 9, func(v int) { n = v }),
		SizeKey("Size", func(v int64) { size = v }),
	}
	if err := ApplySet("eng", keys, []KeyValue{{"On", "true"}, {"N", "7"}, {"Size", "2MB"}}); err != nil || !on || n != 7 || size != 2<<20 {
		t.Fatalf("ApplySet = %v; On %v, N %d, Size %d", err, on, n, size)
	}
	for _, c := range []struct {
		kv         KeyValue
		what, hint string
	}{
		{KeyValue{"Off", "1"}, "--set Off: eng has no such setting", "eng accepts On, N, Size"},
		{KeyValue{"N", "10"}, "--set N=10 is not a eng setting value", "give 1 to 9"},
		{KeyValue{"On", "maybe"}, "--set On=maybe is not a eng setting value", "give true or false"},
		{KeyValue{"Size", "-1"}, "--set Size=-1 is not a eng setting value", "give a size in bytes, e.g. 67108864 or 64MB"},
	} {
		err := ApplySet("eng", keys, []KeyValue{c.kv})
		var bad *knob.Error
		if !errors.As(err, &bad) || bad.What != c.what || bad.Hint != c.hint {
			t.Errorf("%v: %v, want bad input %q: %q", c.kv, err, c.what, c.hint)
		}
	}
	page := 4096
	if err := Agree("--page-size", 8192, "PageSize", &page); err == nil {
		t.Error("--page-size 8192 and --set PageSize=4096 agree")
	}
	page = 0
	if err := Agree("--page-size", 8192, "PageSize", &page); err != nil || page != 8192 {
		t.Errorf("Agree = %v, page %d; want the knob's 8192", err, page)
	}
}

// TestAgreeVar: a knob that sets a server variable and a --set of the same
// variable must say the same; the knob's value goes into the settings; a
// knob not given changes nothing.
func TestAgreeVar(t *testing.T) {
	settings := map[string]string{"shared_buffers": "128MB"}
	err := AgreeVar(settings, "--cache", "shared_buffers", "131072kB")
	var bad *knob.Error
	if !errors.As(err, &bad) || bad.What != "--cache 131072kB and --set shared_buffers=128MB disagree" {
		t.Errorf("disagreeing: %v, want bad input", err)
	}
	settings = map[string]string{"shared_buffers": "131072kB", "work_mem": "4MB"}
	if err := AgreeVar(settings, "--cache", "shared_buffers", "131072kB"); err != nil {
		t.Errorf("agreeing: %v", err)
	}
	if err := AgreeVar(settings, "--page-size", "innodb_page_size", "16384"); err != nil || settings["innodb_page_size"] != "16384" {
		t.Errorf("a knob alone: %v, settings %v", err, settings)
	}
	if err := AgreeVar(settings, "--cache", "work_mem", ""); err != nil || settings["work_mem"] != "4MB" {
		t.Errorf("a knob not given: %v, settings %v", err, settings)
	}
}

func TestVersionOf(t *testing.T) {
	for db, want := range map[string][2]string{
		"postgres:managed":                      {"postgres:managed", ""},
		"postgres:managed@13":                   {"postgres:managed", "13"},
		"postgres:managed@/opt/pg/bin":          {"postgres:managed", "/opt/pg/bin"},
		"postgres://u:p@host/db":                {"postgres://u:p@host/db", ""},
		"host=h password=a@b":                   {"host=h password=a@b", ""},
		"postgresql://user@/db?host=/run/pgsql": {"postgresql://user@/db?host=/run/pgsql", ""},
	} {
		form, v := VersionOf(db)
		if form != want[0] || v != want[1] {
			t.Errorf("VersionOf(%q) = %q, %q; want %q, %q", db, form, v, want[0], want[1])
		}
	}
	s := Spec{Manages: []string{"postgres:managed"}, Versioned: true}
	if !s.Managed("postgres:managed@18") || s.Managed("postgres:managedx@18") || (Spec{Manages: s.Manages}).Managed("postgres:managed@18") {
		t.Error("Managed: a Versioned spec takes FORM@VERSION, an unversioned one does not")
	}
}
