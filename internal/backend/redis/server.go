package redis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbgauge/dbgauge/internal/server"
)

// Server is a throwaway redis-server dbgauge started on loopback: the kit's
// Instance (account, folders, port, password, process) and what is Redis's
// own: its binary and its configuration.
type Server struct {
	*server.Instance
	bin      string
	settings server.Settings // the configuration's parameters, beside those the kit decides
}

// ServerConfig says where and how to start a server: the kit's Config and
// Redis's configuration parameters (redis.conf's directives).
type ServerConfig struct {
	server.Config
	Settings map[string]string
}

// FindServer returns redis-server's path, or says what to install.
func FindServer() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/bin/redis-server", "/usr/sbin/redis-server"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no redis-server found: apt-get install redis-server")
}

// Start makes a data folder in cfg.Dir, starts redis-server on a free
// loopback port (and a Unix socket of its own) with a password, as the
// redis account when dbgauge runs as root, and returns once it answers.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	bin, err := FindServer()
	if err != nil {
		return nil, err
	}
	in, err := server.New("redis", cfg.Config, "redis")
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(in.DataDir, 0o700); err != nil {
		in.Discard()
		return nil, err
	}
	if err := in.Account.Own(in.DataDir); err != nil {
		in.Discard()
		return nil, err
	}
	s := &Server{Instance: in, bin: bin, settings: cfg.Settings}
	s.recipe(filepath.Join(in.Dir, "redis.log"))
	if err := s.Launch(ctx); err != nil {
		in.Discard()
		return nil, err
	}
	return s, nil
}

// recipe says how the kit starts this server: redis-server on a
// configuration file written for the port (conf, beside the data), its log
// on its output into log, ready when an authenticated PING answers.
func (s *Server) recipe(log string) {
	conf := filepath.Join(s.Base(), "redis.conf")
	s.Recipe = server.Recipe{
		Command: func(port int) (server.Command, error) {
			if err := s.writeConfig(conf, port); err != nil {
				return server.Command{}, err
			}
			return server.Command{Bin: s.bin, Args: []string{conf}}, nil
		},
		Ready: func(ctx context.Context) error {
			return s.WaitReady(ctx, 50*time.Millisecond, func() error { return s.ping(ctx) })
		},
		Taken: server.AddressInUse,
		Stop:  syscall.SIGTERM, // a clean shutdown: the AOF is fsynced
		Log:   log,
	}
}

// config is the configuration of the server on port: what the kit decides
// (where it listens, its folder, its password, its log on its output, no
// RDB snapshots: what a crash keeps is the AOF's doing alone), then the
// run's settings, which win.
func (s *Server) config(port int) server.Settings {
	return server.Settings{
		"port": strconv.Itoa(port), "bind": "127.0.0.1", "protected-mode": "yes", "daemonize": "no",
		"dir": s.DataDir, "logfile": "", "requirepass": s.Password, "save": "",
		"unixsocket": filepath.Join(s.SocketDir, "redis.sock"), "unixsocketperm": "700",
	}.With(s.settings)
}

// writeConfig writes the configuration for port into path, readable by the
// account alone (it holds the password):
//
//	appendfsync "always"
//	port "41234"
func (s *Server) writeConfig(path string, port int) error {
	lines := s.config(port).Render(func(k, v string) []string { return []string{k + " " + quote(v)} })
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	return s.Account.Own(path)
}

// quote writes a value as redis.conf reads a double-quoted string.
func quote(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v) + `"`
}

// ping is one authenticated PING on the TCP port: an error while the server
// is not up, or still loading its data (LOADING).
func (s *Server) ping(ctx context.Context) error {
	c := goredis.NewClient(s.options(1))
	defer c.Close()
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return c.Ping(pctx).Err()
}

// options are go-redis's options for a pool of n connections to the server.
func (s *Server) options(n int) *goredis.Options {
	return clientOptions(&goredis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.Port), Password: s.Password}, n)
}

// CrashRestart kills the server's process group with SIGKILL and starts it
// again on the same data, port and password: it loads its AOF again. It
// returns once the server answers, with what it said of the load.
func (s *Server) CrashRestart(ctx context.Context) (string, error) {
	log, err := s.Instance.CrashRestart(ctx)
	return loadNote(log), err
}

var (
	loaded    = regexp.MustCompile(`DB loaded from append only file: ([0-9.]+) seconds`)
	truncated = regexp.MustCompile(`AOF loaded anyway because aof-load-truncated is enabled`)
	keys      = regexp.MustCompile(`Done loading RDB, keys loaded: (\d+)`)
)

// loadNote says what Redis's log said of loading its AOF at a start: how
// long it took, and whether the AOF's last command was cut short (a crash
// in the middle of a write) and left out.
func loadNote(log string) string {
	m := loaded.FindStringSubmatch(log)
	if m == nil {
		return ""
	}
	note := "Redis loaded its AOF in " + m[1] + " s"
	if k := keys.FindStringSubmatch(log); k != nil && k[1] != "0" {
		note += fmt.Sprintf(" (%s keys from its RDB base)", k[1])
	}
	if truncated.MatchString(log) {
		note += "; its last command was cut short and left out (aof-load-truncated)"
	}
	return note
}

// CheckAOF runs redis-check-aof, as the account, on the server's AOF (its
// manifest, which names every part): ok when it says every part is valid,
// with its last line.
func (s *Server) CheckAOF(ctx context.Context) (bool, string, error) {
	manifest := filepath.Join(s.DataDir, "appendonlydir", "appendonly.aof.manifest")
	if _, err := os.Stat(manifest); err != nil {
		return false, "", fmt.Errorf("the AOF's manifest: %w", err)
	}
	cmd := s.Account.Command(ctx, filepath.Join(filepath.Dir(s.bin), "redis-check-aof"), manifest)
	out, err := cmd.CombinedOutput()
	last := server.LastLines(strings.TrimSpace(string(out)), 1)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, "redis-check-aof: " + last, nil
	case errors.As(err, &exit) && ctx.Err() == nil:
		return false, "redis-check-aof: " + last, nil
	}
	return false, "", fmt.Errorf("redis-check-aof: %w", err)
}
