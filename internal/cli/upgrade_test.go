package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// TestUpgradeCommand: insert on PostgreSQL 15, upgraded to 18 by link and
// by copy, each on a fresh server: every acknowledged commit is found on
// 18 (0 lost, as many present as required), the workload's checks hold,
// the steps are timed and the window is the sum of its marked steps, both
// runs completed on the versions asked and are compared; exit 0, one line
// a method.
func TestUpgradeCommand(t *testing.T) {
	inParallel(t)
	needVersions(t, 15, 18)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, nil, "upgrade", "insert", "--from", "postgres:managed@15", "--to", "postgres:managed@18",
		"--method", "link,copy", "--duration", "2s", "-c", "2", "--ceiling", "off", "--results", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, m := range []string{"link", "copy"} {
		if !strings.Contains(out, "\n  "+m+" ") || !strings.Contains(out, ", 0 lost, ") {
			t.Errorf("no line for %s with 0 lost:\n%s", m, out)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(dir, "*-upgrade-insert"))
	if len(dirs) != 1 {
		t.Fatalf("upgrade folders %v", dirs)
	}
	b, err := os.ReadFile(filepath.Join(dirs[0], result.UpgradeFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec result.Upgrade
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Status != result.Completed || rec.Verification != "ledger" || len(rec.Methods) != 2 {
		t.Fatalf("record: status %s, verification %q, %d methods", rec.Status, rec.Verification, len(rec.Methods))
	}
	for _, m := range rec.Methods {
		checkUpgraded(t, dirs[0], m)
	}
}

// checkUpgraded holds one method's record to what it must show.
func checkUpgraded(t *testing.T, dir string, m result.UpgradeMethod) {
	t.Helper()
	l := m.Ledger
	if !m.OK || m.Error != "" || m.Failed != "" || l == nil || l.Lost != 0 || l.Phantom != 0 || l.Required == 0 || l.Present < l.Required {
		t.Fatalf("%s: ok %v, error %q, failed %q, ledger %+v", m.Method, m.OK, m.Error, m.Failed, l)
	}
	if !strings.HasPrefix(m.FromVersion, "15.") || !strings.HasPrefix(m.ToVersion, "18.") {
		t.Errorf("%s: from %q to %q", m.Method, m.FromVersion, m.ToVersion)
	}
	var window, all float64
	marked := 0
	for _, s := range m.Steps {
		all += s.Seconds
		if s.Window {
			window += s.Seconds
			marked++
		}
	}
	if marked < 2 || m.WindowSeconds <= 0 || m.WindowSeconds != window || m.StepsSeconds != all || m.WindowSeconds >= m.StepsSeconds {
		t.Errorf("%s: window %v s of %v s, steps %+v", m.Method, m.WindowSeconds, m.StepsSeconds, m.Steps)
	}
	if !strings.Contains(m.Steps[len(m.Steps)-2].Name, "pg_upgrade --"+m.Method) {
		t.Errorf("%s: steps %+v", m.Method, m.Steps)
	}
	names := map[string]bool{}
	for _, c := range m.Checks {
		names[c.Name] = c.OK
		if !c.OK {
			t.Errorf("%s: check %s failed: %s", m.Method, c.Name, c.Detail)
		}
	}
	if !names["ledger"] || !names["rows_match_acknowledged"] {
		t.Errorf("%s: checks %+v", m.Method, m.Checks)
	}
	if len(m.Compare) == 0 || m.Compare[0].Metric != "rate" || m.Compare[0].Before <= 0 || m.Compare[0].After <= 0 || m.Compare[0].Verdict == "" {
		t.Errorf("%s: comparison %+v", m.Method, m.Compare)
	}
	for side, id := range map[string]string{"15.": m.Before, "18.": m.After} {
		r, err := result.Load(filepath.Join(dir, id))
		if err != nil || r.Status != result.Completed || !strings.HasPrefix(r.Engine.Version, side) {
			t.Fatalf("%s: run %s: %v", m.Method, id, err)
		}
		if u := r.Upgraded; (side == "18.") != (u != nil) || u != nil && (u.Method != m.Method || !strings.HasPrefix(u.From, "15.") || u.WindowSeconds != m.WindowSeconds) {
			t.Errorf("%s: run %s says it was upgraded: %+v", m.Method, id, u)
		}
	}
}

// TestUpgradeWithoutLedger: tpcb records no ledger: the upgraded database
// is held to its checks and to each table's rows, which the record says.
func TestUpgradeWithoutLedger(t *testing.T) {
	inParallel(t)
	needVersions(t, 15, 18)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, nil, "upgrade", "tpcb", "--from", "postgres:managed@15", "--to", "postgres:managed@18",
		"--method", "dump", "--duration", "1s", "-c", "2", "--ceiling", "off", "--results", dir)
	if code != ExitOK || !strings.Contains(out, "verified by checks and row counts") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	dirs, _ := filepath.Glob(filepath.Join(dir, "*-upgrade-tpcb", result.UpgradeFile))
	if len(dirs) != 1 {
		t.Fatalf("records %v", dirs)
	}
	b, _ := os.ReadFile(dirs[0])
	var rec result.Upgrade
	if err := json.Unmarshal(b, &rec); err != nil || len(rec.Methods) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	m := rec.Methods[0]
	ok := map[string]bool{}
	for _, c := range m.Checks {
		ok[c.Name] = c.OK
	}
	if m.Ledger != nil || !ok["rows_kept"] || !ok["balances_agree"] || !ok["history_matches_acknowledged"] ||
		len(m.RowsBefore) != 4 || m.RowsBefore["public.pgbench_history"] == 0 || !maps.Equal(m.RowsBefore, m.RowsAfter) {
		t.Errorf("ledger %+v, checks %+v, rows %v then %v", m.Ledger, m.Checks, m.RowsBefore, m.RowsAfter)
	}
}

// TestUpgradeExit: a loss or a failed check is 1 whatever else happened, an
// interrupt 130, a method not run to its end 3, else 0.
func TestUpgradeExit(t *testing.T) {
	ran := result.UpgradeMethod{Method: "link", OK: true}
	lost := result.UpgradeMethod{Method: "copy", Failed: "after the upgrade, ledger FAILED"}
	broke := result.UpgradeMethod{Method: "dump", Error: "pg_dump: exit status 1"}
	cases := []struct {
		name        string
		methods     []result.UpgradeMethod
		interrupted bool
		want        int
	}{
		{"all ran", []result.UpgradeMethod{ran, ran}, false, ExitOK},
		{"a loss", []result.UpgradeMethod{ran, lost, broke}, true, ExitUnmet},
		{"interrupted", []result.UpgradeMethod{ran}, true, ExitInterrupted},
		{"not run", []result.UpgradeMethod{ran, broke}, false, ExitFailed},
	}
	for _, c := range cases {
		code, why := upgradeExit(&result.Upgrade{Verification: "ledger", Methods: c.methods}, 2, nil, c.interrupted, "dir")
		if code != c.want || why == "" {
			t.Errorf("%s: exit %d (%s), want %d", c.name, code, why, c.want)
		}
	}
}

// TestUpgradeRefusals: a --to older than --from, a method a version's
// binaries cannot make (zonky's 13 has no pg_controldata) and an unknown
// method are each one line, exit 2, before any folder is made.
func TestUpgradeRefusals(t *testing.T) {
	needVersions(t, 13, 15, 18)
	cases := map[string]struct {
		args []string
		want string
	}{
		"older":          {[]string{"--from", "postgres:managed@18", "--to", "postgres:managed@15"}, "is not newer than"},
		"no tool":        {[]string{"--from", "postgres:managed@13", "--to", "postgres:managed@18", "--method", "dump,link"}, "pg_controldata"},
		"unknown method": {[]string{"--from", "postgres:managed@15", "--to", "postgres:managed@18", "--method", "rsync"}, "no upgrade method"},
		"no --to":        {[]string{"--from", "postgres:managed@15"}, "needs --from and --to"},
		"embedded":       {[]string{"--from", "sqlite", "--to", "postgres:managed@18"}, "cannot upgrade"},
	}
	for name, c := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runCLI(t, nil, append([]string{"upgrade", "insert", "--duration", "1s", "--results", dir}, c.args...)...)
			assertOneLine(t, code, errOut, ExitUsage, "")
			if !strings.Contains(errOut, c.want) || out != "" {
				t.Fatalf("stderr %q lacks %q (stdout %q)", errOut, c.want, out)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatal("a refused upgrade left a folder")
			}
		})
	}
}

// TestVersionsCommand: dbgauge versions lists each PostgreSQL installed
// with its version and source, and MariaDB's and Firebird's one version.
func TestVersionsCommand(t *testing.T) {
	needVersions(t, 13, 15, 18)
	code, out, errOut := runCLI(t, nil, "versions")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"postgres:managed@13  13.", "zonky", "postgres:managed@15  15.", "the system's packages",
		"postgres:managed@18  18.", "PyPI", "mariadb:managed@10.11", "firebird:managed@3.0", "@DIR takes a folder"} {
		if !strings.Contains(out, want) {
			t.Errorf("versions lacks %q:\n%s", want, out)
		}
	}
}
