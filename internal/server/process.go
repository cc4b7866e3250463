package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/placement"
)

// Account is the system user a server runs as.
type Account struct {
	Name     string
	UID, GID int
	// Switched is true when dbgauge is root and the server runs as Name.
	Switched bool
}

// AccountFor returns who runs a server: the current user when not root;
// when root, the first of preferred that exists (an engine's system user),
// or a "dbgauge" system user, created if need be.
func AccountFor(preferred ...string) (Account, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return Account{}, err
		}
		return Account{Name: u.Username, UID: os.Geteuid(), GID: os.Getegid()}, nil
	}
	for _, name := range append(preferred, "dbgauge") {
		if a, err := lookup(name); err == nil {
			return a, nil
		}
	}
	out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "dbgauge").CombinedOutput()
	if err != nil {
		return Account{}, fmt.Errorf("dbgauge runs as root, and database servers refuse root; creating a \"dbgauge\" system user to run them failed: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return lookup("dbgauge")
}

func lookup(name string) (Account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return Account{}, err
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return Account{}, err
	}
	return Account{Name: name, UID: uid, GID: gid, Switched: true}, nil
}

// SysProcAttr returns process attributes that run a command as a, in a
// process group of its own (so that a kill reaches every process of the
// server).
func (a Account) SysProcAttr() *syscall.SysProcAttr {
	at := &syscall.SysProcAttr{Setpgid: true}
	if a.Switched {
		at.Credential = &syscall.Credential{Uid: uint32(a.UID), Gid: uint32(a.GID)}
	}
	return at
}

// Own gives path (a file or a folder, not recursively) to the account.
func (a Account) Own(path string) error {
	if !a.Switched {
		return nil
	}
	return os.Chown(path, a.UID, a.GID)
}

// CanReach reports whether the account can traverse every folder down to dir.
func (a Account) CanReach(dir string) bool {
	if !a.Switched {
		return true
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for p := abs; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return false
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return false
		}
		mode := st.Mode().Perm()
		switch {
		case int(sys.Uid) == a.UID:
			if mode&0o100 == 0 {
				return false
			}
		case int(sys.Gid) == a.GID:
			if mode&0o010 == 0 {
				return false
			}
		case mode&0o001 == 0:
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

// Run runs a command as the account and returns its output on failure.
func (a Account) Run(name string, args ...string) error { return a.RunEnv(nil, name, args...) }

// RunEnv is Run with variables added to dbgauge's environment.
func (a Account) RunEnv(env []string, name string, args ...string) error {
	return a.RunContext(context.Background(), env, name, args...)
}

// RunContext is RunEnv until ctx ends: then the command's process group is
// killed (SIGKILL) and the error wraps ctx's cause (a timeout's cause says
// what ran out).
func (a Account) RunContext(ctx context.Context, env []string, name string, args ...string) error {
	cmd := a.Command(ctx, name, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	out, err := cmd.CombinedOutput()
	return ranErr(ctx, name, err, strings.TrimSpace(string(out)))
}

// Command is a command run as the account, in "/", in a process group of
// its own (SysProcAttr) that the end of ctx kills whole (SIGKILL), its
// output waited for 5 s more at most.
func (a Account) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = a.SysProcAttr() // a group of its own: the kill reaches its children
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Dir = "/"
	return cmd
}

// ranErr is a command's error: what ended ctx when that stopped it, else
// the program's name, its error and what it said.
func ranErr(ctx context.Context, name string, err error, said string) error {
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("%s: %w", filepath.Base(name), context.Cause(ctx))
	case err != nil:
		return fmt.Errorf("%s: %w: %s", filepath.Base(name), err, said)
	}
	return nil
}

// FreePort asks the kernel for a free TCP port on loopback.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// AddressInUse says whether a server's last output tells that its port was
// taken (EADDRINUSE), as most servers and runtimes word it: "Address
// already in use" (C's strerror), "address already in use" (Go's, and
// Python's asyncio).
func AddressInUse(tail string) bool {
	return strings.Contains(strings.ToLower(tail), "address already in use")
}

// Process is a running server process, with its log.
type Process struct {
	Name    string
	LogPath string
	acct    Account
	env     []string
	path    string
	args    []string
	cmd     *exec.Cmd
	log     *os.File
	done    chan struct{}
	exitErr error
	mu      sync.Mutex
	stopped bool          // Stop or Kill was asked: an exit is not a death
	killed  bool          // Kill was asked
	cg      *Cgroup       // --server-memory: the memory cgroup it runs in, kept across restarts
	cpus    placement.Set // --cpus server=…: the CPUs it and its processes run on, kept across restarts
	onCPUs  string        // the CPUs it may run on, read back as it started; "": not placed
}

// Start starts a server process as a, its output appended to logPath.
func Start(a Account, logPath, name string, args ...string) (*Process, error) {
	return StartEnv(a, nil, nil, logPath, name, args...)
}

// StartOn is Start with the process, and every process it starts, kept on
// the CPUs cpus (--cpus server=…; nil: wherever the kernel puts them).
func StartOn(a Account, cpus placement.Set, logPath, name string, args ...string) (*Process, error) {
	return StartEnv(a, nil, cpus, logPath, name, args...)
}

// StartEnv is StartOn with an environment (nil: dbgauge's own).
func StartEnv(a Account, env []string, cpus placement.Set, logPath, name string, args ...string) (*Process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = a.SysProcAttr()
	cmd.Stdout, cmd.Stderr, cmd.Dir, cmd.Env = log, log, "/", env
	if err := placement.Start(cmd, cpus); err != nil {
		log.Close()
		return nil, err
	}
	p := &Process{Name: filepath.Base(name), LogPath: logPath, acct: a, env: env, path: name, args: args,
		cmd: cmd, log: log, done: make(chan struct{}), cpus: cpus}
	if cpus != nil {
		if got, err := placement.Allowed(cmd.Process.Pid); err == nil {
			p.onCPUs = got.String()
		}
	}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exitErr = err
		p.mu.Unlock()
		log.Close()
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Died returns why the process exited when nobody asked it to, or nil.
func (p *Process) Died() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil
	}
	why := "exited"
	if p.exitErr != nil {
		why = p.exitErr.Error()
	}
	if p.cg != nil {
		why += "; " + p.cg.Note()
	}
	return fmt.Errorf("%s died (%s); its log ends with: %s", p.Name, why, p.LogTail(3))
}

