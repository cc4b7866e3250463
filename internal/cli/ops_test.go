package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbgauge/dbgauge/internal/backend/firebird"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// onlyResult loads the one result under root.
func onlyResult(t *testing.T, root string) *result.Result {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "*", "result.json"))
	if len(files) != 1 {
		t.Fatalf("%d results under %s", len(files), root)
	}
	r, err := result.Load(filepath.Dir(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// whenResult calls fn with the result under root, as the run saves it, until
// fn returns true or 30 s pass.
func whenResult(root string, fn func(*result.Result) bool) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		files, _ := filepath.Glob(filepath.Join(root, "*", "result.json"))
		if len(files) == 0 {
			continue
		}
		if r, err := result.Load(filepath.Dir(files[0])); err == nil && fn(r) {
			return
		}
	}
}

// checkRestore finds the check of a restore to target.
func checkRestore(t *testing.T, r *result.Result, target string) result.Restore {
	t.Helper()
	if r.Backup == nil {
		t.Fatal("the result has no backup")
	}
	for _, x := range r.Backup.Restores {
		if x.Target == target {
			return x
		}
	}
	t.Fatalf("no restore to %s in %+v", target, r.Backup.Restores)
	return result.Restore{}
}

// TestBackupEmbedded: an online backup under load on SQLite (nms, whose
// calls make and clear channels) and bbolt (insert through key-value), the
// workload's pace before, during and after it, and a restore that holds
// every commit acknowledged before the backup began.
func TestBackupEmbedded(t *testing.T) {
	for _, args := range [][]string{
		{"nms", "--db", "sqlite", "--lines", "300", "--clients", "2"},
		{"insert", "--db", "bbolt", "--durability", "off"},
	} {
		t.Run(args[0]+"/"+args[2], func(t *testing.T) {
			root := t.TempDir()
			// At 1.5 s: mid-second, whole seconds before and after it.
			code, out, errs := runCLI(t, nil, append([]string{"run"}, append(args, "--backup", "at=1500ms", "--duration", "3500ms", "--warmup", "0",
				"--results", root, "--ceiling", "off")...)...)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			r := onlyResult(t, root)
			b := r.Backup
			if !b.Taken || b.Bytes == 0 || b.Seconds <= 0 || len(b.Windows) != 3 || b.Windows[0].OK == 0 || b.Windows[2].OK == 0 {
				t.Fatalf("backup %+v", b)
			}
			x := checkRestore(t, r, result.RestoreToBackup)
			if !x.OK || !x.Ledger || x.Required == 0 || x.Lost != 0 || x.Phantom != 0 || !strings.Contains(x.Integrity, "ok") {
				t.Fatalf("restore %+v", x)
			}
			if len(b.Restores) != 1 {
				t.Errorf("an embedded engine keeps no log to roll forward, yet %d restores", len(b.Restores))
			}
			for _, want := range []string{"backup  ", "during ÷ before", "✓ restore to the backup's consistency point"} {
				if !strings.Contains(out, want) {
					t.Errorf("the summary lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestBackupTampered: rows taken out of the backup file after it was taken
// are acknowledged commits the restore lacks: the check fails, exit 1.
func TestBackupTampered(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		testenv.Need(t, err) // .ci/run installs sqlite3
	}
	root := t.TempDir()
	done := make(chan error, 1)
	go func() {
		var path string
		whenResult(root, func(r *result.Result) bool {
			if r.Backup != nil && r.Backup.Taken {
				path = r.Backup.Path
			}
			return path != ""
		})
		if path == "" {
			done <- os.ErrNotExist
			return
		}
		done <- exec.Command("sqlite3", path, "DELETE FROM mytab WHERE f1 IN (SELECT f1 FROM mytab ORDER BY f1 LIMIT 3)").Run()
	}()
	code, out, errs := runCLI(t, nil, "run", "insert", "--backup", "at=1s", "--duration", "4s", "--warmup", "0", "--results", root, "--ceiling", "off")
	if err := <-done; err != nil {
		t.Fatalf("tampering with the backup: %v", err)
	}
	if code != ExitUnmet {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitUnmet, out, errs)
	}
	x := checkRestore(t, onlyResult(t, root), result.RestoreToBackup)
	if x.OK || x.Lost != 3 || len(x.LostSample) != 3 {
		t.Fatalf("restore of a tampered backup: %+v", x)
	}
}

// TestBackupServers: mariabackup and Firebird's nbackup under load on the
// managed servers, each restored into a fresh instance that holds every
// commit acknowledged before the backup began and passes its integrity check.
func TestBackupServers(t *testing.T) {
	inParallel(t)
	for _, db := range []string{"mariadb", "firebird"} {
		t.Run(db, func(t *testing.T) {
			if _, _, err := mariadb.FindServer(); db == "mariadb" && err != nil {
				testenv.Need(t, err) // .ci/run installs it
			}
			if _, _, _, _, err := firebird.FindServer(); db == "firebird" && err != nil {
				testenv.Need(t, err)
			}
			root := t.TempDir()
			// insert only adds ids: those acknowledged before the backup
			// began are all required (nms clears its oldest calls, so a
			// long backup window leaves few required).
			code, out, errs := runCLI(t, nil, "run", "insert", "--db", db+":managed", "--backup", "at=1s",
				"--duration", "3s", "--warmup", "0", "--results", root, "--ceiling", "off", "--crash-recovery=false")
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			r := onlyResult(t, root)
			x := checkRestore(t, r, result.RestoreToBackup)
			if !r.Backup.Taken || r.Backup.Bytes == 0 || !x.OK || x.Required == 0 || x.Lost != 0 || x.Phantom != 0 || x.Integrity == "" {
				t.Fatalf("backup %+v, restore %+v", r.Backup, x)
			}
		})
	}
}

func TestBackupBadInput(t *testing.T) {
	for name, args := range map[string][]string{
		"no at":             {"--backup", "to=3s"},
		"not a duration":    {"--backup", "at=soon"},
		"unknown part":      {"--backup", "at=1s,every=2s"},
		"after the end":     {"--backup", "at=20s", "--duration", "10s"},
		"to before at":      {"--backup", "at=5s,to=2s"},
		"engine without it": {"--backup", "at=1s", "--db", "gdbm"},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			code, _, errs := runCLI(t, nil, append([]string{"run", "nms", "--results", dir}, args...)...)
			assertOneLine(t, code, errs, ExitUsage, "")
		})
	}
}

// TestPostgresBackupRestore: pg_basebackup under load on a managed server
// whose WAL is archived, restored three times into fresh clusters: at the
// backup's consistency point, rolled forward to a moment, and through the
// whole archive; each holds what was acknowledged before its point, and the
// last passes the workload's own checks. The server's crash recovery after
// the run is timed, and its lines do not count as anomalies.
func TestPostgresBackupRestore(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	root := t.TempDir()
	// Channels enough that some outlive even a slow backup (each call
	// clears one), and a target well after its end.
	code, out, errs := runCLI(t, nil, "run", "nms", "--db", "postgres:managed", "--lines", "6000", "--clients", "2",
		"--backup", "at=1s,to=4s", "--duration", "5s", "--warmup", "0", "--results", root, "--ceiling", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	r := onlyResult(t, root)
	if !r.Backup.Taken || len(r.Backup.Restores) != 3 {
		t.Fatalf("backup %+v", r.Backup)
	}
	for _, target := range []string{result.RestoreToBackup, result.RestoreToTime, result.RestoreToEnd} {
		x := checkRestore(t, r, target)
		if !x.OK || x.Required == 0 || x.Lost != 0 || x.Phantom != 0 || !strings.HasPrefix(x.Integrity, "amcheck: ok") {
			t.Errorf("%s: %+v", target, x)
		}
		if target == result.RestoreToEnd && (len(x.Checks) != 5 || x.Unknown != 0) {
			t.Errorf("rolled through the whole archive: %+v", x)
		}
	}
	if tt := checkRestore(t, r, result.RestoreToTime); tt.TargetT < r.Backup.EndT {
		t.Errorf("the time target %.2f s is before the backup's end %.2f s", tt.TargetT, r.Backup.EndT)
	}
	if r.Server.RecoverySeconds <= 0 || !strings.Contains(r.Server.RecoveryNote, "WAL") {
		t.Errorf("crash recovery: %.3f s, %q", r.Server.RecoverySeconds, r.Server.RecoveryNote)
	}
	if r.ServerLog == nil {
		t.Fatal("no server_log")
	}
	for _, a := range r.ServerLog.Anomalies {
		if a.Kind != "error" { // nms's clients deadlock now and then: ERROR lines
			t.Errorf("the deliberate crash counted as an anomaly: %+v", a)
		}
	}
}

// TestServerLogEvents: an error the managed server logs while the run goes
// on (a failing statement dbgauge did not send) is an event on the time
// line and counted in the result's server_log.
func TestServerLogEvents(t *testing.T) {
	needPostgres(t)
	root := t.TempDir()
	done := make(chan error, 1)
	go func() {
		var srv *result.Server
		whenResult(root, func(r *result.Result) bool {
			if r.Server != nil && len(r.Series) >= 1 {
				srv = r.Server
			}
			return srv != nil
		})
		if srv == nil {
			done <- os.ErrNotExist
			return
		}
		done <- failStatement(srv)
	}()
	code, out, errs := runCLI(t, nil, "run", "nms", "--db", "postgres:managed", "--lines", "300", "--duration", "4s", "--warmup", "0",
		"--results", root, "--ceiling", "off", "--crash-recovery=false")
	if err := <-done; err != nil {
		t.Fatalf("injecting an error: %v", err)
	}
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	r := onlyResult(t, root)
	found := false
	for _, e := range r.Events {
		found = found || e.Kind == result.EventServerLog && strings.Contains(e.Detail, "division by zero") && e.T > 0
	}
	if !found {
		t.Errorf("no server log event for the injected error: %+v", r.Events)
	}
	if r.ServerLog == nil || len(r.ServerLog.Anomalies) == 0 || r.ServerLog.Anomalies[0].Kind != "error" {
		t.Errorf("server_log: %+v", r.ServerLog)
	}
	if r.Server.RecoverySeconds != 0 || r.Server.RecoveryNote != "--crash-recovery=false" {
		t.Errorf("--crash-recovery=false: %+v", r.Server)
	}
	if !strings.Contains(out, "server log") || !strings.Contains(out, "division by zero") {
		t.Errorf("the summary does not show the error:\n%s", out)
	}
}

// failStatement connects to a managed server dbgauge started (trusting local
// connections first: its password is dbgauge's secret) and runs a statement
// the server logs as an ERROR.
func failStatement(srv *result.Server) error {
	hba := filepath.Join(srv.DataDir, "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		return err
	}
	if err := os.WriteFile(hba, append([]byte("local all all trust\n"), old...), 0o600); err != nil {
		return err
	}
	if err := syscall.Kill(srv.PID, syscall.SIGHUP); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var c *pgconn.PgConn
	for i := 0; ; i++ { // the reload takes a moment
		c, err = pgconn.Connect(ctx, "host="+srv.Socket+" port="+strconv.Itoa(srv.Port)+" user=dbgauge dbname=postgres")
		if err == nil || i == 50 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "SELECT 1/0").ReadAll()
	switch {
	case err == nil:
		return errors.New("SELECT 1/0 did not fail")
	case !strings.Contains(err.Error(), "division by zero"):
		return fmt.Errorf("SELECT 1/0: %w, want division by zero", err)
	}
	return nil
}
