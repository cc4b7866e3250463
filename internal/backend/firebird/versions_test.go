package firebird

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// TestFirebirdVersionForms: @N of the installed version resolves to the
// system's server, a version not installed is bad input naming where
// dbgauge looked and how to give a folder, and @DIR (links to the system's
// binaries and root laid out as Firebird's tarball installs them: bin/
// beside firebird.msg, intl, plugins) starts a server from that folder.
func TestFirebirdVersionForms(t *testing.T) {
	needServer(t)
	sys, isql, gfix, root, _ := FindServer()
	rel := release(isqlVersion(isql))
	major, _, _ := strings.Cut(rel, ".")
	in, err := find("firebird:managed@" + major)
	if err != nil || in.Bin != sys || in.Root != root {
		t.Fatalf("@%s: %+v, %v; want %s", major, in, err, sys)
	}
	var bad *knob.Error
	_, err = find("firebird:managed@9")
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "Firebird 9 is not installed: no server of that version in /usr/sbin, /opt/firebird*") ||
		!strings.Contains(err.Error(), "found "+rel+" in /usr/sbin") || !strings.Contains(bad.Hint, "firebird:managed@DIR") {
		t.Fatalf("@9: %v (%+v)", err, bad)
	}
	base := t.TempDir()
	links := map[string]string{"bin/firebird": sys, "bin/isql": isql, "bin/gfix": gfix}
	for _, f := range []string{"firebird.msg", "intl", "plugins", "lib", "UDF"} {
		links[f] = filepath.Join(root, f)
	}
	if err := os.MkdirAll(filepath.Join(base, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for dst, src := range links {
		if err := os.Symlink(src, filepath.Join(base, dst)); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Dir(base), 0o755) // the firebird account runs what the links name
	_ = os.Chmod(base, 0o755)
	in, err = find("firebird:managed@" + filepath.Join(base, "bin"))
	if err != nil || in.Bin != filepath.Join(base, "bin", "firebird") || in.Root != base || release(in.Version) != rel {
		t.Fatalf("@DIR: %+v, %v", in, err)
	}
	f, err := Start(context.Background(), ServerConfig{Config: server.Config{Dir: t.TempDir()}, ForcedWrites: true, Binaries: in})
	if err != nil {
		t.Fatal(err)
	}
	defer f.StopClean()
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(f.Pid()) + "/cmdline")
	if argv0, _, _ := strings.Cut(string(cmd), "\x00"); argv0 != in.Bin {
		t.Errorf("the server runs %q, not %s", argv0, in.Bin)
	}
	db, err := sql.Open("firebirdsql", f.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow("SELECT rdb$get_context('SYSTEM', 'ENGINE_VERSION') FROM rdb$database").Scan(&v); err != nil || !strings.HasPrefix(v, rel) {
		t.Errorf("the server from %s reports %q, %v; want %s", base, v, err, rel)
	}
	if l, _ := os.Readlink(filepath.Join(f.Root, "plugins")); l != filepath.Join(base, "plugins") {
		t.Errorf("the instance's plugins are %q, not the folder's", l)
	}
}
