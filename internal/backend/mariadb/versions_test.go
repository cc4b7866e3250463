package mariadb

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

// TestMariaDBVersionForms: @N.M of the installed version resolves to the
// system's server, a version not installed is bad input naming where
// dbgauge looked and how to give a folder, and @DIR (a folder of links to
// the system's binaries, as an unpacked tarball's bin would hold them)
// starts a server from that folder, which reports the same version.
func TestMariaDBVersionForms(t *testing.T) {
	needServer(t)
	sys, _, _ := FindServer()
	rel := release(serverVersion(sys))
	in, err := find("mariadb:managed@" + rel)
	if err != nil || in.Server != sys {
		t.Fatalf("@%s: %+v, %v; want %s", rel, in, err, sys)
	}
	var bad *knob.Error
	_, err = find("mariadb:managed@9.9")
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "MariaDB 9.9 is not installed: no mariadbd of that version in /usr/sbin, /usr/local/mariadb-*/bin") ||
		!strings.Contains(err.Error(), "found "+rel+" in /usr/sbin") || !strings.Contains(bad.Hint, "mariadb:managed@DIR") {
		t.Fatalf("@9.9: %v (%+v)", err, bad)
	}
	base := t.TempDir()
	farm := filepath.Join(base, "bin")
	for dst, src := range map[string]string{"mariadbd": sys, "mariadb-install-db": "/usr/bin/mariadb-install-db"} {
		if err := os.MkdirAll(farm, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(src, filepath.Join(farm, dst)); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Dir(base), 0o755) // the mysql account runs what the links name
	_ = os.Chmod(base, 0o755)
	in, err = find("mariadb:managed@" + farm)
	if err != nil || in.Server != filepath.Join(farm, "mariadbd") {
		t.Fatalf("@%s: %+v, %v", farm, in, err)
	}
	m, err := Start(context.Background(), ServerConfig{Config: server.Config{Dir: t.TempDir()}, Binaries: in})
	if err != nil {
		t.Fatal(err)
	}
	defer m.StopClean()
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(m.Pid()) + "/cmdline")
	if argv0, _, _ := strings.Cut(string(cmd), "\x00"); argv0 != in.Server {
		t.Errorf("the server runs %q, not %s", argv0, in.Server)
	}
	db, err := sql.Open("mysql", m.DSN(false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow("SELECT VERSION()").Scan(&v); err != nil || release(v) != rel {
		t.Errorf("the server from %s reports %q, %v; want %s", farm, v, err, rel)
	}
}
