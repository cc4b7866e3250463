package powerloss

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// mount mounts a test disk for the test, or skips it saying why it cannot.
func mount(t *testing.T) *Disk {
	t.Helper()
	testenv.Need(t, Available())
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

func probe(t *testing.T, dir string, methods ...disk.Method) map[disk.Method]result.DiskCell {
	t.Helper()
	cells, err := disk.Probe(context.Background(), disk.Config{
		Dir: dir, Blocks: []int{8192}, Methods: methods, Patterns: []disk.Pattern{disk.Rewrite}, Duration: 600 * time.Millisecond,
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[disk.Method]result.DiskCell{}
	for _, c := range cells {
		if c.Error != "" {
			t.Fatalf("%s: %s", c.Method, c.Error)
		}
		out[disk.Method(c.Method)] = c
	}
	return out
}

// TestSlowHonestDisk: 8 ms a flush is a 7,200 rpm platter. Every write the
// probe makes by a flushing method (O_SYNC writes included) reaches the
// disk as a flush, and each takes the disk's 8 ms: no unit is faster, and no
// method can pass 125 flushes a second. How close to 125 the probe comes
// depends on the machine's speed, which is bench/'s business.
func TestSlowHonestDisk(t *testing.T) {
	d := mount(t)
	const delay = 8 * time.Millisecond
	d.Honest(delay)
	before := d.Flushes()
	cells := probe(t, d.Dir, disk.Fdatasync, disk.Fsync, disk.ODsync, disk.OSync)
	flushes := d.Flushes() - before
	var ops int64
	for m, c := range cells {
		t.Logf("%s: %d units in %.3f s, %.0f/s, the fastest %d µs", m, c.Ops, c.Seconds, c.Rate, c.Latency.MinUs)
		ops += c.Ops
		if c.Ops == 0 {
			t.Errorf("%s: no unit in %.3f s", m, c.Seconds)
		}
		if c.Latency.MinUs < delay.Microseconds() {
			t.Errorf("%s: a unit took %d µs on a disk that takes %s a flush", m, c.Latency.MinUs, delay)
		}
		if c.Rate > 1.01*float64(time.Second/delay) {
			t.Errorf("%s: %.0f flushes/s on a disk that takes %s a flush: more than it can make", m, c.Rate, delay)
		}
	}
	if flushes < ops {
		t.Fatalf("the disk made %d flushes for the probe's %d units, each of which flushes", flushes, ops)
	}
}

// TestLyingDisk: a lying disk answers every flush at once. Each of the
// probe's flushes reaches it (the disk counts them), and the flush alone
// takes less than an honest disk's delay does on the same mount, measured in
// the same test: the disk's behaviour, not the machine's speed, sets them
// apart. (disk.Judge's words for a free flush are TestJudge's.)
func TestLyingDisk(t *testing.T) {
	d := mount(t)
	const delay = 20 * time.Millisecond
	d.Lying()
	before := d.Flushes()
	lying := probe(t, d.Dir, disk.Fdatasync, disk.ODsync)
	flushes := d.Flushes() - before
	d.Honest(delay)
	honest := probe(t, d.Dir, disk.Fdatasync)[disk.Fdatasync]

	var ops int64
	for m, c := range lying {
		t.Logf("lying, %s: %d units, %.0f/s, p50 %d µs, p99 %d µs (the flush alone: p99 %d µs)", m, c.Ops, c.Rate, c.Latency.P50Us, c.Latency.P99Us, c.Flush.P99Us)
		ops += c.Ops
	}
	if flushes < ops {
		t.Fatalf("the lying disk counted %d flushes for the probe's %d units, each of which flushes", flushes, ops)
	}
	f := lying[disk.Fdatasync]
	t.Logf("honest (%s), fdatasync: the flush alone at least %d µs", delay, honest.Flush.MinUs)
	if honest.Flush.MinUs < delay.Microseconds() {
		t.Fatalf("an honest disk's flush took %d µs, less than its %s", honest.Flush.MinUs, delay)
	}
	if f.Flush.Count == 0 || f.Flush.P50Us >= honest.Flush.MinUs {
		t.Fatalf("the lying disk's flushes took %d µs at the median (%d timed), no less than an honest disk's %d µs: it did not answer at once",
			f.Flush.P50Us, f.Flush.Count, honest.Flush.MinUs)
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
	testenv.Need(t, Available())
	if os.Geteuid() != 0 {
		testenv.Skip(t, "aborting a FUSE connection (fusectl) needs root")
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

// serverPID is the process serving d, for the tests that kill it.
func (d *Disk) serverPID() int { return d.cmd.Process.Pid }

// TestMmapUnderGC has the shape of the deadlock that a disk served by the
// process using it had: SQLite page-faulting on its -shm file, mapped from
// the disk, while the Go runtime grows its heap and collects. Here the test
// process maps a file of the disk and touches every page, again and again
// (each open drops the cached pages, so that each touch faults through
// FUSE, and each msync writes back through it), while other goroutines
// allocate, collect and hand memory back to the system. It must finish.
func TestMmapUnderGC(t *testing.T) {
	d := mount(t)
	page := os.Getpagesize()
	const pages = 32
	size := pages * page
	path := filepath.Join(d.Dir, "shm")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 { // allocators: the heap grows through fresh mappings
		wg.Go(func() {
			var keep [][]byte
			for {
				select {
				case <-stop:
					return
				default:
				}
				keep = append(keep, make([]byte, 256<<10))
				if len(keep) == 64 {
					keep = nil
				}
			}
		})
	}
	wg.Go(func() { // stop-the-world collections, and memory given back
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			runtime.GC()
			if i%8 == 0 {
				debug.FreeOSMemory()
			}
		}
	})
	rounds := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); rounds++ {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < size; off += page {
			m[off]++ // a fault, read through the disk
		}
		if err := unix.Msync(m, unix.MS_SYNC); err != nil {
			t.Fatal(err)
		}
		if err := unix.Munmap(m); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	close(stop)
	wg.Wait()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < size; off += page {
		if got[off] != byte(rounds) {
			t.Fatalf("page %d holds %d after %d rounds of increments", off/page, got[off], rounds)
		}
	}
	t.Logf("%d rounds of %d page faults and an msync, under collections; %d flushes", rounds, pages, d.Flushes())
}

// TestServerKilled: when the disk's server dies, a read on the disk fails
// at once instead of hanging, and Unmount returns, saying so, and detaches
// the dead mount.
func TestServerKilled(t *testing.T) {
	testenv.Need(t, Available())
	d, err := Mount(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(d.Dir, "a")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	open, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(d.serverPID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	within := func(what string, limit time.Duration, f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(limit):
			t.Fatalf("%s still waits after %s", what, limit)
			return nil
		}
	}
	if err := within("a read of a file on the disk", 5*time.Second, func() error {
		_, err := os.ReadFile(path)
		return err
	}); err == nil {
		t.Error("a file was read from a disk whose server is dead")
	}
	if err := within("a read of a file open on the disk", 5*time.Second, func() error {
		_, err := open.Read(make([]byte, 5))
		return err
	}); err == nil {
		t.Error("an open file was read from a disk whose server is dead")
	}
	_ = within("closing a file of the disk", 5*time.Second, open.Close)
	err = within("Unmount", 10*time.Second, d.Unmount)
	t.Logf("unmount after %s: %v", time.Since(start).Round(time.Millisecond), err)
	if err == nil || !strings.Contains(err.Error(), "died") {
		t.Errorf("Unmount of a disk whose server died says %v", err)
	}
	if fuseMounted(d.Dir) {
		t.Error("the dead mount is still there")
	}
	if d.Flushes() != 0 || d.Err() == nil {
		t.Errorf("Flushes on a dead disk: %d, %v", d.Flushes(), d.Err())
	}
}

// TestUnmountWithFilesOpen: a file left open makes the unmount fail; the
// disk is then aborted and detached, the error says so, and the file closes
// at once.
func TestUnmountWithFilesOpen(t *testing.T) {
	testenv.Need(t, Available())
	d, err := Mount(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(d.Dir, "leaked"))
	if err != nil {
		t.Fatal(err)
	}
	err = d.Unmount()
	if err == nil || !strings.Contains(err.Error(), "still open: aborted and detached") {
		t.Errorf("Unmount with a file open: %v", err)
	}
	closed := make(chan struct{})
	go func() { _ = f.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("closing a file of the aborted disk still waits after 5 s")
	}
	if fuseMounted(d.Dir) {
		t.Error("the disk is still mounted")
	}
	if err := d.Unmount(); err != nil {
		t.Errorf("a second Unmount: %v", err)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{`/tmp/a\040b`: "/tmp/a b", "/plain": "/plain", `/tab\011x`: "/tab\tx", `/q"uote`: `/q"uote`} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}
