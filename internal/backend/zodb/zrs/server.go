package zrs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Server is one ZEO server of a ZRS cluster, on the kit: runzeo serving a
// FileStorage wrapped in ZRS (storage "1", DataDir/Data.fs). Every server
// serves replication on a port of its own (replicate-to), so that another
// can follow it (a chain's r2 follows r1); a secondary also follows its
// upstream's (replicate-from) and is read-only to clients.
type Server struct {
	*zodb.Runzeo
	Name string // "primary", "r1", "r2"
	repl int    // the port it serves replication on (replicate-to)
	from int    // the replication port it follows (replicate-from); 0: a primary
}

// Start makes the primary's folders (as its own account when dbgauge is
// root) and starts runzeo on a free loopback port with a ZRS primary
// around a FileStorage in DataDir; it returns once it serves.
func Start(ctx context.Context, cfg zodb.RunzeoConfig) (*Server, error) {
	rz, err := zodb.NewRunzeo("zrs", cfg)
	if err != nil {
		return nil, err
	}
	return launch(ctx, &Server{Runzeo: rz, Name: server.Primary})
}

// Follow starts a secondary named name beside the primary's folder (its
// data in primary's Base/name), replicating from up (the primary or
// another secondary); it returns once it serves clients, read-only.
func (s *Server) Follow(ctx context.Context, up *Server, name string) (*Server, error) {
	in, err := s.Beside(name)
	if err != nil {
		return nil, err
	}
	return launch(ctx, &Server{Runzeo: &zodb.Runzeo{Instance: in, Bin: s.Bin}, Name: name, from: up.repl})
}

// launch starts a new server (zodb.Runzeo's LaunchNew), its log named
// for it.
func launch(ctx context.Context, s *Server) (*Server, error) {
	s.recipe(filepath.Join(s.Dir, "zrs-"+s.Name+".log"))
	if err := s.LaunchNew(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// conf is runzeo's configuration file, beside the data.
func (s *Server) conf() string { return filepath.Join(s.Base(), "zeo.conf") }

// recipe: runzeo -C conf, the configuration written for the port (and a
// free replication port, each try), its log in log (zodb.Runzeo's Serve
// says the rest).
func (s *Server) recipe(log string) {
	s.Serve(log, func(port int) ([]string, error) {
		repl, err := server.FreePort()
		if err != nil {
			return nil, err
		}
		s.repl = repl
		if err := s.writeConf(port); err != nil {
			return nil, err
		}
		return []string{"-C", s.conf()}, nil
	})
}

// writeConf writes runzeo's configuration: the ZEO address (read-only for a
// secondary), ZRS's replicate-to and, for a secondary, replicate-from.
//
//	%import zc.zrs
//	<zeo> address 127.0.0.1:PORT  read-only true </zeo>
//	<zrs 1> replicate-to 127.0.0.1:REPL  replicate-from 127.0.0.1:FROM  <filestorage> path DATA/Data.fs </filestorage> </zrs>
func (s *Server) writeConf(port int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%%import zc.zrs\n<zeo>\n  address 127.0.0.1:%d\n", port)
	if s.from != 0 {
		b.WriteString("  read-only true\n")
	}
	fmt.Fprintf(&b, "</zeo>\n<zrs 1>\n  replicate-to 127.0.0.1:%d\n", s.repl)
	if s.from != 0 {
		fmt.Fprintf(&b, "  replicate-from 127.0.0.1:%d\n", s.from)
	}
	fmt.Fprintf(&b, "  <filestorage>\n    path %s\n  </filestorage>\n</zrs>\n", s.File())
	return os.WriteFile(s.conf(), []byte(b.String()), 0o644)
}

// become restarts the server (a clean stop, then runzeo again on the same
// data and replication port) on port, following from (a replication
// port), or as a primary when from is 0: how a secondary is promoted (on
// the killed primary's port, which its clients keep trying, as a floating
// address moves), or repointed at a new primary.
func (s *Server) become(ctx context.Context, port, from int) error {
	s.from = from
	if err := s.writeConf(port); err != nil {
		return err
	}
	s.Port = port
	return s.Restart(ctx)
}

var (
	roleLine   = regexp.MustCompile(`StorageServer created (RW|RO) with storages`)
	secondLine = regexp.MustCompile(`zc\.zrs\.secondary .*port=(\d+)\): (\w+)`)
)

// Role reads back from the server's log what its last start served:
// "RW" (a primary) or "RO" (a secondary), "" before it said.
func (s *Server) Role() string {
	if m := roleLine.FindAllStringSubmatch(server.ReadFrom(s.LogPath, 0), -1); m != nil {
		return m[len(m)-1][1]
	}
	return ""
}

// Replicating reads back from the server's log the replication port its
// secondary last spoke of and what it said ("Connected"); 0 when none.
func (s *Server) Replicating() (int, string) {
	m := secondLine.FindAllStringSubmatch(server.ReadFrom(s.LogPath, 0), -1)
	if m == nil {
		return 0, ""
	}
	p, _ := strconv.Atoi(m[len(m)-1][1])
	return p, m[len(m)-1][2]
}
