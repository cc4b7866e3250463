package firebird

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nakagami/firebirdsql" // registers "firebirdsql"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Server is a throwaway Firebird 3 server dbgauge started on loopback: an
// instance of its own (its own firebird.conf, security database, lock and
// temporary folders, given to the server through $FIREBIRD, $FIREBIRD_LOCK
// and $FIREBIRD_TMP), so it neither needs nor touches the system's server.
type Server struct {
	*server.Instance
	Root     string // $FIREBIRD: firebird.conf, databases.conf, security3.fdb
	Database string // the database file
	Mode     string // ServerMode as configured
	Log      string // firebird.log in the run's folder: the lines the server logged while it ran
	Killed   bool   // the last shutdown did not finish and the server was killed
	reopened bool   // started again on a killed server's instance (Reopen)

	sysLog    string // the server's own firebird.log, at a path fixed when it was built
	sysLogOff int64
	logMu     sync.Mutex // saveLog runs from follow and from the stop
	env       []string
	conf      map[string]string // firebird.conf as written, for a restart on another port
}

// ServerConfig says where and how to start a server: the kit's Config and
// Firebird's own.
type ServerConfig struct {
	server.Config
	Conf         map[string]string // firebird.conf parameters (ServerMode, DefaultDbCachePages, …)
	PageSize     int               // of the database, at creation; 0 is the engine's default (8192)
	ForcedWrites bool              // gfix -write sync (true) or async
	// Binaries is the installation to run (firebird:managed@VERSION);
	// its zero value is the system's (FindServer).
	Binaries Installation
}

// firebirdRoots lists where distributions put Firebird 3's root folder
// (firebird.msg, intl, plugins).
var firebirdRoots = []string{"/usr/lib/x86_64-linux-gnu/firebird/3.0", "/usr/lib/aarch64-linux-gnu/firebird/3.0", "/opt/firebird", "/usr/lib64/firebird", "/usr/lib/firebird"}

// FindServer returns the server binary, isql and gfix, and the root folder
// of the installation, or says what to install.
func FindServer() (bin, isql, gfix, root string, err error) {
	for _, s := range []string{"/usr/sbin/firebird", "/opt/firebird/bin/firebird"} {
		if _, err := os.Stat(s); err == nil {
			bin = s
			break
		}
	}
	for _, r := range firebirdRoots {
		if _, err := os.Stat(filepath.Join(r, "firebird.msg")); err == nil {
			root = r
			break
		}
	}
	for _, n := range []string{"isql-fb", "/opt/firebird/bin/isql"} {
		if p, err := exec.LookPath(n); err == nil {
			isql = p
			break
		}
	}
	for _, n := range []string{"gfix", "/opt/firebird/bin/gfix"} {
		if p, err := exec.LookPath(n); err == nil {
			gfix = p
			break
		}
	}
	if bin == "" || root == "" || isql == "" || gfix == "" {
		return "", "", "", "", errors.New("no Firebird 3 server found: apt-get install firebird3.0-server firebird3.0-utils")
	}
	return bin, isql, gfix, root, nil
}

// ServerMode maps the names users give a server mode to firebird.conf's.
func ServerMode(m string) (string, bool) {
	switch strings.ToLower(m) {
	case "", "super", "superserver", "threadeddedicated":
		return "Super", true
	case "superclassic", "threadedshared":
		return "SuperClassic", true
	case "classic", "multiprocess":
		return "Classic", true
	}
	return "", false
}

// Start makes an instance in cfg.Dir, creates the database with the
// page size and forced writes asked for, starts the server on a free loopback
// port as the firebird account when dbgauge runs as root, and returns once it
// accepts connections.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	b := cfg.Binaries
	if b.Bin == "" {
		var err error
		if b.Bin, b.Isql, b.Gfix, b.Root, err = FindServer(); err != nil {
			return nil, err
		}
	}
	bin, isql, gfix, root := b.Bin, b.Isql, b.Gfix, b.Root
	mode, ok := ServerMode(cfg.Conf["ServerMode"])
	if !ok {
		return nil, fmt.Errorf("ServerMode %q: give Super, SuperClassic or Classic", cfg.Conf["ServerMode"])
	}
	in, err := server.New("firebird", cfg.Config, "firebird")
	if err != nil {
		return nil, err
	}
	_ = os.RemoveAll(in.SocketDir) // Firebird listens on TCP only
	in.SocketDir = ""
	f := &Server{Instance: in, Root: filepath.Join(in.Base(), "instance"), Database: filepath.Join(in.DataDir, "dbgauge.fdb"),
		Log: filepath.Join(in.Dir, "firebird.log"), Mode: mode, conf: server.Settings(cfg.Conf).With(map[string]string{"ServerMode": mode})}
	if err := f.makeInstance(root, f.conf); err != nil {
		return nil, err
	}
	f.setEnv()
	if err := f.createDatabases(isql, gfix, cfg.PageSize, cfg.ForcedWrites); err != nil {
		return nil, err
	}
	if err := f.launch(ctx, bin, filepath.Join(in.Dir, "firebird.out")); err != nil {
		return nil, err
	}
	return f, nil
}

