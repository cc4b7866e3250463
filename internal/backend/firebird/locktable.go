package firebird

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
)

// relationSeries is the lock manager's series of a table's lock (lck.h,
// LCK_relation); user tables have relation ids from 128 on.
const (
	relationSeries = "2"
	firstUserTable = 128
)

// pendingTableLocks reads the managed server's lock table with Firebird's
// own fb_lock_print (-l -n: the locks that have a request pending) and
// returns the user tables (relation ids) some request waits to lock and how
// many requests wait in all: the waits of SNAPSHOT TABLE STABILITY, which
// no MON$ table counts. It reads
// the lock file the server keeps under $FIREBIRD_LOCK, so it works on a
// server on this machine only (a managed one).
func (f *Server) pendingTableLocks(ctx context.Context) ([]int, int, error) {
	path, err := exec.LookPath("fb_lock_print")
	if err != nil {
		return nil, 0, errors.New("no fb_lock_print to read the lock table: apt-get install firebird3.0-utils")
	}
	cmd := exec.CommandContext(ctx, path, "-d", f.Database, "-l", "-n")
	cmd.Dir, cmd.Env = "/", f.env
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, err
	}
	tables, pending := parsePendingTables(out)
	return tables, pending, nil
}

// parsePendingTables reads fb_lock_print's LOCK BLOCKs: a table's lock is
// "Series: 2", its key "Key: 0128:…" the relation id, and its line says
// how many requests are pending ("Pending request count:      1").
func parsePendingTables(out []byte) (tables []int, pending int) {
	table := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "LOCK BLOCK"):
			table = false
		case strings.HasPrefix(line, "Series: "):
			series, _, _ := strings.Cut(strings.TrimPrefix(line, "Series: "), ",")
			table = series == relationSeries
		case table && strings.HasPrefix(line, "Key: "):
			key, rest, _ := strings.Cut(strings.TrimPrefix(line, "Key: "), ",")
			id, err := strconv.Atoi(strings.TrimLeft(strings.SplitN(key, ":", 2)[0], "0"))
			_, count, _ := strings.Cut(rest, "Pending request count:")
			n, _ := strconv.Atoi(strings.TrimSpace(count))
			if err == nil && id >= firstUserTable && n > 0 {
				tables, pending = append(tables, id), pending+n
			}
		}
	}
	return tables, pending
}