// Confine moves the process (and any it has started) into cg, where the
// processes it forks later are born; cg is kept when the process is
// restarted. A nil cg does nothing.
func (p *Process) Confine(cg *Cgroup) error {
	if cg == nil {
		return nil
	}
	p.cg = cg
	return cg.Add(p.Pid())
}

// CPUs returns the CPUs the process may run on, read back from the kernel
// as it started, when it was placed (StartOn); "" when it was not.
func (p *Process) CPUs() string { return p.onCPUs }

// Cgroup returns the memory cgroup the process runs in, or nil.
func (p *Process) Cgroup() *Cgroup { return p.cg }

// Memory returns the limit of the process's memory cgroup as read back, its
// folder and the OOM kills counted in it; zeros without one.
func (p *Process) Memory() (limit int64, cgroup string, oomKills int64) {
	if p.cg == nil {
		return 0, "", 0
	}
	return p.cg.Limit, p.cg.Path, p.cg.OOMKills()
}

// ReleaseCgroup removes the process's memory cgroup, once it has stopped.
func (p *Process) ReleaseCgroup() error { return p.cg.Remove() }

// again starts the same command again, in the same cgroup.
func (p *Process) again() (*Process, error) {
	return p.againWith(Command{Bin: p.path, Args: p.args, Env: p.env})
}

// againWith starts c in the process's place: as its account (the one
// that started it: root for a server in a namespace, Instance.wrap), on
// its CPUs, in its cgroup, its output appended to the same log.
func (p *Process) againWith(c Command) (*Process, error) {
	np, err := StartEnv(p.acct, c.Env, p.cpus, p.LogPath, c.Bin, c.Args...)
	if err != nil {
		return nil, err
	}
	np.Name = p.Name // the server's, not nsenter's, on a cluster's network
	if err := np.Confine(p.cg); err != nil {
		_ = np.Kill()
		return nil, err
	}
	return np, nil
}

