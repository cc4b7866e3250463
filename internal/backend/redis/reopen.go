package redis

import (
	"context"
	"errors"
	"fmt"
	"os"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Reopen starts redis-server again on the data folder a killed managed
// server left in dataDir: it loads its AOF (what a crash kept); its log goes
// to logPath. The server has a new password, its configuration is
// settings over the kit's, and its Unix socket a folder of its own.
func Reopen(ctx context.Context, dataDir, logPath string, settings map[string]string) (*Server, error) {
	bin, err := FindServer()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dataDir); err != nil {
		return nil, fmt.Errorf("the killed server's data folder: %w", err)
	}
	in, err := server.Reopened(dataDir, true, "redis")
	if err != nil {
		return nil, err
	}
	in.Password = server.Secret()
	s := &Server{Instance: in, bin: bin, settings: settings}
	s.recipe(logPath)
	from := backend.FileSize(logPath)
	if err := s.Launch(ctx); err != nil {
		_ = os.RemoveAll(s.SocketDir)
		return nil, err
	}
	s.Note = loadNote(server.ReadFrom(logPath, from))
	return s, nil
}

// reopen is Spec.Reopen: Redis started again on a killed server's data
// (Reopen), at o's durability with the run's --set, and opened. Closing the
// DB stops the server and removes its folder (the log stays).
func reopen(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
	settings, err := mapDurability(o.Durability)
	if err != nil {
		return nil, err
	}
	for _, kv := range o.Set {
		settings[kv.Key] = kv.Value
	}
	srv, err := Reopen(ctx, dataDir, logPath, settings)
	if err != nil {
		return nil, err
	}
	d := &db{srv: srv, client: goredis.NewClient(srv.options(max(o.Conns, 1) + 1))}
	d.managed().RecoveryNote = srv.Note
	if err := d.ping(ctx); err != nil {
		_ = d.Close()
		return nil, errors.Join(errors.New("connect to the restarted server"), err)
	}
	return d.managed(), nil
}
