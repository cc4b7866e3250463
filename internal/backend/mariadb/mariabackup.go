package mariadb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/dbgauge/dbgauge/internal/server"
)

// FindMariabackup returns mariabackup, or says what to install.
func FindMariabackup() (string, error) {
	for _, n := range []string{"mariabackup", "mariadb-backup"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no mariabackup: apt-get install mariadb-backup")
}

// Backup takes an online physical backup of the running server into dir (a
// new folder beside the datadir, which the server's account can write) with
// mariabackup --backup through the server's socket, then prepares it
// (--prepare: the redo copied during the backup applied), so that dir is a
// datadir at the backup's consistency point, and flushes it.
func (m *Server) Backup(ctx context.Context, dir string) error {
	// The server's own mariabackup first (an installation of
	// mariadb:managed@DIR has one beside its server), else the system's.
	bin := server.FirstFile(filepath.Dir(m.bin), "mariabackup", "mariadb-backup")
	if bin == "" {
		var err error
		if bin, err = FindMariabackup(); err != nil {
			return err
		}
	}
	// The password goes in a file only the account reads, not on the
	// command line, where ps shows it; --defaults-file also keeps the
	// system's my.cnf (another datadir) out.
	cnf := filepath.Join(filepath.Dir(m.DataDir), "mariabackup.cnf")
	text := fmt.Sprintf("[mariabackup]\nuser=root\npassword=%s\nsocket=%s\ndatadir=%s\n",
		m.Password, filepath.Join(m.SocketDir, "mysqld.sock"), m.DataDir)
	if err := os.WriteFile(cnf, []byte(text), 0o600); err != nil {
		return err
	}
	defer os.Remove(cnf)
	if err := m.Account.Own(cnf); err != nil {
		return err
	}
	if err := m.Tool(ctx, nil, "", bin, "--defaults-file="+cnf, "--backup", "--target-dir="+dir); err != nil {
		return fmt.Errorf("mariabackup --backup: %w", err)
	}
	if err := m.Tool(ctx, nil, "", bin, "--no-defaults", "--prepare", "--target-dir="+dir); err != nil {
		return fmt.Errorf("mariabackup --prepare: %w", err)
	}
	// mariabackup does not flush what it writes: one sync of the file system.
	return m.Account.Run("sync", "-f", dir)
}

// RestoreConfig says which backup to restore.
type RestoreConfig struct {
	Backup string // a prepared backup's folder (Backup)
	Name   string // names the restored server's folder
	Log    string // its server log
}

// Restore copies a prepared backup into a fresh datadir beside this
// server's and starts a new server on it (its own port and socket, the same
// options and account); it returns once root can log in. StopClean removes
// it.
func (m *Server) Restore(ctx context.Context, r RestoreConfig) (*Server, error) {
	in, err := m.Restored("restore-"+r.Name, r.Backup)
	if err != nil {
		return nil, err
	}
	q := &Server{Instance: in, bin: m.bin, settings: m.settings, login: m.Password}
	q.recipe(r.Log)
	if err := q.Launch(ctx); err != nil { // Launch kills a server that did not come up
		in.Discard()
		return nil, err
	}
	return q, nil
}
