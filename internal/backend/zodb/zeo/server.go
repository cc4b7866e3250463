package zeo

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Server is a throwaway ZEO server dbgauge started on loopback: runzeo
// serving one FileStorage (storage "1", DataDir/Data.fs), on the kit.
type Server struct {
	*server.Instance
	runzeo string
}

// ServerConfig says where and how to start a server: the kit's Config and
// the environment's runzeo.
type ServerConfig struct {
	server.Config
	Runzeo string // the environment's bin/runzeo
}

// Start makes the server's folders (as its own account when dbgauge is
// root), starts runzeo on a free loopback port with a FileStorage in
// DataDir, and returns once it accepts connections.
func Start(ctx context.Context, cfg ServerConfig) (*Server, error) {
	in, err := server.New("zeo", cfg.Config, "zeo")
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
	s := &Server{Instance: in, runzeo: cfg.Runzeo}
	s.recipe(filepath.Join(in.Dir, "zeo.log"))
	if err := s.Launch(ctx); err != nil {
		in.Discard()
		return nil, err
	}
	return s, nil
}

// File is the server's FileStorage.
func (s *Server) File() string { return filepath.Join(s.DataDir, "Data.fs") }

// recipe: runzeo on 127.0.0.1:port with the FileStorage, its log (ZEO's
// logging on stderr) in log, ready when its port accepts a connection,
// stopped by SIGTERM (runzeo closes the storage: its index is written).
func (s *Server) recipe(log string) {
	s.Recipe = server.Recipe{
		Command: func(port int) (server.Command, error) {
			return server.Command{Bin: s.runzeo, Args: []string{"-a", "127.0.0.1:" + strconv.Itoa(port), "-f", s.File()}}, nil
		},
		Ready: func(ctx context.Context) error {
			return s.WaitReady(ctx, 50*time.Millisecond, func() error { return zodb.Ping(s.Port) })
		},
		Taken: func(tail string) bool { return strings.Contains(tail, "Address already in use") },
		Stop:  syscall.SIGTERM,
		Log:   log,
	}
}

// CrashRestart kills runzeo with SIGKILL and starts it again on the same
// FileStorage: it reads the file to its last complete transaction (a
// transaction whose tpc_finish did not end is cut off) and rebuilds its
// index. It returns what the server logged of that.
func (s *Server) CrashRestart(ctx context.Context) (string, error) {
	log, err := s.Instance.CrashRestart(ctx)
	return zodb.RecoveryNote(log), err
}
