package mariadb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

func init() {
	// The driver logs connection hiccups to stderr itself; dbgauge reports
	// errors through their return values, and stderr is the cli's.
	_ = mysql.SetLogger(quietLogger{})
}

type quietLogger struct{}

func (quietLogger) Print(...any) {}

// Server is a throwaway MariaDB server dbgauge started on loopback: the
// kit's Instance (account, folders, port, process) and what is MariaDB's own.
type Server struct {
	*server.Instance
	Name     string          // a replica's name in its topology (r1, r2); "" for a primary
	bin      string          // mariadbd
	install  string          // mariadb-install-db, which makes a replica's datadir
	settings server.Settings // its options, for a restored server
	first    []string        // ServerConfig.First
	again    func(ctx context.Context, m *Server) ([]string, error)
	onData   func(ctx context.Context, args ...string) (string, error) // RunOnData, made with the recipe
	login    string                                                    // root's password for readiness: "" until Start has set it, and without grant tables
}

// ServerConfig says where and how to start a server: the kit's Config and
// MariaDB's options.
type ServerConfig struct {
	server.Config
	Settings map[string]string // server options, given as --name=value
	// Binaries is the installation to run (mariadb:managed@VERSION);
	// its zero value is the system's (FindServer).
	Binaries Installation
	// Log is the server's log, a file name in Dir; "mariadb.log" when "".
	Log string
	// First are arguments of the first start only, after the settings: a
	// restart after a crash goes without them (a Galera cluster's first
	// node bootstraps it with --wsrep-new-cluster, and joins it again).
	First []string
	// Again, when set, gives more arguments of a start after a crash,
	// found then on the killed server's data (a Galera node's
	// --wsrep-start-position, which RunOnData with --wsrep-recover reads
	// from InnoDB).
	Again func(ctx context.Context, m *Server) ([]string, error)
	// Serving, when set, is awaited after the first start, once the
	// server accepts connections and before dbgauge's user is made, with
	// root's connection: a Galera node that bootstraps its cluster
	// accepts connections before it accepts statements (wsrep_ready).
	Serving func(ctx context.Context, m *Server, root *sql.DB) error
}

// FindServer returns the server binary and mariadb-install-db, or says what
// to install.
func FindServer() (server, install string, err error) {
	for _, s := range []string{"/usr/sbin/mariadbd", "/usr/sbin/mysqld"} {
		if _, err := os.Stat(s); err == nil {
			server = s
			break
		}
	}
	install, _ = exec.LookPath("mariadb-install-db")
	if server == "" || install == "" {
		return "", "", errors.New("no MariaDB server found: apt-get install mariadb-server")
	}
	return server, install, nil
}

// Start creates a datadir in cfg.Dir, starts the server on a free port
// (of loopback, or of its Host's address on a cluster's network) and a
// socket of its own, as the mysql account when dbgauge
// runs as root, sets a random root password, and returns once it accepts
// connections.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	bin, install := cfg.Binaries.Server, cfg.Binaries.Install
	if bin == "" {
		var err error
		if bin, install, err = FindServer(); err != nil {
			return nil, err
		}
	}
	in, err := server.New("mariadb", cfg.Config, "mysql")
	if err != nil {
		return nil, err
	}
	return launch(ctx, &Server{Instance: in, bin: bin, install: install, settings: cfg.Settings, first: cfg.First, again: cfg.Again},
		filepath.Join(in.Dir, cmp.Or(cfg.Log, "mariadb.log")), cfg.Serving)
}

// launch makes m's datadir, starts it with its output in logPath, and sets
// up dbgauge's user and database on it (secure) once serving, when set,
// has returned; it returns once m accepts connections.
func launch(ctx context.Context, m *Server, logPath string, serving func(context.Context, *Server, *sql.DB) error) (*Server, error) {
	if err := m.installDB(m.install); err != nil {
		return nil, err
	}
	m.recipe(logPath)
	if err := m.Launch(ctx); err != nil {
		return nil, err
	}
	if n := flushNote(server.ReadFrom(logPath, 0)); n != "" {
		m.Note = strings.TrimPrefix(m.Note+"; "+n, "; ")
	}
	if serving != nil {
		if err := m.awaitServing(ctx, serving); err != nil {
			_, _ = m.StopClean()
			return nil, err
		}
	}
	if err := m.secure(ctx); err != nil {
		_, _ = m.StopClean()
		return nil, fmt.Errorf("set up the managed server: %w", err)
	}
	m.login = m.Password
	return m, nil
}