// createDatabases makes the security database with SYSDBA's password and
// the database itself, in-process (embedded) before the server runs, and
// sets the database's forced writes.
func (f *Server) createDatabases(isql, gfix string, pageSize int, forcedWrites bool) error {
	size := ""
	if pageSize > 0 {
		size = " PAGE_SIZE " + strconv.Itoa(pageSize)
	}
	script := fmt.Sprintf("CREATE DATABASE '%s';\nCREATE USER SYSDBA PASSWORD '%s' USING PLUGIN Srp;\nCOMMIT;\n"+
		"CREATE DATABASE '%s'%s DEFAULT CHARACTER SET UTF8;\nCOMMIT;\n",
		filepath.Join(f.Root, "security3.fdb"), f.Password, f.Database, size)
	if err := f.run(isql, script, "-q", "-user", "SYSDBA"); err != nil {
		return fmt.Errorf("create the Firebird databases: %w", err)
	}
	fw := "async"
	if forcedWrites {
		fw = "sync"
	}
	return f.run(gfix, "", "-write", fw, f.Database)
}

// launch starts the server on the instance on a free loopback port (its
// output appended to out) and waits until it accepts connections to the
// database; then the run's firebird.log is kept current.
func (f *Server) launch(ctx context.Context, bin, out string) error {
	f.sysLog, f.sysLogOff = systemLog()
	args := []string{}
	if f.Mode == "Classic" {
		args = append(args, "-m") // a listener that forks a process per connection, as fbguard starts it
	}
	f.Recipe = server.Recipe{
		Command: func(int) (server.Command, error) {
			// firebird.conf names the port (the kit set it).
			return server.Command{Bin: bin, Args: args, Env: f.env}, f.writeConf(f.conf)
		},
		Ready:    f.waitReady,
		Taken:    func(tail string) bool { return server.AddressInUse(tail + f.newLog()) },
		Shutdown: f.shutdown,
		Log:      out,
	}
	if err := f.Launch(ctx); err != nil {
		f.saveLog()
		return err
	}
	go f.follow(f.Done())
	return nil
}

