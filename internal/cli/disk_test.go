package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// tinyDisk mounts a tmpfs of size (e.g. "4k") for the test, or skips it
// where mounting needs a privilege the test lacks.
func tinyDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		testenv.Skip(t, fmt.Sprintf("mount a %s tmpfs: %v (needs root)", size, err))
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
	return dir
}

// TestDiskCellsFail: a probe whose every cell fails (a full disk: 4 KiB
// where 8 KiB blocks are written) measured nothing and exits 3; so does one
// where some fail (12 KiB: a block can be rewritten, but an appended file
// cannot grow), its ceiling the others'. The last line says which.
func TestDiskCellsFail(t *testing.T) {
	for _, c := range []struct {
		size, last string
		cells      int
		ceiling    bool
	}{
		{"4k", "exit 3: every cell failed (4 of 4), so there is no ceiling: 8192-byte fdatasync rewrite: write ", 4, false},
		{"12k", "exit 3: 2 of 4 cells failed, the ceiling is the others': 8192-byte fdatasync append: write ", 4, true},
	} {
		t.Run(c.size, func(t *testing.T) {
			path, results := tinyDisk(t, c.size), t.TempDir()
			code, out, errs := runCLI(t, nil, "disk", "--path", path, "--results", results, "--duration", "100ms", "--method", "fdatasync,none")
			if code != ExitFailed || !strings.HasPrefix(lastLine(out), c.last) || !strings.HasSuffix(lastLine(out), "no space left on device") {
				t.Fatalf("exit %d, want %d; last line %q, want %q…\n%s\n%s", code, ExitFailed, lastLine(out), c.last, out, errs)
			}
			if strings.TrimSpace(errs) != "" {
				t.Errorf("the reason said twice, on stderr too: %q", errs)
			}
			entries, _ := os.ReadDir(results)
			res, err := result.Load(filepath.Join(results, entries[0].Name()))
			if err != nil || len(res.Disk.Cells) != c.cells || (res.Disk.Ceiling > 0) != c.ceiling {
				t.Fatalf("result: %v; %+v", err, res.Disk)
			}
		})
	}
}

// TestDiskExitsZero: every cell measured, the last line says so.
func TestDiskExitsZero(t *testing.T) {
	code, out, errs := runCLI(t, nil, "disk", "--path", t.TempDir(), "--results", t.TempDir(), "--duration", "100ms", "--method", "none")
	if code != ExitOK || lastLine(out) != "exit 0: all 2 cells measured" {
		t.Fatalf("exit %d, last line %q\n%s\n%s", code, lastLine(out), out, errs)
	}
}
