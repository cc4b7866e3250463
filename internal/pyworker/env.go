package pyworker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// Env is a pinned Python environment an engine's worker runs in: a
// virtualenv of one Python version with the packages of a requirements
// file (its pins, and the reason for each, in the file's comments).
type Env struct {
	Name         string // "zodb": `dbgauge engines install zodb`
	Python       string // the interpreter's version: "3.11"
	Requirements []byte // a pip requirements file, shipped inside the binary
	Engines      string // the engines that need it, for hints: "zodb, zeo"
}

// marker is the file Install writes last in an environment: one without it
// was not made to the end.
const marker = "dbgauge-env.txt"

// Dir is where `dbgauge engines install` makes the environment: in the
// user's cache folder (root's: /var/cache, which the accounts a managed
// server runs as can read, as they cannot /root), named for its Python and
// its requirements' content, so that a binary with other pins makes (and
// finds) another.
func (e Env) Dir() (string, error) {
	cache, err := cacheRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(e.Requirements)
	return filepath.Join(cache, "dbgauge", "python", e.Name+"-py"+e.Python+"-"+hex.EncodeToString(sum[:4])), nil
}

// cacheRoot is the folder dbgauge's cache goes in: root's /var/cache, else
// the user's cache folder (os.UserCacheDir).
func cacheRoot() (string, error) {
	if os.Geteuid() == 0 {
		return "/var/cache", nil
	}
	return os.UserCacheDir()
}

// InstallCommand is the command that makes the environment.
func (e Env) InstallCommand() string { return "dbgauge engines install " + e.Name }

// Find returns the interpreter of the environment in dir ("": the one
// Install makes in the cache folder). Missing or incomplete, its error is
// bad input naming the command that makes it; flag names the knob a user
// gives another folder with.
func (e Env) Find(dir, flag string) (string, error) {
	given := dir != ""
	if !given {
		var err error
		if dir, err = e.Dir(); err != nil {
			return "", err
		}
	}
	python := filepath.Join(dir, "bin", "python")
	if _, err := os.Stat(python); err != nil {
		if given {
			return "", knob.Bad("make it with: "+e.InstallCommand()+" --dir "+dir,
				"%s %s: no virtualenv there (no bin/python)", flag, dir)
		}
		return "", knob.Bad("run: "+e.InstallCommand(), "%s: their Python environment is not made yet (%s)", e.Engines, dir)
	}
	if !given {
		if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
			return "", knob.Bad("run: "+e.InstallCommand(), "%s: the Python environment in %s was not made to the end", e.Engines, dir)
		}
	}
	return python, nil
}

// Install makes the environment in dir ("": Dir) with the interpreter of
// its Python version (FindPython): a virtualenv, then pip with the pinned
// requirements, its output to log; an incomplete one there is made anew.
// It returns the folder.
func (e Env) Install(ctx context.Context, dir string, log io.Writer) (string, error) {
	if dir == "" {
		var err error
		if dir, err = e.Dir(); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// One install at a time (two test packages may make it at once).
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
		fmt.Fprintf(log, "%s: the environment is made already: %s\n", e.Name, dir)
		return dir, nil
	}
	python, err := FindPython(e.Python)
	if err != nil {
		return "", err
	}
	if err := clearDir(dir); err != nil {
		return "", err
	}
	req := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-requirements.txt")
	if err := os.WriteFile(req, e.Requirements, 0o644); err != nil {
		return "", err
	}
	defer os.Remove(req)
	steps := [][]string{
		{python, "-m", "venv", dir},
		{filepath.Join(dir, "bin", "python"), "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "-r", req},
	}
	for _, s := range steps {
		fmt.Fprintf(log, "%s: %s\n", e.Name, strings.Join(s, " "))
		cmd := exec.CommandContext(ctx, s[0], s[1:]...)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%s: %s: %w", e.Name, strings.Join(s[:min(len(s), 4)], " "), err)
		}
	}
	// A managed server's account runs the environment's programs (runzeo)
	// whatever the umask it was made under.
	if err := readableByAll(dir); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, marker), e.Requirements, 0o644)
}

// clearDir removes what an install that did not end left in dir: a
// virtualenv (pyvenv.cfg), or nothing; any other folder is refused, never
// removed (--dir names a folder of the user's).
func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(entries) == 0 {
		return os.RemoveAll(dir)
	}
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "pyvenv.cfg")); err != nil {
		return knob.Bad("give a new or empty folder", "%s holds files and no virtualenv: dbgauge makes an environment only in a new or empty folder", dir)
	}
	return os.RemoveAll(dir)
}

// readableByAll gives every file under dir read (and, where its owner has
// it, execute) permission for all.
func readableByAll(dir string) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		m := fi.Mode().Perm() | 0o444
		if fi.IsDir() || m&0o100 != 0 {
			m |= 0o111
		}
		return os.Chmod(p, m)
	})
}

// FindPython returns an interpreter of version ("3.11"): the system's
// (/usr/bin/pythonVERSION, which every account can run: a managed server's
// too), else pythonVERSION on PATH, else pyenv's newest of that version
// (~/.pyenv/versions), else python3 when it is that version. None is bad
// input saying what to install.
func FindPython(version string) (string, error) {
	if p := "/usr/bin/python" + version; runs(p) {
		return p, nil
	}
	if p, err := exec.LookPath("python" + version); err == nil && runs(p) {
		return p, nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		ms, _ := filepath.Glob(filepath.Join(home, ".pyenv", "versions", version+".*", "bin", "python"+version))
		sort.Strings(ms)
		for i := len(ms) - 1; i >= 0; i-- {
			if runs(ms[i]) {
				return ms[i], nil
			}
		}
	}
	if p, err := exec.LookPath("python3"); err == nil {
		if out, err := exec.Command(p, "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output(); err == nil && strings.TrimSpace(string(out)) == version {
			return p, nil
		}
	}
	return "", knob.Bad("install Python "+version+" (apt-get install python"+version+"-venv, or pyenv install "+version+")",
		"no Python %s on this machine (no python%s on PATH, none in ~/.pyenv/versions)", version, version)
}

// runs says whether an interpreter starts (a pyenv shim of a version not
// installed does not).
func runs(python string) bool {
	return exec.Command(python, "-c", "pass").Run() == nil
}
