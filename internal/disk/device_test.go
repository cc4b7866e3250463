package disk

import (
	"os"
	"testing"
)

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	d, err := Describe(dir + "/not/yet/made.db")
	if err != nil {
		t.Logf("some facts are missing: %v", err)
	}
	if d.Path == "" || d.FS == "" || d.MountPoint == "" {
		t.Fatalf("Describe gave no path, file system or mount point: %+v", d)
	}
	if _, err := os.Stat(d.Path); err != nil {
		t.Fatalf("Describe's path %s does not exist: %v", d.Path, err)
	}
}

func TestUnescape(t *testing.T) {
	if got := unescape(`/mnt/my\040disk`); got != "/mnt/my disk" {
		t.Fatalf("unescape = %q", got)
	}
}
