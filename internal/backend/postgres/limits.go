package postgres

import (
	"context"
	"fmt"
	"runtime"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// ownConns is how many connections dbgauge opens besides its clients while
// they run: the reads of the server's counters and settings.
const ownConns = 2

var _ backend.Limiter = (*db)(nil)

// Limits checks the server's connection slots (a managed server was given
// enough at its start) and this process's open files, and notes that each
// connection is a server process.
func (d *db) Limits(ctx context.Context, conns int, _ bool) ([]string, error) {
	if err := backend.CheckFiles(conns, 1); err != nil {
		return nil, err
	}
	c, err := d.connect(ctx)
	if err != nil {
		return nil, classify(err)
	}
	defer c.Close(ctx)
	d.self.Add(1)
	var limit, reserved, used int
	var super bool
	err = c.QueryRow(ctx, `SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int,
		(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)`).Scan(&limit, &reserved, &used, &super)
	if err != nil {
		return nil, classify(err)
	}
	if super {
		reserved = 0
	}
	// This connection is counted in used, and closes before the clients open.
	if err := backend.ConnectionsLeft(conns, ownConns, limit, used-1, reserved, "max_connections"); err != nil {
		return nil, err
	}
	var notes []string
	if d.srv != nil && conns > 4*runtime.NumCPU() {
		notes = append(notes, fmt.Sprintf("%d connections are %d PostgreSQL server processes, on the %d CPUs dbgauge shares with them",
			conns, conns, runtime.NumCPU()))
		var setting, need string
		if err := c.QueryRow(ctx, `SELECT current_setting('huge_pages'), coalesce(current_setting('shared_memory_size_in_huge_pages', true), '')`).Scan(&setting, &need); err != nil {
			return nil, classify(err)
		}
		if note := smallPages(d.srv.Pid(), setting, need); note != "" {
			notes = append(notes, note)
		}
	}
	return notes, nil
}

// smallPages is the note for a managed server whose shared memory is in
// 4 KiB pages: every server process faults in, through page tables of its
// own, each page of shared_buffers it touches, which many processes each
// doing a little pay again and again (at 1,000 clients on two cores, ×1.5
// the server's CPU per statement: docs/backends/postgres.md). need is the
// server's shared_memory_size_in_huge_pages ("" before PostgreSQL 15).
func smallPages(pid int, setting, need string) string {
	huge, err := server.HugePages(pid)
	if err != nil || huge {
		return ""
	}
	const what = "the server's shared memory is in 4 KiB pages, so each server process faults in every page of shared_buffers it touches"
	if setting == "off" {
		return what + ": huge_pages is off (--set huge_pages=try takes huge pages when the kernel has them reserved)"
	}
	reserved, err := server.ReservedHugePages()
	if err != nil {
		return ""
	}
	fix := "sysctl vm.nr_hugepages=N as root, N a little over shared_buffers ÷ 2 MiB"
	if need != "" {
		fix = "sysctl vm.nr_hugepages=" + need + " as root covers this server"
	}
	return fmt.Sprintf("%s: vm.nr_hugepages is %d (%s; huge_pages=%s takes them at the server's start)", what, reserved, fix, setting)
}
