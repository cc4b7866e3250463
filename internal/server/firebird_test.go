package server

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

func TestFirebird(t *testing.T) {
	if _, _, _, _, err := FindFirebird(); err != nil {
		t.Skip(err) // .ci/run installs firebird3.0-server: in CI this never skips
	}
	for _, mode := range []string{"Super", "SuperClassic", "Classic"} {
		t.Run(mode, func(t *testing.T) {
			f, err := StartFirebird(context.Background(), FirebirdConfig{Dir: t.TempDir(), PageSize: 16384, ForcedWrites: mode != "Super",
				Conf: map[string]string{"ServerMode": mode, "DefaultDbCachePages": "1000"}})
			if err != nil {
				t.Fatal(err)
			}
			defer f.StopClean()
			db, err := sql.Open("firebirdsql", f.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var fw, ps, buffers int
			if err := db.QueryRow("SELECT MON$FORCED_WRITES, MON$PAGE_SIZE, MON$PAGE_BUFFERS FROM MON$DATABASE").Scan(&fw, &ps, &buffers); err != nil {
				t.Fatal(err)
			}
			if ps != 16384 || (fw == 1) != (mode != "Super") || buffers != 1000 {
				t.Errorf("forced writes %d, page size %d, buffers %d", fw, ps, buffers)
			}
			bad, _ := sql.Open("firebirdsql", strings.Replace(f.DSN(), f.Password, "wrong", 1))
			defer bad.Close()
			if err := bad.Ping(); err == nil {
				t.Error("SYSDBA with a wrong password was let in")
			}
			if out, err := f.Service(context.Background(), "action_validate"); err != nil {
				t.Errorf("online validation: %v: %s", err, out)
			} else {
				t.Logf("validation: %s", out)
			}
			t.Logf("%s started in %v as %s: %s", mode, f.Startup, f.Account.Name, f.Note)
		})
	}
}
