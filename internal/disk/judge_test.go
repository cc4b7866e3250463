package disk

import (
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

func cell(m Method, rate float64) result.DiskCell {
	return result.DiskCell{Method: string(m), Pattern: "rewrite", Block: 8192, Rate: rate}
}

func says(t *testing.T, fs []result.Finding, want string) {
	t.Helper()
	for _, f := range fs {
		if strings.Contains(f.Text, want) {
			return
		}
	}
	t.Errorf("no finding says %q: %+v", want, fs)
}

func silent(t *testing.T, fs []result.Finding, not string) {
	t.Helper()
	for _, f := range fs {
		if strings.Contains(f.Text, not) {
			t.Errorf("a finding says %q: %s", not, f.Text)
		}
	}
}

func TestJudge(t *testing.T) {
	yes, no := true, false
	spinning := result.Device{Path: "/d", FS: "ext4", Device: "sda", Rotational: &yes, WriteCache: "write back"}
	honest := []result.DiskCell{cell(Fdatasync, 118), cell(Fsync, 115), cell(ODsync, 119), cell(OSync, 117), cell(None, 400000)}
	fs := Judge(spinning, "", honest)
	silent(t, fs, "a write cache acknowledges")
	silent(t, fs, "disagree")
	says(t, fs, "write back")

	lying := []result.DiskCell{cell(Fdatasync, 2600), cell(Fsync, 2500), cell(ODsync, 2600), cell(OSync, 2550), cell(None, 400000)}
	says(t, Judge(spinning, "", lying), "a write cache acknowledges writes before they are stored")

	cygwin := []result.DiskCell{cell(Fsync, 110), cell(OSync, 45454)}
	says(t, Judge(spinning, "", cygwin), "osync and fsync disagree by 413.2×")

	says(t, Judge(spinning, "KVM", honest), "this machine is virtual (KVM)")

	free := []result.DiskCell{cell(Fdatasync, 300000), cell(None, 400000)}
	says(t, Judge(result.Device{FS: "ext4", Rotational: &no}, "", free), "costs next to nothing")

	tmp := Judge(result.Device{Path: "/dev/shm", FS: "tmpfs"}, "", honest)
	if len(tmp) != 1 || !strings.Contains(tmp[0].Text, "no durability is measured") {
		t.Errorf("tmpfs: %+v", tmp)
	}
	says(t, Judge(result.Device{FS: "ext4", Device: "sdb", WriteCache: "write through"}, "", honest), "sends it no cache flushes")

	if r, m, _ := Ceiling(honest); r != 119 || m != "odsync" {
		t.Errorf("Ceiling = %v %v, want 119 odsync (none never counts)", r, m)
	}
}

func TestParse(t *testing.T) {
	if b, err := ParseBlocks("512,4k,8KiB,1m"); err != nil || len(b) != 4 || b[1] != 4096 || b[2] != 8192 || b[3] != 1<<20 {
		t.Fatalf("ParseBlocks = %v, %v", b, err)
	}
	for _, bad := range []string{"0", "-1", "x", "4q", "65m", ""} {
		if _, err := ParseBlocks(bad); err == nil {
			t.Errorf("ParseBlocks(%q) accepted", bad)
		}
	}
	if _, err := ParseMethods("fsync,fdatasnyc"); err == nil {
		t.Error("ParseMethods accepted a typo")
	}
	if _, err := ParsePatterns("rewrite,random"); err == nil {
		t.Error("ParsePatterns accepted random")
	}
}
