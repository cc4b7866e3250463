package firebird

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// Installation is one Firebird server found here: the server, its isql and
// gfix, the root folder (firebird.msg, intl, plugins) and the version its
// isql reports ("LI-V3.0.11.33637 Firebird 3.0").
type Installation struct {
	Bin, Isql, Gfix, Root, Version string
}

// layouts are where Firebird's own installers put a version (each a root
// folder with bin/ inside: /opt/firebird is the tarball's default), after
// the system's own server (FindServer).
var layouts = []string{"/opt/firebird*", "/usr/local/firebird*", "/usr/lib/firebird*", "/usr/lib64/firebird*"}

// Versions lists the Firebird servers found: the system's, then each
// folder of layouts that holds one (bin/firebird, bin/isql, bin/gfix).
func Versions() []Installation {
	var out []Installation
	if bin, isql, gfix, root, err := FindServer(); err == nil {
		out = append(out, Installation{Bin: bin, Isql: isql, Gfix: gfix, Root: root, Version: isqlVersion(isql)})
	}
	for _, pattern := range layouts {
		m, _ := filepath.Glob(pattern)
		for _, d := range m {
			in, ok := inFolder(filepath.Join(d, "bin"))
			if ok && !containsBin(out, in.Bin) {
				out = append(out, in)
			}
		}
	}
	return out
}

// containsBin says whether one of found runs the server bin (FindServer
// may have found /opt/firebird's already).
func containsBin(found []Installation, bin string) bool {
	for _, in := range found {
		if in.Bin == bin {
			return true
		}
	}
	return false
}

// inFolder is the installation whose firebird, isql (or isql-fb) and gfix
// are in dir, its root dir itself or dir/.. (a tarball's bin), whichever
// holds firebird.msg.
func inFolder(dir string) (Installation, bool) {
	in := Installation{Bin: server.FirstFile(dir, "firebird"), Isql: server.FirstFile(dir, "isql", "isql-fb"), Gfix: server.FirstFile(dir, "gfix")}
	for _, r := range []string{dir, filepath.Dir(dir)} {
		if server.FirstFile(r, "firebird.msg") != "" {
			in.Root = r
			break
		}
	}
	if in.Bin == "" || in.Isql == "" || in.Gfix == "" || in.Root == "" {
		return Installation{}, false
	}
	in.Version = isqlVersion(in.Isql)
	return in, true
}

// isqlVersion is the version isql -z reports, or says that it said none.
func isqlVersion(isql string) string {
	cmd := exec.Command(isql, "-z")
	cmd.Stdin = strings.NewReader("")
	b, err := cmd.Output()
	if err != nil {
		return "unknown (isql -z failed)"
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimPrefix(strings.TrimSpace(line), "ISQL Version: ")
}

var majorOf = regexp.MustCompile(`Firebird (\d+)\.(\d+)`)

// release is the N.M of a version isql reported ("3.0"), or "".
func release(version string) string {
	m := majorOf.FindStringSubmatch(version)
	if m == nil {
		return ""
	}
	return m[1] + "." + m[2]
}

var askedVersion = regexp.MustCompile(`^\d+(\.\d+)?$`)

// find is the installation managed form db asks for: the system's without
// a version, @DIR a folder of binaries, @N (or @N.M) the first of Versions
// of that version. What is not there is a *knob.Error.
func find(db string) (Installation, error) {
	_, at := backend.VersionOf(db)
	if at == "" {
		bin, isql, gfix, root, err := FindServer()
		return Installation{Bin: bin, Isql: isql, Gfix: gfix, Root: root}, err
	}
	if strings.HasPrefix(at, "/") {
		in, ok := inFolder(at)
		if !ok {
			return in, knob.Bad("give the folder holding firebird, isql and gfix, with firebird.msg there or in its parent (e.g. /opt/firebird/bin)",
				"--db %s: %s holds no Firebird server, isql, gfix and firebird.msg", db, at)
		}
		return in, nil
	}
	if !askedVersion.MatchString(at) {
		return Installation{}, knob.Bad("give a version, e.g. firebird:managed@3, or a folder: firebird:managed@/opt/firebird/bin",
			"--db %s: %q is no Firebird version", db, at)
	}
	var seen []string
	for _, in := range Versions() {
		r := release(in.Version)
		if r == at || strings.HasPrefix(r, at+".") {
			return in, nil
		}
		seen = append(seen, r+" in "+filepath.Dir(in.Bin))
	}
	return Installation{}, backend.NotInstalled("Firebird", at, "server", "firebird, isql and gfix", append([]string{"/usr/sbin"}, layouts...), seen, "firebird:managed@DIR")
}

// installed is Spec.Installed: every Firebird server Versions finds, with
// the version its isql reports.
func installed() []backend.Installed {
	var out []backend.Installed
	for _, in := range Versions() {
		out = append(out, backend.InstalledIn("firebird:managed", in.Version, release(in.Version), filepath.Dir(in.Bin), "Firebird's installer or an unpacked tarball"))
	}
	return out
}

// ownBinaries is Spec.Own: the installation a managed --db asks for, found
// when the run is planned, so that a missing version is refused before
// anything starts; nil for a database of the user's.
func ownBinaries(v *knob.Values) (any, error) {
	db := v.Get("db")
	if form, _ := backend.VersionOf(db); form != managed {
		return nil, nil
	}
	return find(db)
}

// binariesOf is the installation the options ask for: the one the plan
// found, or (opened without a plan: a test, a reopen) found now.
func binariesOf(o backend.Options) (Installation, error) {
	if in, ok := o.Own.(Installation); ok {
		return in, nil
	}
	return find(o.DB)
}
