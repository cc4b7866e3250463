package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// The ways Upgrade moves a cluster to a newer PostgreSQL.
const (
	UpgradeLink = "link" // pg_upgrade --link: the new cluster hard-links the old one's files
	UpgradeCopy = "copy" // pg_upgrade --copy: the new cluster copies them
	UpgradeDump = "dump" // pg_dump of the old server, pg_restore into a new one
)

// UpgradeStep is one timed step of an upgrade (backend.UpgradeStep).
type UpgradeStep = backend.UpgradeStep

// upgradeMethods are the methods, in the order dbgauge upgrade runs them.
var upgradeMethods = []string{UpgradeLink, UpgradeCopy, UpgradeDump}

// upgradeTools are the programs each method needs from the new version's
// binaries, and from the old one's (pg_upgrade starts the old server with
// its own pg_ctl and reads its control file with its pg_controldata).
var upgradeTools = map[string][2][]string{
	UpgradeLink: {{"initdb", "postgres", "pg_upgrade", "pg_ctl", "pg_controldata", "pg_dump", "pg_dumpall", "pg_restore", "psql", "vacuumdb", "pg_resetwal"}, {"postgres", "pg_ctl", "pg_controldata"}},
	UpgradeDump: {{"initdb", "postgres", "pg_dump", "pg_restore"}, nil},
}

// CheckUpgrade refuses, before anything starts, an upgrade from the
// binaries in from to those in to by method that they cannot make.
func CheckUpgrade(from, to, method string) error {
	tools, ok := upgradeTools[method]
	if method == UpgradeCopy {
		tools, ok = upgradeTools[UpgradeLink], true
	}
	if !ok {
		return knob.Bad("give link, copy or dump", "--method %q is no upgrade method", method)
	}
	for i, dir := range []string{to, from} {
		for _, t := range tools[i] {
			if !hasTools(dir, t) {
				return knob.Bad("give versions whose binaries hold it (docs/versions.md)", "--method %s needs %s in %s, which lacks it", method, t, dir)
			}
		}
	}
	if binaryMajor(to) <= binaryMajor(from) {
		return knob.Bad("give --to a newer version than --from", "%s is not newer than %s", to, from)
	}
	return nil
}

// Upgrade makes a server of the binaries in bin from p's cluster by method
// (CheckUpgrade first) and starts it with settings, timing each step; p is
// stopped and its data removed. The new server's folders are beside p's
// (Base/upgraded), so p's StopClean, called after the new server's, removes
// what is left of both.
func (p *Server) Upgrade(ctx context.Context, bin, method string, settings map[string]string) (*Server, []UpgradeStep, error) {
	var steps []UpgradeStep
	timed := func(name string, window bool, f func() error) error {
		t := time.Now()
		err := f()
		steps = append(steps, UpgradeStep{Name: name, Seconds: time.Since(t).Seconds(), Window: window})
		return err
	}
	sib, err := p.Beside("upgraded")
	if err != nil {
		return nil, nil, err
	}
	n := &Server{Instance: sib, Bin: bin, User: p.User, Database: p.Database}
	n.recipe(filepath.Join(p.Dir, "postgres-upgraded.log"), server.Settings(settings), true)
	fail := func(err error) (*Server, []UpgradeStep, error) {
		if n.Process != nil {
			_, _ = n.Stop(n.Recipe.Stop, 30*time.Second)
		}
		return nil, steps, fmt.Errorf("upgrade by %s: %w", method, err)
	}
	// The new cluster is made while the old one still serves: outside the window.
	if err := timed("initdb", false, func() error { return n.initdb(p.checksums(ctx, bin)...) }); err != nil {
		return fail(err)
	}
	if method == UpgradeDump {
		if err := p.dumpInto(ctx, n, timed); err != nil {
			return fail(err)
		}
	} else if err := p.pgUpgrade(ctx, n, method, timed); err != nil {
		return fail(err)
	}
	_ = os.RemoveAll(p.DataDir)
	return n, steps, nil
}

