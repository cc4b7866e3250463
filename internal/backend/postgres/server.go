package postgres

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// ServerConfig says how to start a managed PostgreSQL.
type ServerConfig struct {
	Bin      string            // folder holding initdb and postgres; "" searches the usual places
	Dir      string            // the run's folder: the cluster goes in Dir/postgres
	Data     string            // --data-dir: the data goes here instead (a folder the account must reach)
	Settings map[string]string // postgresql.conf parameters, passed as -c name=value
	// Archive keeps every WAL segment the server completes in a folder of
	// the cluster (archive_mode), so that a base backup can be rolled
	// forward to any later moment.
	Archive bool
	// Memory (--server-memory), when not 0, runs the server in a memory
	// cgroup of its own with this limit, its page cache included.
	Memory int64
	// CPUs (--cpus server=…) keeps the server's processes on these CPUs.
	CPUs []int
}

// Server is a running managed PostgreSQL.
type Server struct {
	*server.Process
	Bin       string
	DataDir   string
	SocketDir string
	Port      int
	User      string
	Password  string
	Database  string
	Account   server.Account
	Startup   time.Duration // from exec to the first accepted connection
	Note      string        // what a reader should know (who runs it, where)
	Archive   string        // the WAL archive's folder, when archiving
	Name      string        // a replica's application_name ("r1"); "" for a primary
	memory    int64         // --server-memory: the limit of its cgroup, made at the first launch
	cpus      []int         // --cpus server=…: the CPUs its processes run on
}

// pgSearch lists where Debian, RPM and source builds put PostgreSQL's binaries.
var pgSearch = []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin", "/usr/local/pgsql/bin", "/opt/homebrew/opt/postgresql*/bin"}

// FindServer returns the folder holding initdb and postgres: bin if given,
// else the newest on the usual paths, else $PATH.
func FindServer(bin string) (string, error) {
	has := func(dir string) bool {
		for _, f := range []string{"initdb", "postgres"} {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.IsDir() {
				return false
			}
		}
		return true
	}
	if bin != "" {
		if has(bin) {
			return bin, nil
		}
		return "", knob.Bad("give the folder holding initdb and postgres, e.g. --pg-bin /usr/lib/postgresql/15/bin", "--pg-bin %s holds no initdb and postgres", bin)
	}
	var found []string
	for _, pattern := range pgSearch {
		m, _ := filepath.Glob(pattern)
		for _, d := range m {
			if has(d) {
				found = append(found, d)
			}
		}
	}
	if len(found) > 0 {
		sort.Slice(found, func(i, j int) bool { return versionOf(found[i]) < versionOf(found[j]) })
		return found[len(found)-1], nil
	}
	if p, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", knob.Bad("install it (Debian: apt-get install postgresql) or give --pg-bin DIR",
		"postgres:managed needs the PostgreSQL server (initdb and postgres), and none was found in %s or $PATH", strings.Join(pgSearch, ", "))
}

// versionOf extracts the major version from a path like /usr/lib/postgresql/15/bin.
func versionOf(dir string) int {
	for _, part := range strings.Split(dir, string(filepath.Separator)) {
		if n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(part, "pgsql-"), "postgresql@")); err == nil {
			return n
		}
	}
	return 0
}

