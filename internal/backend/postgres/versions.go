package postgres

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// InstallScript installs the versions this machine lacks (docs/versions.md).
const InstallScript = "scripts/install-pg-versions.sh"

// Source is the file a folder installed by InstallScript holds, saying where
// its binaries came from.
const Source = "dbgauge-source.txt"

// Installed is one PostgreSQL found on the machine: its major version, its
// binaries' folder and, for one InstallScript installed, where it came from.
type Installed struct {
	Major  int
	Bin    string
	Source string // the first line of the folder's Source file; "" for the system's own
}

// Versions lists the PostgreSQL servers found on the usual paths
// (pgSearch), one per folder, in the order of their major versions.
func Versions() []Installed {
	var out []Installed
	for _, pattern := range pgSearch {
		m, _ := filepath.Glob(pattern)
		for _, d := range m {
			if !hasTools(d, "initdb", "postgres") {
				continue
			}
			in := Installed{Major: versionOf(d), Bin: d}
			if b, err := os.ReadFile(filepath.Join(d, "..", Source)); err == nil {
				in.Source, _, _ = strings.Cut(strings.TrimSpace(string(b)), "\n")
			}
			out = append(out, in)
		}
	}
	return out
}

// hasTools reports whether dir holds every one of the programs.
func hasTools(dir string, programs ...string) bool {
	for _, f := range programs {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// binOf is the folder of binaries that managed form db asks for: @MAJOR
// (the usual paths, /usr/lib/postgresql/MAJOR/bin first), @DIR, or
// --pg-version's major; without a version, --pg-bin or the default
// (FindServer). A --pg-bin given with a version must hold that version.
func binOf(db, pgBin, pgVersion string) (string, error) {
	_, at := backend.VersionOf(db)
	if at != "" && pgVersion != "" && at != pgVersion {
		return "", knob.Bad("give the version once", "--db %s and --pg-version %s ask for two versions", db, pgVersion)
	}
	if at == "" {
		at = pgVersion
	}
	if at == "" {
		return FindServer(pgBin)
	}
	if strings.HasPrefix(at, "/") {
		if !hasTools(at, "initdb", "postgres") {
			return "", knob.Bad("give the folder holding initdb and postgres", "--db %s: %s holds no initdb and postgres", db, at)
		}
		return at, nil
	}
	major, err := strconv.Atoi(at)
	if err != nil || major < 9 {
		return "", knob.Bad("give a major version, e.g. postgres:managed@15, or a folder: postgres:managed@/usr/lib/postgresql/15/bin",
			"--db %s: %q is no PostgreSQL major version", db, at)
	}
	return findMajor(major, pgBin)
}

// FindVersion returns the folder of PostgreSQL major's binaries on the
// usual paths, or a *knob.Error naming InstallScript.
func FindVersion(major int) (string, error) { return findMajor(major, "") }

// findMajor returns the folder of PostgreSQL major's binaries: --pg-bin
// when it holds that version, else the first of the usual paths.
func findMajor(major int, pgBin string) (string, error) {
	if pgBin != "" {
		bin, err := FindServer(pgBin)
		if err != nil {
			return "", err
		}
		if got := binaryMajor(bin); got != major {
			return "", knob.Bad("give --pg-bin the folder of PostgreSQL "+strconv.Itoa(major)+", or drop it",
				"--pg-bin %s holds PostgreSQL %d, and %d was asked for", pgBin, got, major)
		}
		return bin, nil
	}
	for _, in := range Versions() {
		if in.Major == major {
			return in.Bin, nil
		}
	}
	return "", knob.Bad("install it ("+InstallScript+" installs 13, 14, 16, 17 and 18), or give its folder: --db postgres:managed@DIR",
		"PostgreSQL %d is not installed: no initdb and postgres in /usr/lib/postgresql/%d/bin or the other usual paths", major, major)
}

var versionLine = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// binaryMajor is the major version bin's postgres reports (postgres
// --version, which it answers even as root); 0 when it says none.
func binaryMajor(bin string) int {
	out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output()
	if err != nil {
		return 0
	}
	m := versionLine.FindSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// refuseMissing refuses, before anything starts, a feature the binaries in
// bin cannot serve: --backup and --topology need pg_basebackup, which
// zonky's builds (initdb, pg_ctl and postgres only) lack.
func refuseMissing(db, bin string, backup bool, topology string) error {
	if hasTools(bin, "pg_basebackup") {
		return nil
	}
	what := "--backup"
	if !backup {
		if topology == "" || topology == "none" {
			return nil
		}
		what = "--topology " + topology
	}
	return knob.Bad("give a version whose binaries hold pg_basebackup (docs/versions.md), or drop "+what,
		"%s on %s: it needs pg_basebackup, which %s lacks", what, db, bin)
}
