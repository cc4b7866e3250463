package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(os.PathSeparator))
}

// reachable returns a new folder that a managed server's account may enter
// (t.TempDir's folders are private to root).
func reachable(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkDataDir: the engine's files were in a folder of the run's own inside
// dir, whose device and flush ceiling the result records; it is gone after.
func checkDataDir(t *testing.T, res *result.Result, dir string) {
	t.Helper()
	if !within(res.Engine.Path, dir) {
		t.Errorf("the engine's data is at %s, not in --data-dir %s", res.Engine.Path, dir)
	}
	if d := res.Environment.DataDir; !within(d.Path, dir) || d.FS == "" {
		t.Errorf("the device recorded is of %s (fs %q), not of --data-dir %s", d.Path, d.FS, dir)
	}
	du := res.Durability
	switch {
	case du == nil || !within(du.Folder, dir):
		t.Errorf("no flush ceiling of --data-dir %s recorded: %+v", dir, du)
	case du.Ceiling <= 0 && res.Environment.DataDir.FS != "tmpfs":
		t.Errorf("flush ceiling %v of %s", du.Ceiling, du.Folder)
	}
	left, _ := os.ReadDir(dir)
	if len(left) > 0 {
		t.Errorf("--data-dir %s still holds %s after the run", dir, left[0].Name())
	}
}

// TestDataDirSQLite: --data-dir puts SQLite's file there, and the result
// records that folder's device and flush ceiling; a matrix cell drops the
// page cache (as root) and says so.
func TestDataDirSQLite(t *testing.T) {
	dir := t.TempDir()
	w := spec(t, "insert")
	v := session.NewValues(w)
	for k, s := range map[string]string{"results": t.TempDir(), "units": "50", "data-dir": dir, "cache": "4MB", "page-size": "8192"} {
		v.Set(k, s)
	}
	plan, err := session.NewPlan(session.Request{Workload: w, Values: v, DropCache: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Execute(context.Background(), nil, workloadtest.Quiet{})
	if err != nil {
		t.Fatal(err)
	}
	checkDataDir(t, res, dir)
	if res.Engine.PageSize != 8192 || res.Engine.CacheBytes != 4<<20 {
		t.Errorf("read back page %d, cache %d bytes; want 8192, 4 MiB", res.Engine.PageSize, res.Engine.CacheBytes)
	}
	want := "dropped"
	if os.Geteuid() != 0 {
		want = "not dropped: dbgauge does not run as root"
	}
	if res.Environment.PageCache != want {
		t.Errorf("page cache %q, want %q", res.Environment.PageCache, want)
	}
}

// TestDataDirPostgres: a managed PostgreSQL's cluster goes in --data-dir,
// its shared_buffers is --cache; a folder the server's account cannot
// reach is refused, not replaced.
func TestDataDirPostgres(t *testing.T) {
	needPostgres(t)
	dir := reachable(t)
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{
		"db": "postgres:managed", "data-dir": dir, "cache": "32MB", "units": "50", "crash-recovery": "false",
	})
	checkDataDir(t, res, dir)
	if res.Server == nil || !within(res.Server.DataDir, dir) {
		t.Errorf("the cluster was not in --data-dir %s: %+v", dir, res.Server)
	}
	if res.Engine.Settings["shared_buffers"] != "32MB" || res.Engine.CacheBytes != 32<<20 || res.Engine.PageSize != 8192 {
		t.Errorf("read back shared_buffers=%s (%d bytes), block_size %d", res.Engine.Settings["shared_buffers"], res.Engine.CacheBytes, res.Engine.PageSize)
	}
	if os.Geteuid() == 0 {
		private := filepath.Join(t.TempDir(), "private", "data")
		if err := os.MkdirAll(private, 0o700); err != nil { // root's: the server's account cannot enter
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Dir(private), 0o700); err != nil {
			t.Fatal(err)
		}
		refused(t, map[string]string{"db": "postgres:managed", "data-dir": private})
	}
}

// refused runs the knobs and fails unless they are bad input: one line,
// exit 2, and no result folder left behind.
func refused(t *testing.T, args map[string]string) {
	t.Helper()
	w := spec(t, "insert")
	v := session.NewValues(w)
	results := t.TempDir()
	v.Set("results", results)
	v.Set("units", "10")
	v.Set("ceiling", "off")
	for k, s := range args {
		v.Set(k, s)
	}
	plan, err := session.NewPlan(session.Request{Workload: w, Values: v})
	if err == nil {
		_, err = plan.Execute(context.Background(), nil, workloadtest.Quiet{})
	}
	var bad *knob.Error
	if !errors.As(err, &bad) || bad.Hint == "" || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%v: got %v, want one line of bad input with a hint", args, err)
	}
	if left, _ := os.ReadDir(results); len(left) > 0 {
		t.Errorf("a refused run left %s behind", left[0].Name())
	}
	t.Log(err)
}

// TestStorageRefused: every refusal of --data-dir, --cache and --page-size.
func TestStorageRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := t.TempDir()
	if err := os.Chmod(readOnly, 0o500); err != nil {
		t.Fatal(err)
	}
	cases := map[string]map[string]string{
		"data-dir=missing":          {"data-dir": "/nonexistent/dbgauge"},
		"data-dir=file":             {"data-dir": file},
		"data-dir=empty":            {"data-dir": ""},
		"data-dir/db=postgres-dsn":  {"db": "postgres://u:p@127.0.0.1:1/db", "data-dir": t.TempDir()},
		"data-dir/db=sqlite:PATH":   {"db": "sqlite:" + filepath.Join(t.TempDir(), "x.db"), "data-dir": t.TempDir()},
		"cache=lots":                {"cache": "lots"},
		"cache=1KB":                 {"cache": "1KB"},
		"cache/db=bbolt":            {"db": "bbolt", "cache": "64MB"},
		"cache/db=gdbm":             {"db": "gdbm", "cache": "64MB"},
		"cache/db=postgres-dsn":     {"db": "postgres://u:p@127.0.0.1:1/db", "cache": "64MB"},
		"cache/db=firebird-dsn":     {"db": "firebird://u:p@127.0.0.1:1/x.fdb", "cache": "64MB"},
		"page-size=3000":            {"page-size": "3000"},
		"page-size/db=postgres":     {"db": "postgres:managed", "page-size": "8192"},
		"page-size/db=pebble":       {"db": "pebble", "page-size": "4096"},
		"page-size=2048/firebird":   {"db": "firebird:managed", "page-size": "2048"},
		"page-size/db=mariadb-dsn":  {"db": "mysql://u:p@tcp(127.0.0.1:1)/db", "page-size": "8192"},
		"page-size/db=firebird-dsn": {"db": "firebird://u:p@127.0.0.1:1/x.fdb", "page-size": "8192"},
		"page-size/set=page_size":   {"page-size": "8192", "set": "page_size=4096"},
		"set=page_size=3000":        {"set": "page_size=3000"},
		"page-size/bbolt-set":       {"db": "bbolt", "page-size": "8192", "set": "PageSize=4096"},
		"cache/pebble-set":          {"db": "pebble", "cache": "64MB", "set": "CacheSize=1MB"},
	}
	if os.Geteuid() != 0 { // root may write anywhere
		cases["data-dir=read-only"] = map[string]string{"data-dir": readOnly}
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) { refused(t, args) })
	}
}
