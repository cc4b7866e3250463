package neo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// reopen is Spec.Reopen: the cluster started again on what a killed one
// left: the master's data folder dataDir (its log to logPath), the storage
// nodes' databases beside it (Base/storageN/data), an admin; opened once
// it is RUNNING: what `dbgauge crash` reads after each kill. Closing the DB
// stops the cluster.
func reopen(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
	python, err := Python(o)
	if err != nil {
		return nil, err
	}
	dirs := storageDirs(dataDir)
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no NEO storage node's database beside %s", dataDir)
	}
	in, err := server.Reopened(dataDir, false, "neo")
	if err != nil {
		return nil, err
	}
	// The replicas are the partition table's, kept in the storages'
	// databases: -r applies to a new cluster only.
	c := newCluster(python, filepath.Dir(logPath), 0)
	c.master(in, len(dirs))
	c.Master.Recipe.Log = logPath
	from := backend.FileSize(logPath)
	start := func(n *Node) error {
		if err := n.Launch(ctx); err != nil {
			_, _ = c.Stop()
			return fmt.Errorf("start NEO's %s again: %w", n.Name, err)
		}
		return nil
	}
	if err := start(c.Master); err != nil {
		return nil, err
	}
	for i, d := range dirs {
		sin, err := server.Reopened(d, false, "neo")
		if err != nil {
			_, _ = c.Stop()
			return nil, err
		}
		n := c.node(sin, fmt.Sprintf("storage%d", i+1), "storage")
		if err := start(n); err != nil {
			return nil, err
		}
		c.Storages = append(c.Storages, n)
	}
	ain, err := server.Reopened(filepath.Join(filepath.Dir(dataDir), "admin", "data"), false, "neo")
	if err != nil {
		_, _ = c.Stop()
		return nil, err
	}
	c.Admin = c.node(ain, "admin", "admin")
	if err := start(c.Admin); err != nil {
		return nil, err
	}
	if err := c.WaitRunning(ctx, nil); err != nil {
		_, _ = c.Stop()
		return nil, err
	}
	d, err := connect(ctx, c, python, o.CacheBytes)
	if err != nil {
		return nil, err
	}
	d.RecoveryNote = recoveryNote(server.ReadFrom(logPath, from))
	return d, nil
}

// exists says whether path is there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// recoveryNote is what a restarted master's log says (its warnings), or
// that it said nothing: NEO logs its recovery at a level below them.
func recoveryNote(log string) string {
	if l := server.LastLines(log, 3); l != "" {
		return l
	}
	return "the cluster started again on its storage nodes' databases, RUNNING"
}
