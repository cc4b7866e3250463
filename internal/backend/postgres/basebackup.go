package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// BaseBackup takes an online base backup of the running server into dir (a
// new folder in the cluster's, which the server's account can write) with
// pg_basebackup: plain format, the WAL it needs streamed beside it, and a
// fast checkpoint to begin with, so that the backup starts at once.
func (p *Server) BaseBackup(ctx context.Context, dir string) error {
	cmd := []string{"-D", dir, "-F", "p", "-X", "stream", "-c", "fast", "--no-sync",
		"-h", p.ListenAddr(), "-p", strconv.Itoa(p.Port), "-U", p.User, "-w"}
	if err := p.Account.RunContext(ctx, []string{"PGPASSWORD=" + p.Password}, filepath.Join(p.Bin, "pg_basebackup"), cmd...); err != nil {
		return err
	}
	// --no-sync above, then one sync of the whole folder: the same
	// guarantee in one pass.
	return p.Account.Run("sync", "-f", dir)
}

// RestoreConfig says which backup to restore, and to which point.
type RestoreConfig struct {
	Backup string    // a base backup's folder (BaseBackup)
	Name   string    // names the restored cluster's folder
	Log    string    // its server log
	Until  time.Time // roll the WAL archive forward to this moment; zero: see End
	End    bool      // roll forward through every archived segment; neither: the backup's consistency point
}

// Restore copies a base backup into a fresh cluster beside this one and
// starts a server on it, in archive recovery from this server's WAL
// archive, to the point r asks for; it returns once that server has
// promoted itself (its recovery is over) and accepts connections.
func (p *Server) Restore(ctx context.Context, r RestoreConfig) (*Server, error) {
	if p.Archive == "" {
		return nil, fmt.Errorf("the server keeps no WAL archive")
	}
	in, err := p.Restored("restore-"+r.Name, r.Backup)
	if err != nil {
		return nil, err
	}
	q := &Server{Instance: in, Bin: p.Bin, User: p.User, Database: p.Database}
	err = q.recoverFrom(p.Archive, r)
	if err == nil {
		err = q.signal("recovery.signal")
	}
	if err == nil {
		q.recipe(r.Log, nil, true)
		q.Recipe.Ready, q.Recipe.Taken = q.waitPromoted, nil
		err = q.Launch(ctx)
	}
	if err != nil {
		in.Discard()
		return nil, err
	}
	return q, nil
}

// recoverFrom writes the restore's recovery settings: WAL from archive, up
// to the point r asks for, then promotion.
func (q *Server) recoverFrom(archive string, r RestoreConfig) error {
	conf := fmt.Sprintf("\n# dbgauge: restore\nrestore_command = 'cp \"%s/%%f\" \"%%p\"'\nrecovery_target_action = 'promote'\n", archive)
	switch {
	case !r.Until.IsZero():
		conf += fmt.Sprintf("recovery_target_time = '%s'\n", r.Until.UTC().Format("2006-01-02 15:04:05.999999+00"))
	case !r.End:
		conf += "recovery_target = 'immediate'\n"
	}
	f, err := os.OpenFile(filepath.Join(q.DataDir, "postgresql.auto.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// waitPromoted waits until the server accepts connections and has left
// recovery, or exits, or 10 minutes pass (a long archive takes a while).
func (p *Server) waitPromoted(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := pgconn.Connect(cctx, p.DSN(false))
		if err == nil {
			var rr []*pgconn.Result
			rr, err = c.Exec(cctx, "SELECT pg_is_in_recovery()").ReadAll()
			_ = c.Close(cctx)
			if err == nil && len(rr) == 1 && len(rr[0].Rows) == 1 && string(rr[0].Rows[0][0]) == "f" {
				cancel()
				return nil
			}
		}
		cancel()
		select {
		case <-p.Done():
			return fmt.Errorf("the restored server exited; its log ends with: %s", p.LogTail(5))
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for the restored server to finish its recovery: %w", context.Cause(ctx))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the restored server had not finished its recovery after 10 minutes (a long WAL archive to replay?); its log ends with: %s", p.LogTail(5))
		}
	}
}
