package postgres

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// ServerConfig says how to start a managed PostgreSQL: the kit's Config
// (the run's folder, --data-dir, --server-memory, --cpus server=…) and
// PostgreSQL's own.
type ServerConfig struct {
	server.Config
	Bin      string            // folder holding initdb and postgres; "" searches the usual places
	Settings map[string]string // postgresql.conf parameters, passed as -c name=value
	// Archive keeps every WAL segment the server completes in a folder of
	// the cluster (archive_mode), so that a base backup can be rolled
	// forward to any later moment.
	Archive bool
}

// Server is a running managed PostgreSQL: the kit's Instance (account,
// folders, port, process) and what is PostgreSQL's own.
type Server struct {
	*server.Instance
	Bin      string
	User     string
	Database string
	Archive  string // the WAL archive's folder, when archiving
	Name     string // a replica's application_name ("r1"); "" for a primary
}

// pgSearch lists where Debian, RPM and source builds put PostgreSQL's binaries.
var pgSearch = []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin", "/usr/local/pgsql/bin", "/opt/homebrew/opt/postgresql*/bin"}

// FindServer returns the folder holding initdb and postgres: bin if given,
// else the newest on the usual paths that is the system's own (the versions
// InstallScript added are taken only when asked for, @MAJOR, or when no
// other is installed), else $PATH.
func FindServer(bin string) (string, error) {
	if bin != "" {
		if hasTools(bin, "initdb", "postgres") {
			return bin, nil
		}
		return "", knob.Bad("give the folder holding initdb and postgres, e.g. --pg-bin /usr/lib/postgresql/15/bin", "--pg-bin %s holds no initdb and postgres", bin)
	}
	found := Versions()
	own := slices.DeleteFunc(slices.Clone(found), func(in Installed) bool { return in.Source != "" })
	if len(own) > 0 {
		found = own
	}
	if len(found) > 0 {
		sort.SliceStable(found, func(i, j int) bool { return found[i].Major < found[j].Major })
		return found[len(found)-1].Bin, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil && hasTools(filepath.Dir(p), "initdb", "postgres") {
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
	in, err := server.New("postgres", cfg.Config, "postgres")
	if err != nil {
		return nil, err
	}
	p := &Server{Instance: in, Bin: bin, User: "dbgauge", Database: "postgres"}
	settings := server.Settings(cfg.Settings)
	if cfg.Archive {
		p.Archive = filepath.Join(in.Base(), "archive")
		if err := os.Mkdir(p.Archive, 0o700); err != nil {
			return nil, err
		}
		if err := in.Account.Own(p.Archive); err != nil {
			return nil, err
		}
		archive := server.Settings{"archive_mode": "on", "archive_command": "test ! -f '" + p.Archive + "/%f' && cp %p '" + p.Archive + "/%f'"}
		settings = archive.With(cfg.Settings)
	}
	if err := p.initdb(); err != nil {
		return nil, err
	}
	if err := p.allowNet(); err != nil {
		return nil, err
	}
	p.recipe(filepath.Join(in.Dir, "postgres.log"), settings, true)
	if err := p.Launch(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// initdb makes the cluster in DataDir, dbgauge's user its superuser with
// the password (through a file of the account's, removed at once).
func (p *Server) initdb(extra ...string) error {
	pwfile := filepath.Join(p.Base(), "pwfile")
	if err := os.WriteFile(pwfile, []byte(p.Password+"\n"), 0o600); err != nil {
		return err
	}
	defer os.Remove(pwfile)
	if err := p.Account.Own(pwfile); err != nil {
		return err
	}
	args := append([]string{"-D", p.DataDir, "-U", p.User, "--auth=scram-sha-256",
		"--pwfile=" + pwfile, "-E", "UTF8", "--locale=C", "-N"}, extra...)
	err := p.Account.Run(filepath.Join(p.Bin, "initdb"), args...)
	if err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	return nil
}

// allowNet lets the other servers and the clients of a cluster's network
// (a Host's subnet) in with the password, for queries and replication, as
// initdb lets in loopback. Its replicas copy the rule with the data.
func (p *Server) allowNet() error {
	if p.Host == nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(p.DataDir, "pg_hba.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n# dbgauge: the cluster's network\nhost all all %[1]s scram-sha-256\nhost replication all %[1]s scram-sha-256\n", p.Host.Subnet)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// recipe says how the kit starts this server: postgres on DataDir with
// settings as -c name=value, its output in log, listening on loopback TCP
// (tcp) or only on its Unix socket, ready when a connection succeeds there.
func (p *Server) recipe(log string, settings server.Settings, tcp bool) {
	listen := ""
	if tcp {
		listen = p.ListenAddr()
	}
	p.Recipe = server.Recipe{
		Command: func(port int) (server.Command, error) {
			args := []string{"-D", p.DataDir, "-p", strconv.Itoa(port), "-c", "listen_addresses=" + listen,
				"-c", "unix_socket_directories=" + p.SocketDir}
			args = append(args, settings.Render(func(k, v string) []string { return []string{"-c", k + "=" + v} })...)
			return server.Command{Bin: filepath.Join(p.Bin, "postgres"), Args: args}, nil
		},
		Ready: func(ctx context.Context) error { return p.waitReadyOn(ctx, !tcp) },
		Stop:  syscall.SIGINT, // fast shutdown: a checkpoint, then exit
		Log:   log,
	}
	if tcp {
		// Without TCP the port only names the socket: no other try.
		p.Recipe.Taken = func(tail string) bool { return strings.Contains(tail, "could not bind") }
	}
}

// waitReadyOn connects, over TCP or the Unix socket, until the server
// accepts, or it exits, or 60 s pass.
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
	host := p.ListenAddr()
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
	log, err := p.Instance.CrashRestart(ctx)
	return redoNote(log), err
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

// Reopen starts a server again on the cluster of one that was killed, as
// recovery after a crash: a new port and socket folder, the same account,
// no TCP, and local connections trusted (a line put first in pg_hba.conf,
// and fsynced), since the killed run's password is gone with it. It returns
// once the server accepts connections; Startup is the recovery time.
func Reopen(ctx context.Context, dataDir, logPath, binHint string) (*Server, error) {
	bin, err := FindServer(binHint)
	if err != nil {
		return nil, err
	}
	if err := trustLocal(filepath.Join(dataDir, "pg_hba.conf")); err != nil {
		return nil, err
	}
	in, err := server.Reopened(dataDir, true, "postgres")
	if err != nil {
		return nil, err
	}
	p := &Server{Instance: in, Bin: bin, User: "dbgauge", Database: "postgres"}
	p.recipe(logPath, nil, false)
	if err := p.Launch(ctx); err != nil {
		_ = os.RemoveAll(p.SocketDir)
		return nil, err
	}
	return p, nil
}

// trustLocal puts "local all all trust" first in a killed cluster's
// pg_hba.conf, flushed.
func trustLocal(hba string) error {
	old, err := os.ReadFile(hba)
	if err != nil {
		return fmt.Errorf("the killed server's cluster: %w", err)
	}
	f, err := os.OpenFile(hba, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(append([]byte("local all all trust\n"), old...))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