// Join starts another server beside m: its folders in m's Base/name, run
// by the same account with the same password, on an empty datadir the
// server fills itself: a Galera node's state transfer copies another
// node's datadir, m's users with it. It returns once root logs in with the
// password; the caller stops it (StopClean) before m.
func (m *Server) Join(ctx context.Context, name string, cfg ServerConfig) (*Server, error) {
	in, err := m.Beside(name)
	if err != nil {
		return nil, err
	}
	in.Host = cfg.Host // its place on the cluster's network, if any
	if err := os.Mkdir(in.DataDir, 0o700); err != nil {
		in.Discard()
		return nil, err
	}
	if err := in.Account.Own(in.DataDir); err != nil {
		in.Discard()
		return nil, err
	}
	j := &Server{Instance: in, bin: m.bin, settings: cfg.Settings, first: cfg.First, again: cfg.Again, login: m.Password}
	log := filepath.Join(in.Dir, cmp.Or(cfg.Log, "mariadb-"+name+".log"))
	j.recipe(log)
	if err := j.Launch(ctx); err != nil {
		// Its folder goes, its log with it: what LogRules finds in it (a
		// state transfer's errors, above the shutdown's last lines) goes
		// with the error.
		if e := troubleIn(server.ReadFrom(log, 0)); e != "" {
			err = fmt.Errorf("%w; its log showed: %s", err, e)
		}
		in.Discard()
		return nil, err
	}
	return j, nil
}

// troubleIn says what LogRules find in a log: each kind, how often, and
// its first line.
func troubleIn(log string) string {
	var out []string
	for _, a := range LogRules.Scan(log) {
		out = append(out, fmt.Sprintf("%s ×%d, first: %s", a.Kind, a.Count, a.Sample))
	}
	return strings.Join(out, " | ")
}

// installDB makes the datadir with mariadb-install-db.
func (m *Server) installDB(install string) error {
	args := []string{"--no-defaults", "--datadir=" + m.DataDir, "--tmpdir=" + m.SocketDir,
		"--auth-root-authentication-method=normal", "--skip-test-db"}
	if m.Account.Switched {
		args = append(args, "--user="+m.Account.Name)
	}
	if ps, ok := m.settings["innodb_page_size"]; ok {
		// InnoDB fixes its page size when the datadir is made: every later
		// start must say the same (the recipe passes the settings).
		args = append(args, "--innodb-page-size="+ps)
	}
	if err := m.Account.Run(install, args...); err != nil {
		return fmt.Errorf("mariadb-install-db: %w", err)
	}
	return nil
}

// awaitServing calls serving with a connection pool of root's, before
// root has a password.
func (m *Server) awaitServing(ctx context.Context, serving func(context.Context, *Server, *sql.DB) error) error {
	root, err := sql.Open("mysql", m.dsn("", true))
	if err != nil {
		return err
	}
	defer root.Close()
	return serving(ctx, m, root)
}

// secure makes dbgauge's own user with the password, and gives every root
// entry the password too, so that the server accepts no login without it.
// None of it goes into a binary log: every server of a cluster is secured
// alike and starts with no GTID of its own, so that a replica replicates
// its upstream's binlog from its first event (the data's load) on.
func (m *Server) secure(ctx context.Context) error {
	pool, err := sql.Open("mysql", m.dsn("", true))
	if err != nil {
		return err
	}
	defer pool.Close()
	db, err := pool.Conn(ctx) // one session: sql_log_bin is the session's
	if err != nil {
		return err
	}
	defer db.Close()
	qs := []string{
		"SET SESSION sql_log_bin = 0",
		"CREATE USER 'dbgauge'@'%' IDENTIFIED BY '" + m.Password + "'",
		"GRANT ALL ON *.* TO 'dbgauge'@'%' WITH GRANT OPTION",
		"CREATE DATABASE IF NOT EXISTS dbgauge",
	}
	for _, q := range qs {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	var hosts []string
	if rows, err := db.QueryContext(ctx, "SELECT host FROM mysql.user WHERE user = 'root'"); err == nil {
		for rows.Next() {
			var host string
			if rows.Scan(&host) == nil {
				hosts = append(hosts, host)
			}
		}
		rows.Close()
	}
	for _, host := range hosts {
		// A root entry that cannot be altered (root@hostname) never matches
		// a loopback login: its error is passed over.
		_, _ = db.ExecContext(ctx, "ALTER USER 'root'@'"+strings.ReplaceAll(host, "'", "")+"' IDENTIFIED BY '"+m.Password+"'")
	}
	return nil
}

// recipe says how the kit starts this server: mariadbd on the datadir with
// its settings as --name=value, its output in log, ready when root can log
// in on its socket.
func (m *Server) recipe(log string) {
	command := func(port int, first bool) (server.Command, error) {
		args := []string{"--no-defaults", "--datadir=" + m.DataDir, "--port=" + strconv.Itoa(port), "--bind-address=" + m.ListenAddr(),
			"--socket=" + filepath.Join(m.SocketDir, "mysqld.sock"), "--pid-file=" + filepath.Join(m.SocketDir, "mysqld.pid"),
			// A tmpdir of its own: at every start MariaDB deletes each #sql*
			// file in its tmpdir (mysql_rm_tmp_tables), so servers sharing
			// /tmp would take each other's temporary tables away.
			"--tmpdir=" + m.SocketDir,
			"--skip-name-resolve"} // no --log-error: the server logs to stderr, into the log dbgauge opened
		if m.Account.Switched {
			args = append(args, "--user="+m.Account.Name)
		}
		args = append(args, m.settings.Render(func(k, v string) []string { return []string{"--" + k + "=" + v} })...)
		if first {
			args = append(args, m.first...)
		}
		return server.Command{Bin: m.bin, Args: args}, nil
	}
	m.Recipe = server.Recipe{
		Command: func(port int) (server.Command, error) { return command(port, true) },
		Ready: func(ctx context.Context) error {
			return m.WaitReady(ctx, 50*time.Millisecond, func() error {
				return backend.Ping(ctx, "mysql", m.dsnWith("root", m.login, "", true), time.Second)
			})
		},
		Taken: server.AddressInUse,
		Stop:  syscall.SIGTERM, // a clean shutdown
		Log:   log,
	}
	if len(m.first) > 0 || m.again != nil {
		m.Recipe.Again = func(ctx context.Context, port int) (server.Command, error) {
			c, err := command(port, false)
			if err != nil || m.again == nil {
				return c, err
			}
			more, err := m.again(ctx, m)
			c.Args = append(c.Args, more...)
			return c, err
		}
	}
	m.onData = func(ctx context.Context, args ...string) (string, error) {
		c, err := command(m.Port, false)
		if err != nil {
			return "", err
		}
		out, err := m.Account.Command(ctx, c.Bin, append(c.Args, args...)...).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%s %s: %w: %s", filepath.Base(c.Bin), strings.Join(args, " "), err, server.LastLines(string(out), 5))
		}
		return string(out), err
	}
}

