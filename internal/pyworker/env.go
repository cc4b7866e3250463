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
	"time"

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
	pip := []string{filepath.Join(dir, "bin", "python"), "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "-r", req}
	if !e.Python2() {
		if err := run(ctx, e.Name, nil, log, python, "-m", "venv", dir); err != nil {
			return "", err
		}
	} else if err := e.virtualenv(ctx, python, dir, log); err != nil {
		return "", err
	}
	if err := run(ctx, e.Name, nil, log, pip...); err != nil {
		return "", err
	}
	// A managed server's account runs the environment's programs (runzeo)
	// whatever the umask it was made under.
	if err := readableByAll(dir); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, marker), e.Requirements, 0o644)
}

// virtualenvPin is the virtualenv that makes a Python 2.7 environment
// (2.7 has no venv module): 20.15.1, the last release that runs on 2.7.
const virtualenvPin = "virtualenv==20.15.1"

// virtualenv makes the virtualenv dir of a Python 2 (which has no venv
// module) with virtualenv, itself installed beside dir for that alone, then
// removed; from an interpreter a server's account can run (reachable).
func (e Env) virtualenv(ctx context.Context, python, dir string, log io.Writer) error {
	python, err := e.reachable(ctx, python, filepath.Dir(dir), log)
	if err != nil {
		return err
	}
	tool := dir + "-virtualenv"
	defer os.RemoveAll(tool)
	if err := run(ctx, e.Name, nil, log, python, "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "--target", tool, virtualenvPin); err != nil {
		return err
	}
	return run(ctx, e.Name, append(os.Environ(), "PYTHONPATH="+tool), log, python, "-m", "virtualenv", "--no-periodic-update", dir)
}

// Python2 says whether the environment is of Python 2 (NEO's 2.7): made
// with virtualenv, its interpreter started without -I (Start's Config.Py2).
func (e Env) Python2() bool { return strings.HasPrefix(e.Python, "2.") }

// run runs one step of an install, its output to log; env nil: dbgauge's own.
func run(ctx context.Context, name string, env []string, log io.Writer, s ...string) error {
	fmt.Fprintf(log, "%s: %s\n", name, strings.Join(s, " "))
	cmd := exec.CommandContext(ctx, s[0], s[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Env = log, log, env
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %s: %w", name, strings.Join(s[:min(len(s), 4)], " "), err)
	}
	return nil
}

// reachable returns python, or, when dbgauge is root and python's
// installation lies where other accounts cannot reach it (pyenv's, in
// root's 0700 home), the same interpreter in a copy of that installation
// in cache (cpython-VERSION, made once): a managed server's account runs
// the environment's programs (NEO's nodes), and a virtualenv only points
// at its interpreter's installation. The copy's interpreter finds its
// shared library through LibraryEnv.
func (e Env) reachable(ctx context.Context, python, cache string, log io.Writer) (string, error) {
	if os.Geteuid() != 0 {
		return python, nil
	}
	out, err := exec.CommandContext(ctx, python, "-c", "import sys; print(sys.prefix); print('%d.%d.%d' % sys.version_info[:3])").Output()
	if err != nil {
		return "", fmt.Errorf("%s: ask %s its installation: %w", e.Name, python, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", fmt.Errorf("%s: %s said %q of its installation", e.Name, python, out)
	}
	prefix, version := f[0], f[1]
	if othersReach(prefix) {
		return python, nil
	}
	copied := filepath.Join(cache, "cpython-"+version)
	bin := filepath.Join(copied, "bin", filepath.Base(python))
	done := filepath.Join(copied, marker)
	if _, err := os.Stat(done); err == nil {
		return bin, nil
	}
	fmt.Fprintf(log, "%s: %s is in %s, which a server's account cannot reach: copied to %s\n", e.Name, python, prefix, copied)
	if err := os.RemoveAll(copied); err != nil {
		return "", err
	}
	if err := run(ctx, e.Name, nil, log, "cp", "-a", prefix, copied); err != nil {
		return "", err
	}
	if err := readableByAll(copied); err != nil {
		return "", err
	}
	return bin, os.WriteFile(done, []byte(prefix+"\n"), 0o644)
}

// othersReach says whether every folder down to path lets any account
// through (o+x).
func othersReach(path string) bool {
	for p := path; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

// LibraryEnv is what the environment of the interpreter python (an Env's
// bin/python) must add to run it as another account: the folder of its
// installation's shared libpython (LD_LIBRARY_PATH), when it has one. A
// virtualenv's interpreter looks for it where the installation it was made
// from was built (pyenv's, in root's home), which that account cannot
// reach; the installation it was made from (the copy reachable makes) is
// its pyvenv.cfg's home. nil: nothing to add.
func LibraryEnv(python string) []string {
	cfg, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(python)), "pyvenv.cfg"))
	if err != nil {
		return nil
	}
	for _, l := range strings.Split(string(cfg), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || strings.TrimSpace(k) != "home" {
			continue
		}
		// home is the installation (virtualenv's), or its bin (venv's).
		home := strings.TrimSpace(v)
		for _, lib := range []string{filepath.Join(home, "lib"), filepath.Join(filepath.Dir(home), "lib")} {
			if m, _ := filepath.Glob(filepath.Join(lib, "libpython*.so*")); m != nil {
				return []string{"LD_LIBRARY_PATH=" + lib}
			}
		}
		return nil
	}
	return nil
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
		ctx, cancel := context.WithTimeout(context.Background(), probeWithin)
		out, err := exec.CommandContext(ctx, p, "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
		cancel()
		if err == nil && strings.TrimSpace(string(out)) == version {
			return p, nil
		}
	}
	hint := "install Python " + version + " (apt-get install python" + version + "-venv, or pyenv install " + version + ")"
	if strings.HasPrefix(version, "2.") { // no distribution ships Python 2 any more
		hint = "install Python " + version + " with pyenv (pyenv install " + version + ", e.g. 2.7.18)"
	}
	return "", knob.Bad(hint,
		"no Python %s on this machine (no python%s on PATH, none in ~/.pyenv/versions)", version, version)
}

// probeWithin bounds each probe of an interpreter (an interpreter that
// does not answer by then is not one to run).
const probeWithin = 10 * time.Second

// runs says whether an interpreter starts (a pyenv shim of a version not
// installed does not) within probeWithin.
func runs(python string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), probeWithin)
	defer cancel()
	return exec.CommandContext(ctx, python, "-c", "pass").Run() == nil
}