// Stop sends sig (the engine's clean shutdown) and waits up to timeout, then
// kills. It returns how long the shutdown took.
func (p *Process) Stop(sig syscall.Signal, timeout time.Duration) (time.Duration, error) {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	start := time.Now()
	select {
	case <-p.done:
		return 0, nil
	default:
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return 0, err
	}
	select {
	case <-p.done:
		return time.Since(start), nil
	case <-time.After(timeout):
		_ = p.Kill()
		return time.Since(start), fmt.Errorf("%s did not stop within %s: killed", p.Name, timeout)
	}
}

// Pid returns the process id of the server's main process, which leads its
// process group.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Kill kills the server, every process of it at once (kill -9, KillTree),
// as a crash would, and returns once none is left.
func (p *Process) Kill() error {
	p.mu.Lock()
	p.stopped, p.killed = true, true
	p.mu.Unlock()
	kids, err := KillTree(p.cmd.Process.Pid)
	<-p.done
	if !Gone(kids, 10*time.Second) {
		return fmt.Errorf("%s's processes were still there 10 s after kill -9", p.Name)
	}
	return err
}

// Killed reports whether Kill was called on the process: a server killed
// (a failover's primary) and not started again, as a restart is a new
// Process. A nil Process was never killed.
func (p *Process) Killed() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// Crash kills every process of the server with SIGKILL (Kill), as a crash would, waits
// until none of its processes is left (a restart must not trip over a dying
// server's files and ports), and starts the same command again, its output
// appended to the same log. The caller waits until the new process serves.
func (p *Process) Crash() (*Process, error) {
	if err := p.Kill(); err != nil {
		return nil, err
	}
	return p.again()
}

// Restart stops the server cleanly (sig, as Stop) and starts it again with
// the same command, returning the new process; the caller waits for it to
// accept connections.
func (p *Process) Restart(sig syscall.Signal, timeout time.Duration) (*Process, error) {
	if _, err := p.Stop(sig, timeout); err != nil {
		return nil, err
	}
	return p.again()
}

// GroupGone waits until no process of group pgid is left, up to limit.
func GroupGone(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// LogTail returns the last n non-empty lines of the log, joined by " | ".
func (p *Process) LogTail(n int) string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		return ""
	}
	return LastLines(string(b), n)
}

// Folders are where a managed server keeps its data and its socket.
type Folders struct {
	Base   string // holds the data folder: in the run's folder, or a temporary one
	Socket string // a short folder of its own: Unix socket paths are limited to ~107 bytes
	Note   string // what a reader should know: where the data went, who runs the server
}

// MakeFolders makes a server's folders for the account: name inside runDir
// when the account can reach it, else a temporary folder (the note says so);
// both owned by the account. With dataDir (--data-dir) the data goes there
// or nowhere: a dataDir the account cannot reach is refused, not replaced.
func MakeFolders(a Account, runDir, dataDir, name string) (Folders, error) {
	if dataDir != "" {
		if !a.CanReach(dataDir) {
			return Folders{}, knob.Bad(fmt.Sprintf("give a folder every parent of which %s may enter (o+x), e.g. under /var/tmp, or chmod o+x the parents", a.Name),
				"--data-dir %s: the server runs as %s, who cannot reach it", filepath.Dir(dataDir), a.Name)
		}
		runDir = dataDir
	}
	f := Folders{Base: filepath.Join(runDir, name)}
	var err error
	if !a.CanReach(runDir) {
		// The account cannot reach the run's folder (under /root, say).
		if f.Base, err = os.MkdirTemp("", "dbgauge-"+name+"-"); err != nil {
			return f, err
		}
		f.Note = fmt.Sprintf("%s cannot reach %s, so the data is in %s; ", a.Name, runDir, f.Base)
	} else if err := os.Mkdir(f.Base, 0o700); err != nil {
		return f, err
	}
	if a.Switched {
		f.Note += fmt.Sprintf("dbgauge runs as root and %s refuses root: the server runs as %q", name, a.Name)
	}
	if f.Socket, err = os.MkdirTemp("", "dbgauge-sock-"); err != nil {
		return f, err
	}
	for _, d := range []string{f.Base, f.Socket} {
		if err := a.Own(d); err != nil {
			return f, err
		}
	}
	return f, nil
}
