package etcd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Reopen starts etcd again on the data folder a killed one-member cluster
// left in dataDir: the member replays its WAL; its log goes to logPath.
func Reopen(ctx context.Context, dataDir, logPath string, settings map[string]string) (*Cluster, error) {
	bin, err := FindServer()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dataDir, "member", "wal")); err != nil {
		return nil, fmt.Errorf("the killed member's WAL: %w", err)
	}
	in, err := server.Reopened(dataDir, false, "etcd")
	if err != nil {
		return nil, err
	}
	peer, err := server.FreePort()
	if err != nil {
		return nil, err
	}
	m := &Member{Instance: in, Name: "m1", PeerPort: peer}
	c := &Cluster{Members: []*Member{m}, bin: bin}
	m.recipe(bin, c.initialCluster(), "dbgauge-reopened", true, server.Settings(settings), logPath)
	from := backend.FileSize(logPath)
	if err := m.Launch(ctx); err != nil {
		return nil, err
	}
	if err := c.healthy(ctx); err != nil {
		_ = m.Kill()
		return nil, err
	}
	m.Note = replayNote(server.ReadFrom(logPath, from))
	return c, nil
}

// reopen is Spec.Reopen: a one-member etcd started again on a killed
// member's data (Reopen), at o's durability, and opened. Closing the DB
// stops it and removes its folder (the log stays).
func reopen(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
	if ownOf(o).members != 1 {
		return nil, knob.Bad("use --members 1 with dbgauge crash", "dbgauge crash restarts one member on its data; a cluster of %d is not put on trial", ownOf(o).members)
	}
	settings, keys, err := settingsOf(o)
	if err != nil {
		return nil, err
	}
	c, err := Reopen(ctx, dataDir, logPath, settings)
	if err != nil {
		return nil, err
	}
	d := &db{cluster: c, keys: keys}
	d.managed().RecoveryNote = c.Members[0].Note
	if err := d.connect(ctx); err != nil {
		_ = d.Close()
		return nil, errors.Join(errors.New("connect to the restarted member"), err)
	}
	return d.managed(), nil
}
