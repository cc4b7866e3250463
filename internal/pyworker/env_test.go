package pyworker

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// TestLibraryEnv: a virtualenv made from an installation with a shared
// libpython (pyenv's) runs as another account with LD_LIBRARY_PATH naming
// that installation's lib, whether its pyvenv.cfg's home is the
// installation (virtualenv) or its bin (venv); one without a libpython
// needs nothing.
func TestLibraryEnv(t *testing.T) {
	inst := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(inst, "lib"), 0o755))
	for name, home := range map[string]string{"virtualenv": inst, "venv": filepath.Join(inst, "bin")} {
		env := t.TempDir()
		must(os.WriteFile(filepath.Join(env, "pyvenv.cfg"), []byte("home = "+home+"\nversion_info = 2.7.18.final.0\n"), 0o644))
		python := filepath.Join(env, "bin", "python")
		if got := LibraryEnv(python); got != nil {
			t.Errorf("%s, no libpython: %v", name, got)
		}
		lib := filepath.Join(inst, "lib", "libpython2.7.so.1.0")
		must(os.WriteFile(lib, nil, 0o644))
		if got, want := LibraryEnv(python), []string{"LD_LIBRARY_PATH=" + filepath.Join(inst, "lib")}; !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		must(os.Remove(lib))
	}
	if got := LibraryEnv(filepath.Join(t.TempDir(), "bin", "python")); got != nil {
		t.Errorf("no pyvenv.cfg: %v", got)
	}
}

// TestFindPythonHint: a missing Python 2.7 is bad input naming pyenv (no
// distribution ships 2.7), a missing 3.x names apt's package too.
func TestFindPythonHint(t *testing.T) {
	for v, want := range map[string]string{"2.5": "with pyenv (pyenv install 2.5,", "3.1": "apt-get install python3.1-venv"} {
		_, err := FindPython(v)
		var bad *knob.Error
		if !errors.As(err, &bad) || !strings.Contains(bad.Hint, want) {
			t.Errorf("FindPython(%s): %v, want bad input whose hint says %q", v, err, want)
		}
	}
}
