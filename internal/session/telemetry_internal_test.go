package session

import (
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/hostinfo"
	"github.com/dbgauge/dbgauge/internal/result"
)

// TestMachineSecond: two samples half a second apart make per-second
// figures; a server that restarted in between (another main process) has
// no CPU for the interval; an unknown device, no disk.
func TestMachineSecond(t *testing.T) {
	t0 := time.Unix(100, 0)
	a := machineSample{at: t0, diskOK: true, disk: hostinfo.Disk{Reads: 10, ReadBytes: 1 << 20, Writes: 100, WrittenBytes: 4 << 20, BusyMs: 1000, WeightedMs: 2000},
		serverPID: 7, serverCPU: time.Second, serverOK: true, user: time.Second, sys: time.Second}
	b := machineSample{at: t0.Add(500 * time.Millisecond), diskOK: true, disk: hostinfo.Disk{Reads: 20, ReadBytes: 2 << 20, Writes: 300, WrittenBytes: 8 << 20, BusyMs: 1250, WeightedMs: 2500},
		serverPID: 7, serverCPU: 1500 * time.Millisecond, serverOK: true, user: 1100 * time.Millisecond, sys: 1150 * time.Millisecond}
	m := machineSecond(a, b)
	d := m.Disk
	if d == nil || d.ReadMiB != 2 || d.WriteMiB != 8 || d.Reads != 20 || d.Writes != 400 || d.UtilPct != 50 || d.Queue != 1 {
		t.Fatalf("disk %+v", d)
	}
	if m.ServerCores == nil || *m.ServerCores != 1 || m.HarnessCores != 0.5 {
		t.Fatalf("server %v, harness %v: want 1 and 0.5 cores", m.ServerCores, m.HarnessCores)
	}
	b.serverPID, a.diskOK = 8, false
	if m := machineSecond(a, b); m.ServerCores != nil || m.Disk != nil {
		t.Fatalf("restarted server, unknown device: %+v", m)
	}
	if machineSecond(b, b) != nil {
		t.Fatal("no time between the samples: no figures")
	}
}

// TestTopWaits: the waits by the mean connections waiting, most first
// (ties by name), each with its share of all the waiting; none read, none.
func TestTopWaits(t *testing.T) {
	got := topWaits(map[string]int{"IO:WalSync": 30, "CPU": 10, "Lock:tuple": 10}, 20)
	if len(got) != 3 || got[0].Wait != "IO:WalSync" || got[0].Waiting != 1.5 || got[0].SharePct != 60 ||
		got[1].Wait != "CPU" || got[2].Wait != "Lock:tuple" || got[2].SharePct != 20 {
		t.Fatalf("%+v", got)
	}
	if topWaits(map[string]int{}, 0) != nil {
		t.Fatal("no read, yet waits")
	}
}

// TestCounterEvents: a counter of eventCounters that moved between two
// samples is one event of its kind, with the move and its byte counter's
// in the detail; one that stood still, went down (a restart) or was not
// in the first sample is none.
func TestCounterEvents(t *testing.T) {
	a := engineSample{vals: map[string]int64{"checkpoints": 3, "checkpoint_buffers": 100, "compactions": 9, "memtable_flushes": 5, "bytes_flushed": 0, "autovacuums": 2}}
	b := engineSample{vals: map[string]int64{"checkpoints": 4, "checkpoint_buffers": 150, "compactions": 9, "memtable_flushes": 7, "bytes_flushed": 3 << 20, "autovacuums": 1, "autoanalyzes": 1}}
	got := counterEvents(a, b)
	if len(got) != 2 || got[0].Kind != result.EventCheckpoint || got[1].Kind != result.EventFlush {
		t.Fatalf("%+v: want a checkpoint and a flush", got)
	}
	if !strings.HasPrefix(got[0].Detail, "1 checkpoint(s) began") || !strings.Contains(got[0].Detail, "50 buffers") {
		t.Errorf("checkpoint: %q", got[0].Detail)
	}
	if !strings.HasPrefix(got[1].Detail, "2 memtable flush(es)") || !strings.Contains(got[1].Detail, "3.0 MiB") {
		t.Errorf("flush: %q", got[1].Detail)
	}
}
