package mariadb

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Installation is one MariaDB server found here: its server binary, the
// mariadb-install-db that makes its datadirs, and the version the server
// reports (mariadbd --version: "10.11.19-MariaDB-0+deb12u1 for …").
type Installation struct {
	Server, Install, Version string
}

// layouts are where MariaDB's tarballs are usually unpacked (each a folder
// of binaries; the tarball's mariadb-install-db is in ../scripts), after
// the system's own server (FindServer).
var layouts = []string{"/usr/local/mariadb-*/bin", "/opt/mariadb-*/bin", "/usr/local/mysql/bin", "/opt/mariadb/bin"}

// Versions lists the MariaDB servers found: the system's (/usr/sbin), then
// each folder of layouts that holds a server and its mariadb-install-db.
func Versions() []Installation {
	var out []Installation
	if srv, install, err := FindServer(); err == nil {
		out = append(out, Installation{Server: srv, Install: install, Version: serverVersion(srv)})
	}
	for _, pattern := range layouts {
		m, _ := filepath.Glob(pattern)
		for _, d := range m {
			if in, ok := inFolder(d); ok {
				out = append(out, in)
			}
		}
	}
	return out
}

// inFolder is the installation whose server (mariadbd, or mysqld) is in
// dir, with its mariadb-install-db (or mysql_install_db) in dir or in
// dir/../scripts, as an unpacked tarball has it.
func inFolder(dir string) (Installation, bool) {
	in := Installation{Server: server.FirstFile(dir, "mariadbd", "mysqld")}
	in.Install = server.FirstFile(dir, "mariadb-install-db", "mysql_install_db")
	if in.Install == "" {
		in.Install = server.FirstFile(filepath.Join(dir, "..", "scripts"), "mariadb-install-db", "mysql_install_db")
	}
	if in.Server == "" || in.Install == "" {
		return Installation{}, false
	}
	in.Version = serverVersion(in.Server)
	return in, true
}

// serverVersion is what srv --version says after "Ver ", or says that it
// said nothing.
func serverVersion(srv string) string {
	b, err := exec.Command(srv, "--version").Output()
	if err != nil {
		return "unknown (" + filepath.Base(srv) + " --version failed)"
	}
	v := strings.TrimSpace(string(b))
	if _, after, ok := strings.Cut(v, " Ver "); ok {
		v = after
	}
	return v
}

var releaseOf = regexp.MustCompile(`^(\d+\.\d+)(\.\d+)?`)

// release is a version's N.M ("10.11"), or "" when it has none.
func release(version string) string {
	m := releaseOf.FindStringSubmatch(version)
	if m == nil {
		return ""
	}
	return m[1]
}

// find is the installation managed form db asks for: the system's without
// a version, @DIR a folder of binaries, @N.M (or @N.M.P) the first of
// Versions that reports it. What is not there is a *knob.Error.
func find(db string) (Installation, error) {
	_, at := backend.VersionOf(db)
	if at == "" {
		srv, install, err := FindServer()
		return Installation{Server: srv, Install: install}, err
	}
	if strings.HasPrefix(at, "/") {
		in, ok := inFolder(at)
		if !ok {
			return in, knob.Bad("give the folder holding mariadbd (or mysqld) and mariadb-install-db (there or in ../scripts), e.g. an unpacked tarball's bin",
				"--db %s: %s holds no mariadbd and mariadb-install-db", db, at)
		}
		return in, nil
	}
	if !releaseOf.MatchString(at) || strings.Count(at, ".") > 2 {
		return Installation{}, knob.Bad("give a version, e.g. mariadb:managed@10.11, or a folder: mariadb:managed@/opt/mariadb-10.11/bin",
			"--db %s: %q is no MariaDB version", db, at)
	}
	var seen []string
	for _, in := range Versions() {
		if v := strings.Fields(in.Version); len(v) > 0 && (release(v[0]) == at || strings.HasPrefix(v[0], at+".") || strings.HasPrefix(v[0], at+"-")) {
			return in, nil
		}
		seen = append(seen, release(in.Version)+" in "+filepath.Dir(in.Server))
	}
	return Installation{}, backend.NotInstalled("MariaDB", at, "mariadbd", "mariadbd and mariadb-install-db", append([]string{"/usr/sbin"}, layouts...), seen, "mariadb:managed@DIR")
}

// installed is Spec.Installed: every MariaDB server Versions finds, as it
// reports its version.
func installed() []backend.Installed {
	var out []backend.Installed
	for _, in := range Versions() {
		out = append(out, backend.InstalledIn("mariadb:managed", in.Version, release(in.Version), filepath.Dir(in.Server), "an unpacked tarball or a build"))
	}
	return out
}

// own is what MariaDB's knobs ask (Spec.Knobs, and --db's version), read
// once when the run is planned (Spec.Own).
type own struct {
	bins    *Installation // a managed --db's installation; nil for a server of the user's
	cluster clusterConfig
}

// ownKnobs is Spec.Own: the installation a managed --db asks for, found
// when the run is planned, so that a missing version is refused before
// anything starts, and the cluster's knobs.
func ownKnobs(v *knob.Values) (any, error) {
	c, err := clusterKnobs(v)
	if err != nil {
		return nil, err
	}
	o := own{cluster: c}
	db := v.Get("db")
	if form, _ := backend.VersionOf(db); !isManagedForm(form) {
		return o, nil
	}
	in, err := find(db)
	if err != nil {
		return nil, err
	}
	o.bins = &in
	return o, nil
}

// isManagedForm says whether form (a --db value without its version) asks
// for a managed server.
func isManagedForm(form string) bool { return slices.Contains(managed, form) }

// binariesOf is the installation the options ask for: the one the plan
// found, or (opened without a plan: a test, dbgauge isolation, a reopen)
// found now.
func binariesOf(o backend.Options) (Installation, error) {
	if x, ok := o.Own.(own); ok && x.bins != nil {
		return *x.bins, nil
	}
	return find(o.DB)
}
