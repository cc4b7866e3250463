package session_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/session"
)

// TestContradictingSetRefused: a --set of a setting the durability level
// decides, to a value the level does not allow, is refused by the plan
// with one line saying what to do, before anything opens; the same --set
// that agrees with the level (in another spelling) is taken.
func TestContradictingSetRefused(t *testing.T) {
	w := spec(t, "insert")
	for _, c := range []struct{ db, durability, set, want string }{
		{"postgres:managed", "sync", "synchronous_commit=off", "--set synchronous_commit=off contradicts --durability sync, which needs on or local or remote_write or remote_apply: drop the --set, or use --durability lazy"},
		{"postgres:managed", "sync", "fsync=false", "--set fsync=false contradicts --durability sync, which needs on: drop the --set, or use --durability off"},
		{"postgres:managed", "lazy", "synchronous_commit=on", "use --durability sync"},
		{"sqlite", "sync", "synchronous=OFF", "--set synchronous=OFF contradicts --durability sync, which needs FULL or EXTRA: drop the --set, or use --durability off"},
		{"sqlite", "lazy", "synchronous=2", "use --durability sync"},
		{"sqlite", "sync", "journal_mode=memory", "which needs wal or delete or truncate or persist: drop the --set"},
		{"mariadb:managed", "sync", "innodb_flush_log_at_trx_commit=0", "use --durability off"},
		{"mariadb:managed", "sync", "sync_binlog=0", "--set sync_binlog=0 contradicts --durability sync"},
		{"pebble", "lazy", "DisableWAL=true", "use --durability off"},
		{"firebird:managed", "sync", "forced_writes=off", "use --durability off"},
	} {
		v := session.NewValues(w)
		v.Set("db", c.db)
		v.Set("durability", c.durability)
		v.Set("set", c.set)
		_, err := session.NewPlan(session.Request{Workload: w, Values: v})
		var bad *knob.Error
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s --durability %s --set %s: %v, want one line saying %q", c.db, c.durability, c.set, err, c.want)
		}
	}
	for _, c := range []struct{ db, durability, set string }{
		{"postgres:managed", "sync", "synchronous_commit=local"},
		{"postgres:managed", "sync", "fsync=true"},
		{"postgres:managed", "off", "synchronous_commit=off"},
		{"sqlite", "sync", "synchronous=2"},
		{"sqlite", "off", "journal_mode=delete"},
		{"mariadb:managed", "lazy", "sync_binlog=1"},
		{"pebble", "off", "DisableWAL=true"},
	} {
		v := session.NewValues(w)
		v.Set("db", c.db)
		v.Set("durability", c.durability)
		v.Set("set", c.set)
		if _, err := session.NewPlan(session.Request{Workload: w, Values: v}); err != nil {
			t.Errorf("%s --durability %s --set %s: %v, want it taken", c.db, c.durability, c.set, err)
		}
	}
}
