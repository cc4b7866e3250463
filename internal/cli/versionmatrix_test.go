package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/result"
)

// TestPostgresVersionMatrix: --db postgres:managed@15,postgres:managed@18 is
// a matrix whose cells run the versions asked, read back from each server;
// the analysis finds the version axis, the versions' ratios and the built-in
// defaults that differ between them, and the summary prints them.
func TestPostgresVersionMatrix(t *testing.T) {
	needVersions(t, 15, 18)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "tpcb", "--db", "postgres:managed@15,postgres:managed@18",
		"--duration", "2s", "--warmup", "0s", "--ceiling", "off", "--crash-recovery=false", "--results", root)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	dir := matrixDir(t, root)
	idx, err := matrix.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range idx.Cells {
		r, err := result.Load(filepath.Join(dir, c.Dir))
		if err != nil {
			t.Fatal(err)
		}
		major := strings.TrimPrefix(c.Values["db"], "postgres:managed@")
		if !strings.HasPrefix(r.Engine.Version, major+".") || len(r.Engine.Defaults) < 100 || r.Summary.OK == 0 {
			t.Errorf("cell %s (%s) ran version %q with %d defaults read back and %d ok", c.ID, c.Values["db"], r.Engine.Version, len(r.Engine.Defaults), r.Summary.OK)
		}
	}
	a, err := analysis.LoadMatrix(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := a.Versions
	if v == nil || v.Knob != "db" || len(v.Exact) != 2 || !strings.HasPrefix(v.Exact[0], "15.") || !strings.HasPrefix(v.Exact[1], "18.") {
		t.Fatalf("versions: %+v", v)
	}
	if len(v.Rows) != 1 || len(v.Rows[0].Metrics) != 3 || v.Rows[0].Metrics[0].Diffs[0].Method != "identity" || v.Rows[0].Metrics[0].Diffs[1].Method == "identity" {
		t.Fatalf("rows: %+v", v.Rows)
	}
	byName := map[string][]string{}
	for _, d := range v.Defaults {
		if d.Values[0] == d.Values[1] {
			t.Errorf("%s is listed as differing with %q in both", d.Name, d.Values[0])
		}
		byName[d.Name] = d.Values
	}
	// io_method arrived in 18; vacuum_defer_cleanup_age left in 16.
	if got := byName["io_method"]; len(got) != 2 || got[0] != "" || got[1] == "" {
		t.Errorf("io_method: %q", got)
	}
	if got := byName["vacuum_defer_cleanup_age"]; len(got) != 2 || got[0] == "" || got[1] != "" {
		t.Errorf("vacuum_defer_cleanup_age: %q", got)
	}
	if _, ok := byName["shared_buffers"]; ok {
		t.Error("shared_buffers, the same default in both, is listed as differing")
	}
	for _, want := range []string{"versions: against db=postgres:managed@15", "built-in defaults that differ", "io_method"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestOtherEnginesVersionForms: a version of MariaDB or Firebird not installed
// is one line, exit 2, nothing run; --db mariadb:managed and
// mariadb:managed@ its installed version are two cells that ran the same
// version, read back, and so are no version axis.
func TestOtherEnginesVersionForms(t *testing.T) {
	for db, want := range map[string]string{
		"mariadb:managed@9.9": "dbgauge: MariaDB 9.9 is not installed: no mariadbd of that version in /usr/sbin",
		"firebird:managed@9":  "dbgauge: Firebird 9 is not installed: no server of that version in /usr/sbin",
	} {
		root := t.TempDir()
		code, _, errs := runCLI(t, nil, "run", "insert", "--db", db, "--duration", "1s", "--results", root)
		if code != ExitUsage || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, want) || !strings.Contains(errs, "@DIR") {
			t.Errorf("%s: exit %d, %q", db, code, errs)
		}
	}
	spec, _ := catalog.Backend("mariadb:managed")
	installed := spec.Installed()
	if len(installed) == 0 {
		t.Fatal("no MariaDB installed")
	}
	at := installed[0].Form // mariadb:managed@10.11
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "--db", "mariadb:managed,"+at,
		"--duration", "1s", "--warmup", "0s", "--ceiling", "off", "--crash-recovery=false", "--results", root)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	dir := matrixDir(t, root)
	idx, err := matrix.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, c := range idx.Cells {
		r, err := result.Load(filepath.Join(dir, c.Dir))
		if err != nil {
			t.Fatal(err)
		}
		versions = append(versions, r.Engine.Version)
	}
	if len(versions) != 2 || versions[0] == "" || versions[0] != versions[1] {
		t.Fatalf("the cells ran %q", versions)
	}
	a, err := analysis.LoadMatrix(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Versions != nil {
		t.Errorf("one version in both cells taken for a version axis: %+v", a.Versions)
	}
}
