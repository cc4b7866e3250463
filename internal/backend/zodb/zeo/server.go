package zeo

import (
	"context"
	"path/filepath"
	"strconv"

	"github.com/dbgauge/dbgauge/internal/backend/zodb"
)

// Server is a throwaway ZEO server dbgauge started on loopback: runzeo
// serving one FileStorage (storage "1", DataDir/Data.fs), on the kit.
type Server struct {
	*zodb.Runzeo
}

// Start makes the server's folders (as its own account when dbgauge is
// root), starts runzeo on a free loopback port with a FileStorage in
// DataDir, and returns once it accepts connections.
func Start(ctx context.Context, cfg zodb.RunzeoConfig) (*Server, error) {
	rz, err := zodb.NewRunzeo("zeo", cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{rz}
	s.recipe(filepath.Join(rz.Dir, "zeo.log"))
	if err := s.LaunchNew(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// recipe: runzeo on 127.0.0.1:port with the FileStorage (zodb.Runzeo's
// Serve says the rest), its log in log.
func (s *Server) recipe(log string) {
	s.Serve(log, func(port int) ([]string, error) {
		return []string{"-a", "127.0.0.1:" + strconv.Itoa(port), "-f", s.File()}, nil
	})
}
