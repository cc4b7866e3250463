package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
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

// Server is a throwaway MariaDB server dbgauge started on loopback.
type Server struct {
	*server.Process
	DataDir   string
	SocketDir string
	Port      int
	Password  string // root's, set at start; never printed
	Account   server.Account
	Startup   time.Duration
	Note      string

	bin      string            // mariadbd
	settings map[string]string // its options, for a restored server
	memory   int64             // --server-memory
	cpus     []int             // --cpus server=…
}

// ServerConfig says where and how to start a server.
type ServerConfig struct {
	Dir      string            // the run's folder: the datadir goes in it, the log beside
	Data     string            // --data-dir: the data goes here instead (a folder the account must reach)
	Settings map[string]string // server options, given as --name=value
	Memory   int64             // --server-memory: a memory cgroup of its own with this limit; 0: none
	CPUs     []int             // --cpus server=…: the CPUs its processes run on; nil: the kernel's choice
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

// Start creates a datadir in cfg.Dir, starts the server on a free
// loopback port and a socket of its own, as the mysql account when dbgauge
// runs as root, sets a random root password, and returns once it accepts
// connections.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	bin, install, err := FindServer()
	if err != nil {
		return nil, err
	}
	acct, err := server.AccountFor("mysql")
	if err != nil {
		return nil, err
	}
	if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
		return nil, err
	}
	m := &Server{Account: acct, Password: server.Secret(), bin: bin, settings: cfg.Settings, memory: cfg.Memory, cpus: cfg.CPUs}
	f, err := server.MakeFolders(acct, cfg.Dir, cfg.Data, "mariadb")
	if err != nil {
		return nil, err
	}
	m.DataDir, m.SocketDir, m.Note = filepath.Join(f.Base, "data"), f.Socket, f.Note
	userArg := []string{}
	if acct.Switched {
		userArg = []string{"--user=" + acct.Name}
	}
	if ps, ok := cfg.Settings["innodb_page_size"]; ok {
		// InnoDB fixes its page size when the datadir is made: every later
		// start must say the same (launch passes the settings).
		userArg = append(userArg, "--innodb-page-size="+ps)
	}
	if err := acct.Run(install, append([]string{"--no-defaults", "--datadir=" + m.DataDir, "--tmpdir=" + m.SocketDir,
		"--auth-root-authentication-method=normal", "--skip-test-db"}, userArg...)...); err != nil {
		return nil, fmt.Errorf("mariadb-install-db: %w", err)
	}
	logPath := filepath.Join(cfg.Dir, "mariadb.log")
	if err := m.launch(ctx, logPath, ""); err != nil {
		return nil, err
	}
	if n := flushNote(server.ReadFrom(logPath, 0)); n != "" {
		m.Note = strings.TrimPrefix(m.Note+"; "+n, "; ")
	}
	db, err := sql.Open("mysql", m.dsn("", true))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	// dbgauge's own user with the password; every root entry gets it too,
	// so the server accepts no login without it.
	qs := []string{
		"CREATE USER 'dbgauge'@'%' IDENTIFIED BY '" + m.Password + "'",
		"GRANT ALL ON *.* TO 'dbgauge'@'%' WITH GRANT OPTION",
		"CREATE DATABASE IF NOT EXISTS dbgauge",
	}
	rows, err := db.QueryContext(ctx, "SELECT host FROM mysql.user WHERE user = 'root'")
	if err == nil {
		for rows.Next() {
			var host string
			if rows.Scan(&host) == nil {
				qs = append(qs, "ALTER USER 'root'@'"+strings.ReplaceAll(host, "'", "")+"' IDENTIFIED BY '"+m.Password+"'")
			}
		}
		rows.Close()
	}
	for i, q := range qs {
		if _, err := db.ExecContext(ctx, q); err != nil {
			if i >= 3 {
				continue // a root entry that cannot be altered (root@hostname): it never matches a loopback login
			}
			_, _ = m.StopClean()
			return nil, fmt.Errorf("set up the managed server: %w", err)
		}
	}
	return m, nil
}

