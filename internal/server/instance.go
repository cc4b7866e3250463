package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/netns"
)

// Instance is one managed server: its account, folders, port, password,
// process and start-up, which every engine's managed server has alike. An
// engine's Server embeds it and says what is its own in a Recipe: the
// command line, how to tell that it serves, what its log says when the port
// was taken, its clean shutdown.
type Instance struct {
	*Process // nil until Launch
	Recipe   Recipe
	Account  Account
	// Dir is the run's folder (absolute) of a server New made: its log
	// goes there.
	Dir       string
	DataDir   string // Base()/data
	SocketDir string // a short folder of its own for its Unix socket; "" when it has none
	Port      int
	Password  string        // dbgauge's account's on it, random; never printed
	Startup   time.Duration // of the last start: from exec to the first accepted connection
	Note      string        // what a reader should know (who runs it, where the data went)
	// Host, when set, is the server's place on a cluster's network
	// (netns): its processes run in that namespace, and it listens on the
	// Host's address (ListenAddr).
	Host   *netns.Host
	memory int64 // --server-memory: the limit of its cgroup, made at the first launch
	cpus   []int // --cpus server=…: the CPUs its processes run on
}

// Recipe is what an engine says of its managed server; the kit does the rest.
type Recipe struct {
	// Command is the server's command line on port (it may write the
	// engine's configuration for that port first).
	Command func(port int) (Command, error)
	// Again, when set, is the command line of a start after a crash (or a
	// restart), made once the server is down, when it must differ from
	// the first's: a Galera cluster's first node bootstraps it, and joins
	// it at a restart, from the position its data holds. It ends with ctx
	// (the restart's). nil: the first start's command again.
	Again func(ctx context.Context, port int) (Command, error)
	// Ready waits until the server just started serves, bounded and
	// cancellable (the embedded Process's WaitReady, usually).
	Ready func(ctx context.Context) error
	// Taken says, from the last lines of the server's output, that another
	// process took its port before it could bind it; nil: never retried.
	Taken func(tail string) bool
	// Stop is the engine's clean shutdown: the signal, then a kill when the
	// server has not stopped within StopWithin (60 s when 0). Shutdown,
	// when set, is the whole shutdown instead.
	Stop       syscall.Signal
	StopWithin time.Duration
	Shutdown   func() (time.Duration, error)
	// Log is where the server's output goes.
	Log string
}

// Command is a server's command line: its binary, its arguments, and its
// environment (nil: dbgauge's own).
type Command struct {
	Bin  string
	Args []string
	Env  []string
}

// Config says where and how the kit starts a server.
type Config struct {
	Dir    string      // the run's folder: the server's folder goes in it, its log beside
	Data   string      // --data-dir: the data goes here instead (a folder the account must reach)
	Memory int64       // --server-memory: a memory cgroup of its own with this limit; 0: none
	CPUs   []int       // --cpus server=…: the CPUs its processes run on; nil: the kernel's choice
	Host   *netns.Host // a node of a cluster's network: the server runs in its namespace; nil: loopback
}

// New makes a fresh server's folders, named for engine, in cfg's folder and
// owned by the account the server runs as (when dbgauge is root, the first
// of accounts that exists, else a "dbgauge" system user), with a random
// password. The caller sets Recipe, makes the data in DataDir, and Launches.
func New(engine string, cfg Config, accounts ...string) (*Instance, error) {
	acct, err := AccountFor(accounts...)
	if err != nil {
		return nil, err
	}
	// The server and its tools run from other working folders: absolute
	// paths only (--results oe is relative).
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	f, err := MakeFolders(acct, dir, cfg.Data, engine)
	if err != nil {
		return nil, err
	}
	return &Instance{Account: acct, Dir: dir, DataDir: filepath.Join(f.Base, "data"), SocketDir: f.Socket,
		Note: f.Note, Password: Secret(), memory: cfg.Memory, cpus: cfg.CPUs, Host: cfg.Host}, nil
}

// ListenAddr is the address the server listens on and is reached at: its
// Host's on a cluster's network, else loopback.
func (in *Instance) ListenAddr() string {
	if in.Host != nil {
		return in.Host.Addr
	}
	return "127.0.0.1"
}