// Start creates a throwaway cluster and starts it on a free loopback
// port. The caller must Stop it.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	bin, err := FindServer(cfg.Bin)
	if err != nil {
		return nil, err
	}
	acct, err := server.AccountFor("postgres")
	if err != nil {
		return nil, err
	}
	p := &Server{Bin: bin, Account: acct, User: "dbgauge", Database: "postgres", Password: server.Secret(), memory: cfg.Memory, cpus: cfg.CPUs}
	// The server and its tools run from other working folders: absolute paths
	// only (--results oe is relative).
	if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
		return nil, err
	}
	f, err := server.MakeFolders(acct, cfg.Dir, cfg.Data, "postgres")
	if err != nil {
		return nil, err
	}
	base := f.Base
	p.DataDir, p.SocketDir, p.Note = filepath.Join(base, "data"), f.Socket, f.Note
	if cfg.Archive {
		p.Archive = filepath.Join(base, "archive")
		if err := os.Mkdir(p.Archive, 0o700); err != nil {
			return nil, err
		}
		if err := acct.Own(p.Archive); err != nil {
			return nil, err
		}
		settings := map[string]string{"archive_mode": "on", "archive_command": "test ! -f '" + p.Archive + "/%f' && cp %p '" + p.Archive + "/%f'"}
		for k, v := range cfg.Settings {
			settings[k] = v
		}
		cfg.Settings = settings
	}
	pwfile := filepath.Join(base, "pwfile")
	if err := os.WriteFile(pwfile, []byte(p.Password+"\n"), 0o600); err != nil {
		return nil, err
	}
	if err := acct.Own(pwfile); err != nil {
		return nil, err
	}
	err = acct.Run(filepath.Join(bin, "initdb"), "-D", p.DataDir, "-U", p.User, "--auth=scram-sha-256",
		"--pwfile="+pwfile, "-E", "UTF8", "--locale=C", "-N")
	os.Remove(pwfile)
	if err != nil {
		return nil, fmt.Errorf("initdb: %w", err)
	}
	if err := p.launch(ctx, filepath.Join(cfg.Dir, "postgres.log"), cfg.Settings); err != nil {
		return nil, err
	}
	return p, nil
}

// launch starts the server on p.DataDir on a free loopback port with
// settings as -c name=value, and waits until it accepts connections.
// With a memory limit, the server runs in a cgroup of its own.
func (p *Server) launch(ctx context.Context, logPath string, settings map[string]string) error {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	start := func(port int) (*server.Process, error) {
		p.Port = port
		args := []string{"-D", p.DataDir, "-p", strconv.Itoa(p.Port), "-c", "listen_addresses=127.0.0.1",
			"-c", "unix_socket_directories=" + p.SocketDir}
		for _, k := range keys {
			args = append(args, "-c", k+"="+settings[k])
		}
		var err error
		p.Process, err = server.StartOn(p.Account, p.cpus, logPath, filepath.Join(p.Bin, "postgres"), args...)
		return p.Process, err
	}
	var err error
	p.Startup, err = server.Launch{
		Memory: p.memory,
		Start:  start,
		Ready:  func() error { return p.waitReady(ctx) },
		Taken:  func() bool { return strings.Contains(p.LogTail(5), "could not bind") },
	}.Run()
	return err
}

// waitReady connects until the server accepts, or it exits, or 60 s pass.
func (p *Server) waitReady(ctx context.Context) error { return p.waitReadyOn(ctx, false) }

