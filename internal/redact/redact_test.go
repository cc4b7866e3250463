package redact

import (
	"strings"
	"testing"
)

func TestDSN(t *testing.T) {
	cases := map[string]string{
		"postgres://bob:s3cret@db:5432/x":           "postgres://bob:xxxxx@db:5432/x",
		"postgres://bob@db/x":                       "postgres://bob@db/x",
		"mysql://root:p%40ss@127.0.0.1:3306/t":      "mysql://root:xxxxx@127.0.0.1:3306/t",
		"root:hunter2@tcp(127.0.0.1:3306)/db":       "root:xxxxx@tcp(127.0.0.1:3306)/db",
		"host=db user=bob password=s3cret dbname=x": "host=db user=bob password=xxxxx dbname=x",
		"firebird://SYSDBA:masterkey@h/db?x=1":      "firebird://SYSDBA:xxxxx@h/db?x=1",
		"sqlite:/tmp/a.db":                          "sqlite:/tmp/a.db",
		"postgres://u@h/db?password=abc&sslmode=x":  "postgres://u@h/db?password=xxxxx&sslmode=x",
		"redis://:s3cret@h:6379/0":                  "redis://:xxxxx@h:6379/0",
	}
	for in, want := range cases {
		if got := DSN(in); got != want {
			t.Errorf("DSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDSN(f *testing.F) {
	f.Add("postgres://bob:s3cret@db:5432/x")
	f.Add("a:b@tcp(c)/d password=zz")
	f.Fuzz(func(t *testing.T, secret string) {
		if len(secret) < 4 || strings.ContainsAny(secret, "@ \t\n&;/:") || strings.Contains(Mask, secret) {
			return
		}
		for _, dsn := range []string{
			"postgres://bob:" + secret + "@db/x",
			"bob:" + secret + "@tcp(db)/x",
			"host=db password=" + secret,
		} {
			if strings.Count(dsn, secret) != 1 {
				continue // the secret also spells part of the template
			}
			if got := DSN(dsn); strings.Contains(got, secret) {
				t.Fatalf("DSN(%q) = %q still holds the secret", dsn, got)
			}
		}
	})
}