// checksums is the initdb flag that gives a cluster of bin's the data
// checksums p's has: 18's initdb turns them on by default, and pg_upgrade
// refuses two clusters that differ.
func (p *Server) checksums(ctx context.Context, bin string) []string {
	c, err := pgx.Connect(ctx, p.DSN(true))
	if err != nil {
		return nil
	}
	defer c.Close(ctx)
	var on string
	switch {
	case c.QueryRow(ctx, "SHOW data_checksums").Scan(&on) != nil:
		return nil
	case on == "on":
		return []string{"--data-checksums"}
	case binaryMajor(bin) >= 18:
		return []string{"--no-data-checksums"}
	}
	return nil
}

// pgUpgrade stops p and runs the new version's pg_upgrade on its cluster
// into n's, then starts n: the window.
func (p *Server) pgUpgrade(ctx context.Context, n *Server, method string, timed func(string, bool, func() error) error) error {
	if err := timed("stop "+strconv.Itoa(binaryMajor(p.Bin)), true, func() error {
		_, err := p.Stop(p.Recipe.Stop, 60*time.Second)
		return err
	}); err != nil {
		return err
	}
	// pg_upgrade starts each server itself, on a free port and a socket in
	// n's socket folder (short enough for a socket's path); it writes its
	// scripts in its working folder, n's own.
	port, err := server.FreePort()
	if err != nil {
		return err
	}
	err = timed("pg_upgrade --"+method, true, func() error {
		return n.runIn(ctx, n.Base(), filepath.Join(n.Bin, "pg_upgrade"), "--"+method, "-b", p.Bin, "-B", n.Bin,
			"-d", p.DataDir, "-D", n.DataDir, "-U", p.User, "-p", strconv.Itoa(port), "-P", strconv.Itoa(port),
			"--socketdir", n.SocketDir)
	})
	if err != nil {
		return err
	}
	return timed("start "+strconv.Itoa(binaryMajor(n.Bin)), true, func() error { return n.Launch(ctx) })
}

// dumpInto starts n, dumps p's database with n's pg_dump and restores it
// into n's with n's pg_restore (the window: a commit made on p meanwhile
// would be lost), then stops p.
func (p *Server) dumpInto(ctx context.Context, n *Server, timed func(string, bool, func() error) error) error {
	if err := timed("start "+strconv.Itoa(binaryMajor(n.Bin)), false, func() error { return n.Launch(ctx) }); err != nil {
		return err
	}
	file := filepath.Join(n.Base(), "dump")
	err := timed("pg_dump", true, func() error {
		return n.runIn(ctx, n.Base(), filepath.Join(n.Bin, "pg_dump"), "-Fc", "-f", file, "-d", p.socketInfo())
	})
	if err != nil {
		return err
	}
	err = timed("pg_restore", true, func() error {
		return n.runIn(ctx, n.Base(), filepath.Join(n.Bin, "pg_restore"), "--exit-on-error", "-d", n.socketInfo(), file)
	})
	_ = os.Remove(file)
	if err != nil {
		return err
	}
	return timed("stop "+strconv.Itoa(binaryMajor(p.Bin)), false, func() error {
		_, err := p.Stop(p.Recipe.Stop, 60*time.Second)
		return err
	})
}

// socketInfo is a connection string for the server's Unix socket without
// the password, which runIn passes apart, off the command line.
func (p *Server) socketInfo() string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s", p.SocketDir, p.Port, p.User, p.Database)
}

// runIn runs one of PostgreSQL's programs as the account in folder dir,
// the password given through PGPASSWORD; its error ends with the program's
// last lines, the password hidden.
func (p *Server) runIn(ctx context.Context, dir, name string, args ...string) error {
	cmd := p.Account.Command(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "PGPASSWORD="+p.Password)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", filepath.Base(name), err, p.Hide(server.LastLines(string(out), 8)))
	}
	return nil
}
