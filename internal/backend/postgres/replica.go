package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbgauge/dbgauge/internal/server"
)

// StartReplica makes a hot standby of p (a primary, or a replica for a
// chain) in in, the folders the kit made for it (Instance.Replica, beside
// the primary's, whose StopClean removes them all): a base backup of p,
// streaming from p under application_name name (what
// synchronous_standby_names names), started with settings on a port of
// its own. It returns once the standby accepts connections. Settings must
// not hold synchronous_standby_names: a replica that inherited it would
// hang on every write once promoted.
func (p *Server) StartReplica(ctx context.Context, in *server.Instance, name, logPath string, settings map[string]string) (*Server, error) {
	r := &Server{Instance: in, Bin: p.Bin, User: p.User, Database: p.Database, Name: name}
	// A throwaway standby: its copy need not be flushed (-N).
	cctx, cancel := context.WithTimeoutCause(ctx, replicaCopy, fmt.Errorf("the copy of %s took longer than %s (a stuck primary, or a database too big to copy on loopback that long)", upstreamName(p), replicaCopy))
	err := p.Account.RunContext(cctx, []string{"PGPASSWORD=" + p.Password}, filepath.Join(p.Bin, "pg_basebackup"),
		"-D", r.DataDir, "-F", "p", "-X", "stream", "-c", "fast", "--no-sync",
		"-h", p.ListenAddr(), "-p", strconv.Itoa(p.Port), "-U", p.User, "-w")
	cancel()
	if err == nil {
		err = r.follow(p)
	}
	if err == nil {
		err = r.signal("standby.signal")
	}
	if err == nil {
		r.recipe(logPath, settings, true)
		err = r.Launch(ctx)
	}
	if err != nil {
		in.Discard()
		return nil, fmt.Errorf("replica %s: %w", name, err)
	}
	return r, nil
}

// signal makes one of the files whose presence tells a starting server what
// it is (standby.signal, recovery.signal), owned by the account.
func (p *Server) signal(name string) error {
	path := filepath.Join(p.DataDir, name)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return err
	}
	return p.Account.Own(path)
}

// replicaCopy bounds the base backup a replica starts from.
const replicaCopy = 30 * time.Minute

// upstreamName names a server a replica copies: "primary" or the replica's.
func upstreamName(p *Server) string {
	if p.Name == "" {
		return "the primary"
	}
	return "replica " + p.Name
}

// conninfo is how a standby reaches upstream. It holds the password: it
// lives in the cluster's own files only.
func (r *Server) conninfo(upstream *Server) string {
	return fmt.Sprintf("host=%s port=%d user=%s password=%s application_name=%s", upstream.ListenAddr(), upstream.Port, r.User, r.Password, r.Name)
}

// follow writes, before the standby starts, where it streams from.
func (r *Server) follow(upstream *Server) error {
	f, err := os.OpenFile(filepath.Join(r.DataDir, "postgresql.auto.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n# dbgauge: a streaming replica\nprimary_conninfo = '%s'\n", r.conninfo(upstream))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Follow makes a running standby stream from upstream instead (after a
// failover): primary_conninfo changed and reloaded; the standby follows the
// new primary's timeline (recovery_target_timeline is latest by default).
func (r *Server) Follow(ctx context.Context, upstream *Server) error {
	_, err := r.Query(ctx, "ALTER SYSTEM SET primary_conninfo = '"+r.conninfo(upstream)+"'")
	if err == nil {
		_, err = r.Query(ctx, "SELECT pg_reload_conf()")
	}
	if err != nil {
		return fmt.Errorf("replica %s: follow %s: %w", r.Name, upstream.Name, err)
	}
	return nil
}

// Promote ends a standby's recovery and waits until it accepts writes.
func (r *Server) Promote(ctx context.Context) error {
	rows, err := r.Query(ctx, "SELECT pg_promote(true, 60)")
	if err != nil {
		return fmt.Errorf("promote %s: %w", r.Name, err)
	}
	if len(rows) != 1 || rows[0][0] != "t" {
		return fmt.Errorf("promote %s: the server did not finish its promotion within 60 s", r.Name)
	}
	return nil
}

// Query runs one statement on the server (through its Unix socket, with a
// deadline) and returns its rows as text; NULL is "".
func (p *Server) Query(ctx context.Context, sql string) ([][]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, p.DSN(true))
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	rr, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, res := range rr {
		for _, row := range res.Rows {
			line := make([]string, len(row))
			for i, v := range row {
				line[i] = string(v)
			}
			out = append(out, line)
		}
	}
	return out, nil
}

// InRecovery reports whether the server is a standby.
func (p *Server) InRecovery(ctx context.Context) (bool, error) {
	rows, err := p.Query(ctx, "SELECT pg_is_in_recovery()")
	if err != nil {
		return false, err
	}
	return len(rows) == 1 && rows[0][0] == "t", nil
}

// Lag is one standby as its upstream sees it (pg_stat_replication).
type Lag struct {
	Name      string
	State     string  // streaming, catchup …
	Sync      string  // async, sync, potential, quorum
	Bytes     float64 // WAL the upstream has that the standby has not replayed
	ReplayMs  float64 // replay_lag: how long ago the last replayed commit was made
	SentBytes float64 // WAL sent to it, as an LSN in bytes
}

// Lags reads the standbys streaming from p, with their lag behind p's own
// position (a primary's current WAL, or a standby's received WAL).
func (p *Server) Lags(ctx context.Context) ([]Lag, error) {
	rows, err := p.Query(ctx, `SELECT application_name, state, sync_state,
		coalesce(pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_receive_lsn() ELSE pg_current_wal_lsn() END, replay_lsn), 0),
		coalesce(extract(epoch FROM replay_lag) * 1000, 0), coalesce(pg_wal_lsn_diff(sent_lsn, '0/0'), 0)
		FROM pg_stat_replication ORDER BY application_name`)
	if err != nil {
		return nil, err
	}
	out := make([]Lag, 0, len(rows))
	for _, r := range rows {
		l := Lag{Name: r[0], State: r[1], Sync: r[2]}
		l.Bytes, _ = strconv.ParseFloat(r[3], 64)
		l.ReplayMs, _ = strconv.ParseFloat(r[4], 64)
		l.SentBytes, _ = strconv.ParseFloat(r[5], 64)
		out = append(out, l)
	}
	return out, nil
}

// ReceivedLSN is how far a standby has received WAL, in bytes.
func (r *Server) ReceivedLSN(ctx context.Context) (float64, error) {
	rows, err := r.Query(ctx, "SELECT coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0'), 0)")
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 {
		return 0, fmt.Errorf("replica %s: no position", r.Name)
	}
	return strconv.ParseFloat(strings.TrimSpace(rows[0][0]), 64)
}

// Receiving reports whether a standby's WAL receiver is streaming, and
// from which port.
func (r *Server) Receiving(ctx context.Context) (bool, string, error) {
	rows, err := r.Query(ctx, "SELECT status, sender_port FROM pg_stat_wal_receiver")
	if err != nil {
		return false, "", err
	}
	if len(rows) != 1 {
		return false, "", nil
	}
	return rows[0][0] == "streaming", rows[0][1], nil
}