// waitReadyOn waits over TCP, or over the Unix socket.
func (p *Server) waitReadyOn(ctx context.Context, socket bool) error {
	return p.WaitReady(ctx, 20*time.Millisecond, func() error {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		c, err := pgconn.Connect(cctx, p.DSN(socket))
		cancel()
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
}

// DSN returns a connection string for the server, over TCP or, with socket,
// its Unix socket. It holds the password: redact it before showing it.
func (p *Server) DSN(socket bool) string {
	host := "127.0.0.1"
	if socket {
		host = p.SocketDir
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(p.User, p.Password), Path: "/" + p.Database}
	if p.Password == "" {
		u.User = url.User(p.User)
	}
	q := url.Values{"host": {host}, "port": {strconv.Itoa(p.Port)}, "sslmode": {"disable"}}
	u.RawQuery = q.Encode()
	return u.String()
}

// CrashRestart kills the server, every process of it, with SIGKILL and
// starts it again on the same cluster, port and settings: PostgreSQL replays the WAL
// written since its last checkpoint. It returns once the server accepts
// connections, with what the server said of its recovery ("redo done at
// 0/5A3C2B8 … replayed 12.3 MiB of WAL"), read from its log.
func (p *Server) CrashRestart(ctx context.Context) (string, error) {
	from := backend.FileSize(p.LogPath)
	np, err := p.Crash()
	if err != nil {
		return "", err
	}
	p.Process = np
	if err := p.waitReady(ctx); err != nil {
		return "", err
	}
	return redoNote(server.ReadFrom(p.LogPath, from)), nil
}

// Restart shuts the server down cleanly (fast shutdown: a checkpoint, then
// exit) and starts it again on the same cluster, port and settings: its
// shared buffers are empty afterwards. It returns once the server accepts
// connections.
func (p *Server) Restart(ctx context.Context) error {
	np, err := p.Process.Restart(syscall.SIGINT, 60*time.Second)
	if err != nil {
		return err
	}
	p.Process = np
	return p.waitReady(ctx)
}

var (
	redoStart = regexp.MustCompile(`redo starts at ([0-9A-F]+)/([0-9A-F]+)`)
	redoDone  = regexp.MustCompile(`redo done at ([0-9A-F]+)/([0-9A-F]+)`)
	noRedo    = regexp.MustCompile(`redo is not required`)
)

// redoNote says how much WAL a recovery replayed, from its log lines.
func redoNote(log string) string {
	if noRedo.MatchString(log) {
		return "no WAL to replay"
	}
	s, d := redoStart.FindStringSubmatch(log), redoDone.FindStringSubmatch(log)
	if s == nil || d == nil {
		return ""
	}
	return fmt.Sprintf("replayed %s of WAL (%s/%s to %s/%s)", server.MiB(lsn(d)-lsn(s)), s[1], s[2], d[1], d[2])
}

// lsn reads a WAL location's two hexadecimal halves.
func lsn(m []string) int64 {
	hi, _ := strconv.ParseInt(m[1], 16, 64)
	lo, _ := strconv.ParseInt(m[2], 16, 64)
	return hi<<32 | lo
}

// StopClean shuts the server down (fast shutdown: SIGINT), removes the
// cluster's files (the log stays), and returns how long the shutdown took.
func (p *Server) StopClean() (time.Duration, error) {
	d, err := p.Stop(syscall.SIGINT, 60*time.Second)
	if cerr := p.ReleaseCgroup(); err == nil {
		err = cerr
	}
	os.RemoveAll(filepath.Dir(p.DataDir))
	os.RemoveAll(p.SocketDir)
	return d, err
}

// Reopen starts a server again on the cluster of one that was killed, as
// recovery after a crash: a new port and socket folder, the same account,
// and local connections trusted (a line put first in pg_hba.conf, and
// fsynced), since the killed run's password is gone with it. It returns once
// the server accepts connections; Startup is the recovery time.
func Reopen(ctx context.Context, dataDir, logPath, binHint string) (*Server, error) {
	bin, err := FindServer(binHint)
	if err != nil {
		return nil, err
	}
	acct, err := server.AccountFor("postgres")
	if err != nil {
		return nil, err
	}
	hba := filepath.Join(dataDir, "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		return nil, fmt.Errorf("the killed server's cluster: %w", err)
	}
	f, err := os.OpenFile(hba, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(append([]byte("local all all trust\n"), old...))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	p := &Server{Bin: bin, Account: acct, User: "dbgauge", Database: "postgres", DataDir: dataDir}
	if p.SocketDir, err = os.MkdirTemp("", "dbgauge-pg-"); err != nil {
		return nil, err
	}
	if err := acct.Own(p.SocketDir); err != nil {
		return nil, err
	}
	// No other try: the port only names the socket (no TCP).
	p.Startup, err = server.Launch{
		Start: func(port int) (*server.Process, error) {
			p.Port = port
			var err error
			p.Process, err = server.Start(acct, logPath, filepath.Join(bin, "postgres"), "-D", dataDir, "-p", strconv.Itoa(p.Port),
				"-c", "listen_addresses=", "-c", "unix_socket_directories="+p.SocketDir)
			return p.Process, err
		},
		Ready: func() error { return p.waitReadyOn(ctx, true) },
	}.Run()
	if err != nil {
		os.RemoveAll(p.SocketDir)
		return nil, err
	}
	return p, nil
}