// Base is the folder that holds the data folder and what the engine keeps
// beside it (an instance's configuration, a backup, a replica's or a
// restore's own folders); StopClean removes it.
func (in *Instance) Base() string { return filepath.Dir(in.DataDir) }

// Reopened is an Instance on the data a killed server left in dataDir (its
// Base is dataDir's folder), run by the same account, with a socket folder
// of its own when socket; the caller sets Recipe and Launches.
func Reopened(dataDir string, socket bool, accounts ...string) (*Instance, error) {
	acct, err := AccountFor(accounts...)
	if err != nil {
		return nil, err
	}
	in := &Instance{Account: acct, DataDir: dataDir}
	if socket {
		if in.SocketDir, err = in.socketDir(); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Beside makes the folders of another server next to this one's data, in
// Base/name (a replica, a restored backup): the same account, password and
// note, a socket folder of its own, no memory limit, CPUs or Host of this
// one's (set Host for a node of the same network).
// The caller fills its DataDir and Launches it; StopClean removes it all.
func (in *Instance) Beside(name string) (*Instance, error) {
	base := filepath.Join(in.Base(), name)
	if err := os.Mkdir(base, 0o700); err != nil {
		return nil, err
	}
	if err := in.Account.Own(base); err != nil {
		return nil, err
	}
	sib := &Instance{Account: in.Account, Dir: in.Dir, DataDir: filepath.Join(base, "data"), Password: in.Password, Note: in.Note}
	var err error
	if sib.SocketDir, err = in.socketDir(); err != nil {
		_ = os.RemoveAll(base)
		return nil, err
	}
	return sib, nil
}

// Replica makes the folders of a topology's node name beside in's data
// (Beside: replica-NAME, which in's StopClean removes) and places it on
// net, in a namespace of its own with its own address (nil net: loopback).
// The caller fills its DataDir and Launches it.
func (in *Instance) Replica(ctx context.Context, net *netns.Net, name string) (*Instance, error) {
	host, err := net.Add(ctx, name)
	if err != nil {
		return nil, err
	}
	r, err := in.Beside("replica-" + name)
	if err != nil {
		return nil, err
	}
	r.Host = host
	return r, nil
}

// Restored is Beside with a copy of backup (a folder the account reads: a
// prepared physical backup) as the new server's data, made by the account.
func (in *Instance) Restored(name, backup string) (*Instance, error) {
	sib, err := in.Beside(name)
	if err != nil {
		return nil, err
	}
	if err := in.Account.Run("cp", "-a", backup, sib.DataDir); err != nil {
		sib.Discard()
		return nil, err
	}
	return sib, nil
}

// socketDir makes a short folder for a Unix socket, owned by the account.
func (in *Instance) socketDir() (string, error) {
	d, err := os.MkdirTemp("", "dbgauge-sock-")
	if err != nil {
		return "", err
	}
	if err := in.Account.Own(d); err != nil {
		_ = os.Remove(d)
		return "", err
	}
	return d, nil
}

// Launch starts the server on a free loopback port (another one when the
// port was taken meanwhile, three tries) and waits until it serves
// (Recipe.Ready); Startup is the time that took. A server that did not come
// up is killed. With a memory limit it runs in a cgroup of its own.
func (in *Instance) Launch(ctx context.Context) error {
	var err error
	in.Startup, err = Launch{
		Memory: in.memory,
		Start:  in.start,
		Ready:  func() error { return in.Recipe.Ready(ctx) },
		Taken: func() bool {
			return in.Recipe.Taken != nil && in.Recipe.Taken(in.LogTail(5))
		},
	}.Run()
	return err
}

// start starts the server's command on port.
func (in *Instance) start(port int) (*Process, error) {
	in.Port = port
	c, err := in.Recipe.Command(port)
	if err != nil {
		return nil, err
	}
	acct, w := in.wrap(c)
	in.Process, err = StartEnv(acct, w.Env, in.cpus, in.Recipe.Log, w.Bin, w.Args...)
	if err == nil {
		in.Name = filepath.Base(c.Bin)
	}
	return in.Process, err
}

// wrap is the account that starts c and the command it starts: c as the
// server's account, or with a Host nsenter, started as root, which enters
// the namespace and then runs c as the account.
func (in *Instance) wrap(c Command) (Account, Command) {
	acct := in.Account
	if in.Host != nil {
		uid, gid := -1, -1
		if acct.Switched {
			uid, gid = acct.UID, acct.GID
		}
		c.Bin, c.Args = in.Host.Wrap(uid, gid, c.Bin, c.Args)
		acct.Switched = false
	}
	return acct, c
}

// CrashRestart kills every process of the server with SIGKILL, as a crash
// would, and starts it again on the same data, port and settings. It
// returns once the server serves, with what the server logged meanwhile
// (its recovery, for the engine to read).
func (in *Instance) CrashRestart(ctx context.Context) (string, error) {
	from := fileSize(in.LogPath)
	np, err := in.crash(ctx)
	if err != nil {
		return "", err
	}
	in.Process = np
	if err := in.Recipe.Ready(ctx); err != nil {
		return "", err
	}
	return ReadFrom(in.LogPath, from), nil
}

// crash kills the server (Process.Crash) and starts it again: the same
// command, or the recipe's Again on the same port.
func (in *Instance) crash(ctx context.Context) (*Process, error) {
	if in.Recipe.Again == nil {
		return in.Crash()
	}
	if err := in.Kill(); err != nil {
		return nil, err
	}
	c, err := in.Recipe.Again(ctx, in.Port) // on the killed server's data
	if err != nil {
		return nil, err
	}
	_, w := in.wrap(c) // as the first start was
	return in.againWith(w)
}

// Restart shuts the server down cleanly and starts it again on the same
// data, port and settings (its caches empty); it returns once it serves.
func (in *Instance) Restart(ctx context.Context) error {
	var np *Process
	var err error
	if in.Recipe.Again == nil {
		np, err = in.Process.Restart(in.Recipe.Stop, in.stopWithin())
	} else {
		var c Command
		if _, err = in.Stop(in.Recipe.Stop, in.stopWithin()); err == nil {
			if c, err = in.Recipe.Again(ctx, in.Port); err == nil {
				_, w := in.wrap(c)
				np, err = in.againWith(w)
			}
		}
	}
	if err != nil {
		return err
	}
	in.Process = np
	return in.Recipe.Ready(ctx)
}

func (in *Instance) stopWithin() time.Duration {
	if in.Recipe.StopWithin > 0 {
		return in.Recipe.StopWithin
	}
	return 60 * time.Second
}

// StopClean shuts the server down cleanly, releases its cgroup, removes
// Base and its socket folder (its log stays), and returns how long the
// shutdown took.
func (in *Instance) StopClean() (time.Duration, error) {
	var d time.Duration
	var err error
	if in.Recipe.Shutdown != nil {
		d, err = in.Recipe.Shutdown()
	} else {
		d, err = in.Stop(in.Recipe.Stop, in.stopWithin())
	}
	if cerr := in.ReleaseCgroup(); err == nil {
		err = cerr
	}
	in.Discard()
	return d, err
}

// Discard removes Base and the socket folder: a server that stopped, or
// never came up.
func (in *Instance) Discard() {
	_ = os.RemoveAll(in.Base())
	if in.SocketDir != "" {
		_ = os.RemoveAll(in.SocketDir)
	}
}

// Tool runs one of the engine's programs as the account, in "/", with env
// (nil: dbgauge's own) and stdin, until ctx ends. Its error names the
// program and ends with the last lines of its output, the password hidden.
func (in *Instance) Tool(ctx context.Context, env []string, stdin, name string, args ...string) error {
	cmd := in.Account.Command(ctx, name, args...)
	cmd.Env, cmd.Stdin = env, strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return ranErr(ctx, name, err, in.Hide(LastLines(string(out), 5)))
}

// Hide replaces the server's password in s.
func (in *Instance) Hide(s string) string {
	if in.Password == "" {
		return s
	}
	return strings.ReplaceAll(s, in.Password, "****")
}

// fileSize is a file's size, 0 when it cannot be read.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
