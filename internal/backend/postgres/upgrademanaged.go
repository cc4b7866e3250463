package postgres

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/redact"
)

var _ backend.Upgrader = managedDB{}

// checkUpgrade is Spec.CheckUpgrade: both forms managed, their folders
// found, then what CheckUpgrade refuses of their binaries.
func checkUpgrade(from, to, method string) error {
	for _, f := range []string{from, to} {
		if !isManaged(f) {
			return knob.Bad("give --from and --to as postgres:managed@MAJOR",
				"dbgauge upgrade moves a server it starts, and %s is not one", redact.DSN(f))
		}
	}
	fb, err := binOf(from, "", "")
	if err != nil {
		return err
	}
	tb, err := binOf(to, "", "")
	if err != nil {
		return err
	}
	if f, t := binaryMajor(fb), binaryMajor(tb); t <= f {
		return knob.Bad("give --to a newer version than --from", "--to %s (PostgreSQL %d) is not newer than --from %s (PostgreSQL %d)", to, t, from, f)
	}
	return CheckUpgrade(fb, tb, method)
}

// Upgrade moves the managed server to the version the form to names by
// method (Server.Upgrade), its settings kept; the DB then connects to the
// new server, and Close stops it and removes the old one's folders too.
func (m managedDB) Upgrade(ctx context.Context, to, method string) ([]UpgradeStep, error) {
	d := m.db
	if d.old != nil || len(d.replicas) > 0 {
		return nil, errors.New("postgres: only a lone managed server not yet upgraded can be upgraded")
	}
	bin, err := binOf(to, "", "")
	if err != nil {
		return nil, err
	}
	if err := CheckUpgrade(d.srv.Bin, bin, method); err != nil {
		return nil, err
	}
	n, steps, err := d.srv.Upgrade(ctx, bin, method, d.started)
	if err != nil {
		return steps, err
	}
	cfg, err := pgx.ParseConfig(n.DSN(d.socket))
	if err != nil {
		_, _ = n.StopClean()
		return steps, err
	}
	cfg.ConnectTimeout, cfg.DefaultQueryExecMode = d.cfg.ConnectTimeout, d.cfg.DefaultQueryExecMode
	cfg.StatementCacheCapacity, cfg.DescriptionCacheCapacity = d.cfg.StatementCacheCapacity, d.cfg.DescriptionCacheCapacity
	for k, v := range d.cfg.RuntimeParams {
		cfg.RuntimeParams[k] = v
	}
	d.old, d.srv, d.cfg = d.srv, n, cfg
	m.Server = n.Instance
	c, err := d.connect(ctx)
	if err != nil {
		return steps, fmt.Errorf("connect to the upgraded server: %w", err)
	}
	defer c.Close(ctx)
	d.self.Add(1)
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&d.version); err != nil {
		return steps, classify(err)
	}
	return steps, nil
}

// RowCounts counts the rows of every table outside PostgreSQL's own
// schemas, by its qualified name.
func (d *db) RowCounts(ctx context.Context) (map[string]int64, error) {
	c, err := d.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT format('%I.%I', schemaname, tablename) FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`)
	if err != nil {
		return nil, classify(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	d.self.Add(1)
	if err != nil {
		return nil, classify(err)
	}
	out := make(map[string]int64, len(names))
	for _, t := range names {
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return nil, classify(err)
		}
		d.self.Add(1)
		out[t] = n
	}
	return out, nil
}

// installed is Spec.Installed: every PostgreSQL Versions finds, as its
// server reports its version, and where it came from.
func installed() []backend.Installed {
	var out []backend.Installed
	for _, in := range Versions() {
		v := "unknown (postgres --version failed)"
		if b, err := exec.Command(filepath.Join(in.Bin, "postgres"), "--version").Output(); err == nil {
			v = strings.TrimPrefix(strings.TrimSpace(string(b)), "postgres (PostgreSQL) ")
		}
		src := in.Source
		if src == "" {
			src = "the system's packages"
		}
		out = append(out, backend.Installed{Version: v, Bin: in.Bin, Source: src, Form: fmt.Sprintf("postgres:managed@%d", in.Major)})
	}
	return out
}