// RunOnData runs the server's binary on its data with its options and
// args, as its account, while the server is down (mariadbd
// --wsrep-recover), and returns what it printed.
func (m *Server) RunOnData(ctx context.Context, args ...string) (string, error) {
	return m.onData(ctx, args...)
}

// CrashRestart kills the server's process group with SIGKILL and starts it
// again on the same datadir, port and socket: InnoDB replays its redo log.
// It returns once the server accepts connections, with what InnoDB said of
// its recovery, read from the log ("" when it said nothing recognisable).
func (m *Server) CrashRestart(ctx context.Context) (string, error) {
	log, err := m.Instance.CrashRestart(ctx)
	return innodbNote(log), err
}

func (m *Server) dsn(db string, socket bool) string { return m.dsnWith("root", "", db, socket) }

func (m *Server) dsnWith(user, password, db string, socket bool) string {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.DBName = user, password, db
	if socket {
		c.Net, c.Addr = "unix", filepath.Join(m.SocketDir, "mysqld.sock")
	} else {
		c.Net, c.Addr = "tcp", net.JoinHostPort(m.ListenAddr(), strconv.Itoa(m.Port))
	}
	c.Timeout = 10 * time.Second
	return c.FormatDSN()
}

// DSN returns a connection string to the dbgauge database, over TCP or the
// Unix socket. It holds the password: redact it before showing it.
func (m *Server) DSN(socket bool) string { return m.dsnWith("dbgauge", m.Password, "dbgauge", socket) }

// flushNote says when InnoDB could not write its redo log as configured:
// a file system that refuses O_DIRECT (tmpfs, dbgauge's FUSE test disk)
// makes it write through the page cache and fsync, which it logs.
func flushNote(log string) string {
	if strings.Contains(log, "InnoDB: Buffered log writes") {
		return "InnoDB writes its redo log through the page cache and fsyncs it: this file system refused O_DIRECT (its log: \"Buffered log writes\")"
	}
	return ""
}

var (
	innodbFrom  = regexp.MustCompile(`InnoDB: Starting crash recovery from checkpoint LSN=(\d+)`)
	innodbEnd   = regexp.MustCompile(`InnoDB: End of log at LSN=(\d+)`)
	innodbPages = regexp.MustCompile(`InnoDB: To recover: (\d+) pages`)
)

// innodbNote says how much redo log InnoDB's crash recovery replayed, from
// its log lines.
func innodbNote(log string) string {
	f := innodbFrom.FindStringSubmatch(log)
	if f == nil {
		return ""
	}
	e := innodbEnd.FindStringSubmatch(log)
	if e == nil {
		return "InnoDB crash recovery from LSN " + f[1]
	}
	from, _ := strconv.ParseInt(f[1], 10, 64)
	end, _ := strconv.ParseInt(e[1], 10, 64)
	note := fmt.Sprintf("InnoDB replayed %s of redo log (LSN %s to %s", server.MiB(end-from), f[1], e[1])
	if p := innodbPages.FindStringSubmatch(log); p != nil {
		note += ", " + p[1] + " pages"
	}
	return note + ")"
}