// makeInstance makes the instance's root: the configuration files, lock and
// temporary folders, and links to the installation's messages, character
// sets and plugins (which Firebird looks for beside firebird.conf).
func (f *Server) makeInstance(root string, conf map[string]string) error {
	for _, d := range []string{f.Root, f.DataDir, filepath.Join(f.Root, "lock"), filepath.Join(f.Root, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		if err := f.Account.Own(d); err != nil {
			return err
		}
	}
	for _, l := range []string{"firebird.msg", "intl", "plugins", "lib", "UDF"} {
		if _, err := os.Stat(filepath.Join(root, l)); err == nil {
			if err := os.Symlink(filepath.Join(root, l), filepath.Join(f.Root, l)); err != nil {
				return err
			}
		}
	}
	return f.writeFiles(conf)
}

// writeFiles writes the instance's configuration files, which name its
// folders: databases.conf, plugins.conf and firebird.conf.
func (f *Server) writeFiles(conf map[string]string) error {
	sec := filepath.Join(f.Root, "security3.fdb")
	files := map[string]string{
		"databases.conf": "security.db = " + sec + "\n{\n\tRemoteAccess = false\n}\n",
		"plugins.conf":   "Plugin = UDR {\n\tModule = $(dir_plugins)/udr_engine\n\tConfig = UDR_config\n}\n\nConfig = UDR_config {\n\tpath = $(dir_plugins)/udr\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(f.Root, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return f.writeConf(conf)
}

// setEnv sets the environment of the server and its tools: the instance's
// folders, and SYSDBA with its password for the tools.
func (f *Server) setEnv() {
	f.env = []string{"FIREBIRD=" + f.Root, "FIREBIRD_LOCK=" + filepath.Join(f.Root, "lock"), "FIREBIRD_TMP=" + filepath.Join(f.Root, "tmp"),
		"ISC_USER=SYSDBA", "ISC_PASSWORD=" + f.Password, "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
}

// writeConf writes firebird.conf: dbgauge's fixed settings, then the user's.
func (f *Server) writeConf(conf map[string]string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# written by dbgauge for a throwaway instance\nRemoteServicePort = %d\nRemoteBindAddress = 127.0.0.1\n", f.Port)
	fmt.Fprintf(&b, "SecurityDatabase = %s\nDatabaseAccess = Restrict %s\n", filepath.Join(f.Root, "security3.fdb"), f.DataDir)
	b.WriteString("AuthServer = Srp256, Srp\nUserManager = Srp\nWireCrypt = Enabled\nUdfAccess = None\nIpcName = dbgauge" + strconv.Itoa(f.Port) + "\n")
	b.WriteString(userConf + "\n")
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		fmt.Fprintf(&b, "%s = %s\n", k, conf[k])
	}
	return os.WriteFile(filepath.Join(f.Root, "firebird.conf"), []byte(b.String()), 0o644)
}

// userConf heads the run's own parameters in firebird.conf (ServerMode and
// --set's), which a restart on the instance reads back (readConf).
const userConf = "# the run's own parameters"

// readConf reads back the run's own parameters from an instance's
// firebird.conf (those writeConf wrote after userConf).
func readConf(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, own, ok := strings.Cut(string(b), userConf+"\n")
	if !ok {
		return nil, fmt.Errorf("%s was not written by dbgauge", path)
	}
	conf := map[string]string{}
	for _, l := range strings.Split(own, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			conf[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return conf, nil
}

// run runs a Firebird utility in-process against the instance (embedded),
// as the account, with script on its standard input.
func (f *Server) run(name, script string, args ...string) error {
	return f.Tool(context.Background(), f.env, script, name, args...)
}

// Service runs a services-API action on the database through the server
// with fbsvcmgr (action_validate: online validation; action_db_stats:
// gstat's statistics). The user and password come from the environment,
// never the command line.
func (f *Server) Service(ctx context.Context, action string, args ...string) (string, error) {
	return f.ServiceOn(ctx, f.Database, action, args...)
}

// ServiceOn is Service on another database file of the instance.
func (f *Server) ServiceOn(ctx context.Context, database, action string, args ...string) (string, error) {
	svc, err := exec.LookPath("fbsvcmgr")
	if err != nil {
		return "", errors.New("no fbsvcmgr: apt-get install firebird3.0-utils")
	}
	all := append([]string{"127.0.0.1/" + strconv.Itoa(f.Port) + ":service_mgr", action, "dbname", database}, args...)
	cmd := f.Account.Command(ctx, svc, all...)
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// DSN returns the driver's connection string to the database. It holds the
// password: redact it before showing it.
func (f *Server) DSN() string { return f.DSNFor(f.Database) }

// DSNFor is DSN for another database file of the instance.
func (f *Server) DSNFor(database string) string {
	return "SYSDBA:" + url.QueryEscape(f.Password) + "@127.0.0.1:" + strconv.Itoa(f.Port) + "/" + database
}

// waitReady connects until the server accepts, or it exits, or 60 s pass.
// What the server said goes to its own firebird.log too: its new lines end
// the error.
func (f *Server) waitReady(ctx context.Context) error {
	var refused error
	err := f.WaitReady(ctx, 50*time.Millisecond, func() error {
		err := backend.Ping(ctx, "firebirdsql", f.DSN(), 2*time.Second)
		if fe := (*firebirdsql.FbError)(nil); f.reopened && errors.As(err, &fe) {
			// The server is up and said why the database does not open
			// (after a crash: corrupt, say): waiting will not change it.
			refused = err
			return nil
		}
		return err
	})
	if err == nil && refused != nil {
		err = fmt.Errorf("the server started but the database did not open: %s", hide(f.Password, refused.Error()))
	}
	if said := f.newLog(); err != nil && said != "" {
		err = fmt.Errorf("%w; firebird.log: %s", err, said)
	}
	return err
}

// systemLog returns the firebird.log the server writes (its folder is fixed
// when Firebird is built: /var/log/firebird on Debian) and its current size.
func systemLog() (string, int64) {
	m, _ := filepath.Glob("/var/log/firebird/firebird*.log")
	if len(m) == 0 {
		return "", 0
	}
	st, err := os.Stat(m[0])
	if err != nil {
		return m[0], 0
	}
	return m[0], st.Size()
}

// newLog returns what the server's firebird.log gained since the start.
func (f *Server) newLog() string {
	if f.sysLog == "" {
		return ""
	}
	return server.ReadFrom(f.sysLog, f.sysLogOff)
}

// saveLog copies the lines the server logged while it ran into the run's
// folder (follow does it each second, the stop once more). Other Firebird servers on the machine write to the same file: their
// lines, if any, are among these.
func (f *Server) saveLog() {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	text := f.newLog()
	if f.sysLog == "" {
		text = "# Firebird's own firebird.log was not found or not readable\n"
	}
	_ = os.WriteFile(f.Log, []byte(text), 0o644)
}

// follow keeps the run's firebird.log current, once a second, until done
// (the process it follows has exited: a restart starts another follow).
func (f *Server) follow(done <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			f.saveLog()
		}
	}
}

// CrashRestart kills the server's process group with SIGKILL and starts it
// again on the same instance and database. It returns once the server
// accepts connections, with a note on the recovery: Firebird 3 has no log to
// replay (careful writes keep the database consistent on disk), and logs
// nothing of the restart when all is well.
// In Classic mode the listener binds without SO_REUSEADDR: its port stays
// taken while the killed connections linger in TIME-WAIT (up to 60 s), so
// the server comes back on a new port (Port and DSN change).
func (f *Server) CrashRestart(ctx context.Context) (string, error) {
	note := "no log to replay (careful writes)"
	if f.Mode == "Classic" {
		port, err := server.FreePort()
		if err != nil {
			return "", err
		}
		// Written before the kill: the running server read its
		// configuration when it started.
		f.Port = port
		if err := f.writeConf(f.conf); err != nil {
			return "", err
		}
		note += fmt.Sprintf("; on new port %d (Classic cannot rebind the killed one's while its connections linger)", port)
	}
	f.saveLog() // the run's lines, up to the kill
	from := backend.FileSize(f.sysLog)
	_, err := f.Instance.CrashRestart(ctx)
	f.saveLog()
	if err != nil {
		return "", err
	}
	go f.follow(f.Done())
	if a := LogRules.Scan(server.ReadFrom(f.sysLog, from)); len(a) > 0 {
		note += "; firebird.log: " + a[0].Sample
	}
	return note, nil
}

// Died says why the server died, with what it logged.
func (f *Server) Died() error {
	err := f.Process.Died()
	if err != nil {
		f.saveLog()
		if tail := server.LastLines(f.newLog(), 3); tail != "" {
			err = fmt.Errorf("%w; firebird.log: %s", err, tail)
		}
	}
	return err
}

// StopClean shuts the server down (SIGTERM: it closes its databases), keeps
// its log, removes the instance and the database, and returns how long the
// shutdown took.
func (f *Server) StopClean() (time.Duration, error) {
	d, err := f.Instance.StopClean()
	f.saveLog()
	return d, err
}

// shutdown asks the server to stop with SIGTERM and kills it when it has not
// stopped 2 s later: one stop in four or five here, Firebird 3.0.11 hangs in
// its shutdown with every attachment gone (an engine thread waits on a
// condition nobody signals); a shutdown that does not hang takes 0.1 s. By
// then the database has been closed by the last detach, its pages flushed,
// so the kill loses nothing; Killed says it happened.
// In Classic mode each connection's process outlives the listener for a
// moment, and still writes the lock folder: the shutdown ends when every
// process of the server's group is gone (killed after 5 s more).
func (f *Server) shutdown() (time.Duration, error) {
	start := time.Now()
	if _, err := f.Stop(syscall.SIGTERM, 2*time.Second); err != nil {
		f.Killed = true
	}
	if !server.GroupGone(f.Pid(), 5*time.Second) {
		_ = syscall.Kill(-f.Pid(), syscall.SIGKILL)
		f.Killed = true
		server.GroupGone(f.Pid(), 5*time.Second)
	}
	return time.Since(start), nil
}
