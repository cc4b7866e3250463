package zeo

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

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
			return s.WaitReady(ctx, 50*time.Millisecond, s.ping)
		},
		Taken: func(tail string) bool { return strings.Contains(tail, "Address already in use") },
		Stop:  syscall.SIGTERM,
		Log:   log,
	}
}

// ping connects to the server and reads its greeting (a frame naming its
// protocol, "Z5"), within a second, before it closes: closed unread, the
// connection would be reset, which the server logs as an error.
func (s *Server) ping() error {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.Port), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetReadDeadline(time.Now().Add(time.Second)); err != nil {
		return err
	}
	var hello [6]byte // its length (4 bytes), then the protocol
	if _, err := io.ReadFull(c, hello[:]); err != nil {
		return fmt.Errorf("no greeting from the ZEO server: %w", err)
	}
	return nil
}

// CrashRestart kills runzeo with SIGKILL and starts it again on the same
// FileStorage: it reads the file to its last complete transaction (a
// transaction whose tpc_finish did not end is cut off) and rebuilds its
// index. It returns what the server logged of that.
func (s *Server) CrashRestart(ctx context.Context) (string, error) {
	log, err := s.Instance.CrashRestart(ctx)
	return recoveryNote(log), err
}

var storageLine = regexp.MustCompile(`opening storage '([^']*)' using (\w+)`)

// storageOf says which storage the server opened, from its log's words
// ("FileStorage"), "" when it said nothing recognisable.
func storageOf(log string) string {
	if m := storageLine.FindAllStringSubmatch(log, -1); m != nil {
		return m[len(m)-1][2]
	}
	return ""
}

var recoveryLines = regexp.MustCompile(`(?m)^.*(?:[Rr]ecover|[Tt]runcat|[Rr]ebuild|index).*$`)

// recoveryNote is what a restarted server's log says of its FileStorage's
// recovery: its lines that speak of it, joined.
func recoveryNote(log string) string {
	var out []string
	for _, l := range recoveryLines.FindAllString(log, 5) {
		out = append(out, strings.TrimSpace(l))
	}
	return strings.Join(out, "; ")
}
