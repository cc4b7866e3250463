package testdisk

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/result"
)

// mount mounts a test disk for the test, or skips it saying why it cannot.
func mount(t *testing.T) *Disk {
	t.Helper()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	backing, mnt := t.TempDir(), t.TempDir()
	d, err := Mount(backing, mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
	})
	return d
}

func probe(t *testing.T, dir string, methods ...disk.Method) map[disk.Method]float64 {
	t.Helper()
	cells, err := disk.Probe(context.Background(), disk.Config{
		Dir: dir, Blocks: []int{8192}, Methods: methods, Patterns: []disk.Pattern{disk.Rewrite}, Duration: 600 * time.Millisecond,
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[disk.Method]float64{}
	for _, c := range cells {
		if c.Error != "" {
			t.Fatalf("%s: %s", c.Method, c.Error)
		}
		out[disk.Method(c.Method)] = c.Rate
	}
	return out
}

// TestSlowHonestDisk: 8 ms a flush is a 7,200 rpm platter: the probe must
// see about 120 flushes a second, by every method, O_SYNC writes included.
func TestSlowHonestDisk(t *testing.T) {
	d := mount(t)
	d.Honest(8 * time.Millisecond)
	rates := probe(t, d.Dir, disk.Fdatasync, disk.Fsync, disk.ODsync, disk.OSync)
	t.Logf("8 ms a flush: %v flushes/s", rates)
	for m, r := range rates {
		if r < 100 || r > 126 {
			t.Errorf("%s: %.0f flushes/s on a disk that takes 8 ms a flush, want 100–125", m, r)
		}
	}
	if d.Flushes() == 0 {
		t.Fatal("the disk counted no flush")
	}
}

// TestLyingDisk: flushes that cost nothing are reported as such.
func TestLyingDisk(t *testing.T) {
	d := mount(t)
	d.Lying()
	rates := probe(t, d.Dir, disk.Fdatasync, disk.ODsync, disk.None)
	if rates[disk.Fdatasync] < 1000 || rates[disk.ODsync] < 1000 {
		t.Fatalf("a lying disk made only %v flushes/s", rates)
	}
	dev, _ := disk.Describe(d.Dir)
	found := disk.Judge(dev, "", []result.DiskCell{
		{Method: "fdatasync", Pattern: "rewrite", Block: 8192, Rate: rates[disk.Fdatasync]},
		{Method: "none", Pattern: "rewrite", Block: 8192, Rate: rates[disk.None]},
	})
	var texts []string
	for _, f := range found {
		texts = append(texts, f.Text)
	}
	if !strings.Contains(strings.Join(texts, "\n"), "costs next to nothing") {
		t.Fatalf("no finding says the flush is free: %q", texts)
	}
}

// TestFilesPassThrough: what is written through the disk is in the backing folder.
func TestFilesPassThrough(t *testing.T) {
	d := mount(t)
	if err := os.WriteFile(filepath.Join(d.Dir, "a"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(d.Dir, "a"))
	if err != nil || string(b) != "hello" {
		t.Fatalf("read back %q, %v", b, err)
	}
}

// TestPowerLoss: what was fsynced survives the cut; what was not is undone —
// overwrites put back, appends cut off, files never flushed gone.
func TestPowerLoss(t *testing.T) {
	d := mount(t)
	d.PowerLoss()
	a, err := os.Create(filepath.Join(d.Dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = a.WriteString("hello")
	must(err)
	must(a.Sync())
	_, err = a.WriteString(" world") // appended, never flushed
	must(err)
	_, err = a.WriteAt([]byte("J"), 0) // overwritten, never flushed
	must(err)
	must(a.Close())
	must(os.WriteFile(filepath.Join(d.Dir, "b"), []byte("never flushed"), 0o644))
	s, err := os.Create(filepath.Join(d.Dir, "s"))
	must(err)
	_, err = s.WriteString("synced")
	must(err)
	must(s.Sync())
	must(s.Close())
	if got, _ := os.ReadFile(filepath.Join(d.Dir, "a")); string(got) != "Jello world" {
		t.Fatalf("before the cut a reads %q", got)
	}
	if w, f := d.Unflushed(); w < 2 || f != 1 {
		t.Errorf("unflushed: %d writes, %d files", w, f)
	}
	must(d.Cut())
	backing := d.backing
	if got, _ := os.ReadFile(filepath.Join(backing, "a")); string(got) != "hello" {
		t.Errorf("after the cut a holds %q, want the flushed %q", got, "hello")
	}
	if _, err := os.Stat(filepath.Join(backing, "b")); !os.IsNotExist(err) {
		t.Errorf("b was never flushed, yet survived the cut (%v)", err)
	}
	if got, _ := os.ReadFile(filepath.Join(backing, "s")); string(got) != "synced" {
		t.Errorf("s holds %q", got)
	}
}

// TestAbort: an aborted disk fails a flush in flight at once, and a file
// left open on it closes without waiting for the disk's answer, as a test
// binary killed by -test.timeout must exit.
func TestAbort(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	if os.Geteuid() != 0 {
		t.Skip("aborting a FUSE connection (fusectl) needs root")
	}
	d, err := Mount(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(d.Dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	d.Honest(time.Minute) // a flush that would take a minute
	synced := make(chan error, 1)
	go func() { synced <- f.Sync() }()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if err := d.Abort(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-synced:
		if err == nil {
			t.Error("the flush in flight succeeded on an aborted disk")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the flush in flight still waits 5 s after the abort")
	}
	closed := make(chan struct{})
	go func() { _ = f.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("closing a file of the aborted disk still waits after 5 s")
	}
	t.Logf("flush failed and file closed %s after the abort", time.Since(start).Round(time.Millisecond))
}
