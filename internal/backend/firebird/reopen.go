package firebird

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// reopen starts Firebird again on the instance and database a killed
// managed server left (dataDir is its data folder, the instance beside it)
// and opens the database with o through the usual path. Closing the DB
// stops the server and removes the instance and the data (the logs stay);
// its Integrity is the online validation. Spec.Reopen.
func reopen(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
	bins, _ := o.Own.(Installation) // the killed run's, as its plan found them
	srv, err := Reopen(ctx, dataDir, logPath, bins)
	if err != nil {
		return nil, err
	}
	o.DB, o.Set = managed, nil
	db, err := openOn(ctx, o, srv)
	if err != nil {
		select {
		case <-srv.Done(): // stopped already, or died
		default:
			_, _ = srv.StopClean()
		}
		return nil, err
	}
	return db, nil
}

// Reopen starts a server again on the instance of one that was killed with
// SIGKILL (and perhaps a power cut after it), as a restart after a crash:
// the instance's folder beside dataDir, its database dataDir/dbgauge.fdb,
// its firebird.conf's own parameters (ServerMode and --set's), the same
// account. Firebird 3 has no log to replay: what the database file holds is
// what opens, and a database written with forced writes off may be broken
// after a power cut (the server then says so and Reopen fails with it).
//
// The killed run's SYSDBA password lived only in its memory: a fresh one is
// set first, as the instance was set up, by isql in embedded mode on the
// security database. The lock files the killed server left stay: Firebird
// finds them stale (no process holds their file locks) and makes them
// anew. The instance's files are written again with a new free port and
// the instance's folder where it is now (after a power cut, the test
// disk's backing folder). The server's output goes to logPath, what it
// wrote to firebird.log meanwhile beside it (NAME-firebird.log). It
// returns once the database accepts connections; Startup is from exec to
// then. The server is the killed one's, bins (the system's when zero).
func Reopen(ctx context.Context, dataDir, logPath string, bins Installation) (*Server, error) {
	bin, isql := bins.Bin, bins.Isql
	if bin == "" {
		var err error
		if bin, isql, _, _, err = FindServer(); err != nil {
			return nil, err
		}
	}
	in, err := server.Reopened(dataDir, false, "firebird")
	if err != nil {
		return nil, err
	}
	in.Password = server.Secret()
	f := &Server{Instance: in, Root: filepath.Join(in.Base(), "instance"),
		Database: filepath.Join(dataDir, "dbgauge.fdb"), reopened: true,
		Log: strings.TrimSuffix(logPath, filepath.Ext(logPath)) + "-firebird.log"}
	if _, err := os.Stat(f.Database); err != nil {
		return nil, fmt.Errorf("the killed server's database: %w", err)
	}
	if f.conf, err = readConf(filepath.Join(f.Root, "firebird.conf")); err != nil {
		return nil, fmt.Errorf("the killed server's instance: %w", err)
	}
	mode, ok := ServerMode(f.conf["ServerMode"])
	if !ok {
		return nil, fmt.Errorf("the killed server's firebird.conf: ServerMode %q", f.conf["ServerMode"])
	}
	f.Mode, f.conf["ServerMode"] = mode, mode
	if err := f.writeFiles(f.conf); err != nil {
		return nil, err
	}
	f.setEnv()
	// Embedded (no server runs on the instance): SYSDBA's new password.
	script := fmt.Sprintf("ALTER USER SYSDBA PASSWORD '%s' USING PLUGIN Srp;\nCOMMIT;\n", f.Password)
	if err := f.run(isql, script, "-q", "-user", "SYSDBA", filepath.Join(f.Root, "security3.fdb")); err != nil {
		return nil, fmt.Errorf("set SYSDBA's password in the killed server's security database: %w", err)
	}
	if err := f.launch(ctx, bin, logPath); err != nil {
		return nil, err
	}
	return f, nil
}
