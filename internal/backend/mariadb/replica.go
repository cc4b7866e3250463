package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/server"
)

// StartReplica starts an empty replica of p (the primary, or a replica for
// a chain) named name, in in, the folders the kit made for it
// (Instance.Replica, beside the primary's, whose StopClean removes them
// all), with settings (its own server_id, read_only): a fresh datadir,
// secured as every server of the cluster is (secure: dbgauge's user and
// database, none of it in a binlog), then replicating p by GTID from p's
// first binlog event. It returns once the replica's IO thread is
// connected.
func (p *Server) StartReplica(ctx context.Context, in *server.Instance, name, logPath string, settings map[string]string) (*Server, error) {
	r := &Server{Instance: in, Name: name, bin: p.bin, install: p.install, settings: settings}
	if _, err := launch(ctx, r, logPath, nil); err != nil {
		in.Discard()
		return nil, fmt.Errorf("replica %s: %w", name, err)
	}
	if err := r.Follow(ctx, p, false); err != nil {
		_, _ = r.StopClean()
		return nil, err
	}
	return r, nil
}

// Follow makes r replicate upstream from r's own GTID position
// (MASTER_USE_GTID=slave_pos: empty at first, every event of upstream's
// binlog), stopping what it replicated before when again (a failover's
// repointing); it returns once r's IO thread is connected to upstream,
// within a minute.
//
//	CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=…, MASTER_USER='dbgauge',
//	  MASTER_PASSWORD='…', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1
//	START SLAVE
func (r *Server) Follow(ctx context.Context, upstream *Server, again bool) error {
	var qs []string
	if again {
		qs = append(qs, "STOP SLAVE")
	}
	qs = append(qs, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='%s', MASTER_PORT=%d, MASTER_USER='dbgauge', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
		upstream.ListenAddr(), upstream.Port, r.Password), "START SLAVE")
	for _, q := range qs {
		if err := r.exec(ctx, q); err != nil {
			return fmt.Errorf("replica %s: follow %s: %s", r.Name, nameOf(upstream), r.Hide(err.Error()))
		}
	}
	// The IO thread connects in the background: wait for it, so that a
	// replica that cannot reach its upstream fails the cluster's start.
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		st, err := r.SlaveStatus(wctx)
		if err == nil && st != nil && st["Slave_IO_Running"] == "Yes" && st["Slave_SQL_Running"] == "Yes" {
			return nil
		}
		said := "no slave status"
		if err != nil {
			said = err.Error()
		} else if st != nil {
			said = fmt.Sprintf("IO %s, SQL %s: %s", st["Slave_IO_Running"], st["Slave_SQL_Running"], strings.TrimSpace(st["Last_IO_Error"]+" "+st["Last_SQL_Error"]))
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("replica %s: not replicating from %s after a minute (%s)", r.Name, nameOf(upstream), r.Hide(said))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Promote makes a replica a primary: its IO thread stopped (its upstream
// is gone), every transaction it received (ioPos, its Gtid_IO_Pos) applied
// within a minute, replication stopped and forgotten, and writes accepted.
//
//	STOP SLAVE IO_THREAD; SELECT MASTER_GTID_WAIT(ioPos, 60)
//	STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF
func (r *Server) Promote(ctx context.Context, ioPos string) error {
	if err := r.exec(ctx, "STOP SLAVE IO_THREAD"); err != nil {
		return fmt.Errorf("promote %s: %w", r.Name, err)
	}
	if ioPos != "" {
		wctx, cancel := context.WithTimeout(ctx, 70*time.Second)
		rows, err := r.query(wctx, "SELECT MASTER_GTID_WAIT('"+strings.ReplaceAll(ioPos, "'", "")+"', 60) AS waited")
		cancel()
		if err != nil {
			return fmt.Errorf("promote %s: wait for its relay log to be applied: %w", r.Name, err)
		}
		if len(rows) != 1 || rows[0]["waited"] != "0" {
			return fmt.Errorf("promote %s: it had not applied what it received (%s) after 60 s", r.Name, ioPos)
		}
	}
	for _, q := range []string{"STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF"} {
		if err := r.exec(ctx, q); err != nil {
			return fmt.Errorf("promote %s: %s: %w", r.Name, q, err)
		}
	}
	return nil
}

// LagBehind says how far replica r is behind upstream: the bytes of
// upstream's binlog after the event r executed last (its
// Relay_Master_Log_File and Exec_Master_Log_Pos, against upstream's SHOW
// BINARY LOGS), and the transactions upstream logged that r has not
// executed (the GTID sequence numbers of @@gtid_binlog_pos and r's
// @@gtid_slave_pos, domain by domain).
func (r *Server) LagBehind(ctx context.Context, upstream *Server) (bytes, trx float64, err error) {
	st, err := r.SlaveStatus(ctx)
	if err != nil {
		return 0, 0, err
	}
	if st == nil {
		return 0, 0, errors.New("not a replica")
	}
	mine, err := r.Variable(ctx, "gtid_slave_pos")
	if err != nil {
		return 0, 0, err
	}
	logs, err := upstream.query(ctx, "SHOW BINARY LOGS")
	if err != nil {
		return 0, 0, err
	}
	theirs, err := upstream.Variable(ctx, "gtid_binlog_pos")
	if err != nil {
		return 0, 0, err
	}
	file := st["Relay_Master_Log_File"]
	pos, _ := strconv.ParseFloat(st["Exec_Master_Log_Pos"], 64)
	for _, l := range logs {
		if l["Log_name"] < file {
			continue
		}
		size, _ := strconv.ParseFloat(l["File_size"], 64)
		bytes += size
		if l["Log_name"] == file {
			bytes -= pos
		}
	}
	return max(bytes, 0), float64(gtidBehind(theirs, mine)), nil
}

// gtidSeqs reads a GTID position ("0-1-123,1-2-5": domain-server-sequence,
// a list) as each domain's sequence number.
func gtidSeqs(pos string) map[string]int64 {
	out := map[string]int64{}
	for _, g := range strings.Split(pos, ",") {
		parts := strings.Split(strings.TrimSpace(g), "-")
		if len(parts) != 3 {
			continue
		}
		if n, err := strconv.ParseInt(parts[2], 10, 64); err == nil {
			out[parts[0]] = max(out[parts[0]], n)
		}
	}
	return out
}

// gtidBehind is how many transactions position b lacks of position a,
// domain by domain (a sequence number counts a domain's transactions,
// whichever server made them).
func gtidBehind(a, b string) int64 {
	bs := gtidSeqs(b)
	var n int64
	for d, s := range gtidSeqs(a) {
		n += max(s-bs[d], 0)
	}
	return n
}

// gtidAhead says whether position a holds transactions b lacks.
func gtidAhead(a, b string) bool { return gtidBehind(a, b) > 0 }

// SlaveStatus is SHOW SLAVE STATUS by column (Slave_IO_Running,
// Gtid_IO_Pos, Master_Port …), nil for a server that replicates nothing.
func (m *Server) SlaveStatus(ctx context.Context) (map[string]string, error) {
	rows, err := m.query(ctx, "SHOW SLAVE STATUS")
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}

// Variable reads one global variable.
func (m *Server) Variable(ctx context.Context, name string) (string, error) {
	vars, err := m.Variables(ctx, name)
	if err != nil {
		return "", err
	}
	v, ok := vars[name]
	if !ok {
		return "", fmt.Errorf("no variable %s", name)
	}
	return v, nil
}

// Variables reads global variables (SHOW GLOBAL VARIABLES) by name.
func (m *Server) Variables(ctx context.Context, names ...string) (map[string]string, error) {
	return m.named(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
}

// Status reads status counters (SHOW GLOBAL STATUS) by name.
func (m *Server) Status(ctx context.Context, names ...string) (map[string]string, error) {
	return m.named(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
}

// named runs a SHOW … VARIABLES or STATUS and returns its rows as a map.
func (m *Server) named(ctx context.Context, q string) (map[string]string, error) {
	rows, err := m.query(ctx, q)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r["Variable_name"]] = r["Value"]
	}
	return out, nil
}

// exec runs one statement on the server as root, on its Unix socket,
// within ten seconds.
func (m *Server) exec(ctx context.Context, q string) error {
	_, err := m.query(ctx, q)
	return err
}

// query runs one statement on the server as root, on its Unix socket,
// within ten seconds (or ctx's end), and returns its rows by column, as
// text; NULL is "".
func (m *Server) query(ctx context.Context, q string) ([]map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", m.dsnWith("root", m.login, "", true))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make(map[string]string, len(cols))
		for i, c := range cols {
			row[c] = vals[i].String
		}
		out = append(out, row)
	}
	return out, rows.Err()
}
