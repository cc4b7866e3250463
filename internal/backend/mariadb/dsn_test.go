package mariadb

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// TestDriverDSN: the URL form and the driver's own form of --db, with
// their parameters, read into the driver's config; what is neither is bad
// input, its password masked.
func TestDriverDSN(t *testing.T) {
	for db, want := range map[string]string{
		"mysql://u:p%40ss@127.0.0.1:3307/shop":           "u p@ss tcp 127.0.0.1:3307 shop",
		"mariadb://u:pw@db.example:3306/shop?timeout=2s": "u pw tcp db.example:3306 shop",
		"mysql://u:pw@localhost/shop":                    "u pw tcp localhost:3306 shop",
		"mysql://u:pw@[::1]:3306/shop":                   "u pw tcp [::1]:3306 shop",
		"mysql://u:pw@tcp(10.0.0.1:3306)/shop":           "u pw tcp 10.0.0.1:3306 shop",
		"mysql://u:pw@unix(/run/mysqld.sock)/shop":       "u pw unix /run/mysqld.sock shop",
		"mysql://u:p@ss@127.0.0.1/shop":                  "u p@ss tcp 127.0.0.1:3306 shop",
	} {
		cfg, err := driverDSN(db)
		if err != nil {
			t.Errorf("%s: %v", db, err)
			continue
		}
		if got := strings.Join([]string{cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName}, " "); got != want {
			t.Errorf("%s: %q, want %q", db, got, want)
		}
	}
	if cfg, _ := driverDSN("mariadb://u:pw@h/db?timeout=2s"); cfg == nil || cfg.Timeout != 2*time.Second {
		t.Errorf("the URL's parameters are not the driver's: %+v", cfg)
	}
	for _, db := range []string{"mysql://u:secret@/db", "mysql://u:secret@h/db?timeout=soon", "mysql://u:secret@tcp(h:1/db", "mysql://%zz"} {
		_, err := driverDSN(db)
		var bad *knob.Error
		if !errors.As(err, &bad) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v, want bad input without the password", db, err)
		}
	}
}

func FuzzDriverDSN(f *testing.F) {
	for _, s := range []string{"mysql://u:pw@h:3306/db?tls=true", "mysql://u:pw@tcp(h:3306)/db", "mariadb://h", "mysql://@/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if cfg, err := driverDSN(s); err == nil && cfg.Addr == "" {
			t.Fatalf("%q: no address and no error", s)
		}
	})
}
