package mariadb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Reopen starts MariaDB again on the datadir a killed managed server left
// in dataDir: InnoDB replays its redo log (crash recovery), its log goes to
// logPath. The root password died with the run that set it, so the server
// runs without its grant tables, on a Unix socket of its own and no TCP
// port: nothing but dbgauge can reach it. settings are given as at the
// first start (innodb_page_size must be the same), and the server is the
// killed one's, bins (the system's when zero).
func Reopen(ctx context.Context, dataDir, logPath string, settings map[string]string, bins Installation) (*Server, error) {
	bin := bins.Server
	if bin == "" {
		var err error
		if bin, _, err = FindServer(); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, "ibdata1")); err != nil {
		return nil, fmt.Errorf("the killed server's datadir: %w", err)
	}
	in, err := server.Reopened(dataDir, true, "mysql")
	if err != nil {
		return nil, err
	}
	m := &Server{Instance: in, bin: bin, settings: server.Settings{"skip-grant-tables": "1", "skip-networking": "1"}.With(settings)}
	m.recipe(logPath)
	from := backend.FileSize(logPath)
	if err := m.Launch(ctx); err != nil {
		os.RemoveAll(m.SocketDir)
		return nil, err
	}
	m.Note = innodbNote(server.ReadFrom(logPath, from))
	return m, nil
}

// reopen is Spec.Reopen: MariaDB started again on a killed server's datadir
// (Reopen) and opened as root on its socket, in dbgauge's database, with
// the run's --page-size or --set innodb_page_size, if any. Closing the DB
// stops the server and removes the datadir (its log stays).
func reopen(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
	settings, err := mapDurability(o.Durability)
	if err != nil {
		return nil, err
	}
	if o.PageSize > 0 {
		settings["innodb_page_size"] = strconv.FormatInt(o.PageSize, 10)
	}
	for _, kv := range o.Set {
		if kv.Key == "innodb_page_size" {
			settings["innodb_page_size"] = kv.Value
		}
	}
	var bins Installation // the killed run's, as its plan found them
	if x, ok := o.Own.(own); ok && x.bins != nil {
		bins = *x.bins
	}
	srv, err := Reopen(ctx, dataDir, logPath, settings, bins)
	if err != nil {
		return nil, err
	}
	d := &db{prepare: o.Prepare, srv: srv}
	d.managed().RecoveryNote = srv.Note
	if err := d.connect(ctx, srv.dsnWith("root", "", "dbgauge", true), max(o.Conns, 1)); err != nil {
		d.stop()
		return nil, fmt.Errorf("connect to the restarted server: %w", err)
	}
	return d.managed(), nil
}