// launch starts mariadbd on the datadir, on a free port (another one when
// the port was taken meanwhile), and waits until root can log in with
// password.
func (m *Server) launch(ctx context.Context, logPath, password string) error {
	keys := make([]string, 0, len(m.settings))
	for k := range m.settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	start := func(port int) (*server.Process, error) {
		m.Port = port
		args := []string{"--no-defaults", "--datadir=" + m.DataDir, "--port=" + strconv.Itoa(m.Port), "--bind-address=127.0.0.1",
			"--socket=" + filepath.Join(m.SocketDir, "mysqld.sock"), "--pid-file=" + filepath.Join(m.SocketDir, "mysqld.pid"),
			// A tmpdir of its own: at every start MariaDB deletes each #sql*
			// file in its tmpdir (mysql_rm_tmp_tables), so servers sharing
			// /tmp would take each other's temporary tables away.
			"--tmpdir=" + m.SocketDir,
			"--skip-name-resolve"} // no --log-error: the server logs to stderr, into the log dbgauge opened
		if m.Account.Switched {
			args = append(args, "--user="+m.Account.Name)
		}
		for _, k := range keys {
			args = append(args, "--"+k+"="+m.settings[k])
		}
		var err error
		m.Process, err = server.StartOn(m.Account, m.cpus, logPath, m.bin, args...)
		return m.Process, err
	}
	var err error
	m.Startup, err = server.Launch{
		Memory: m.memory,
		Start:  start,
		Ready:  func() error { return m.waitReady(ctx, password) },
		Taken:  func() bool { return strings.Contains(m.LogTail(5), "Address already in use") },
	}.Run()
	return err
}

// waitReady connects until the server accepts, or it exits, or 60 s pass.
func (m *Server) waitReady(ctx context.Context, password string) error {
	return m.WaitReady(ctx, 50*time.Millisecond, func() error {
		return backend.Ping(ctx, "mysql", m.dsnWith("root", password, "", true), time.Second)
	})
}

// CrashRestart kills the server's process group with SIGKILL and starts it
// again on the same datadir, port and socket: InnoDB replays its redo log.
// It returns once the server accepts connections, with what InnoDB said of
// its recovery, read from the log ("" when it said nothing recognisable).
func (m *Server) CrashRestart(ctx context.Context) (string, error) {
	from := backend.FileSize(m.LogPath)
	np, err := m.Crash()
	if err != nil {
		return "", err
	}
	m.Process = np
	// root has the password since Start set it.
	if err := m.waitReady(ctx, m.Password); err != nil {
		return "", err
	}
	return innodbNote(server.ReadFrom(m.LogPath, from)), nil
}

func (m *Server) dsn(db string, socket bool) string { return m.dsnWith("root", "", db, socket) }

func (m *Server) dsnWith(user, password, db string, socket bool) string {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.DBName = user, password, db
	if socket {
		c.Net, c.Addr = "unix", filepath.Join(m.SocketDir, "mysqld.sock")
	} else {
		c.Net, c.Addr = "tcp", "127.0.0.1:"+strconv.Itoa(m.Port)
	}
	c.Timeout = 10 * time.Second
	return c.FormatDSN()
}

// DSN returns a connection string to the dbgauge database, over TCP or the
// Unix socket. It holds the password: redact it before showing it.
func (m *Server) DSN(socket bool) string { return m.dsnWith("dbgauge", m.Password, "dbgauge", socket) }

// StopClean shuts the server down (SIGTERM: a clean shutdown), removes the
// datadir (the log stays), and returns how long the shutdown took.
func (m *Server) StopClean() (time.Duration, error) {
	d, err := m.Stop(syscall.SIGTERM, 60*time.Second)
	if cerr := m.ReleaseCgroup(); err == nil {
		err = cerr
	}
	os.RemoveAll(filepath.Dir(m.DataDir))
	os.RemoveAll(m.SocketDir)
	return d, err
}

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
