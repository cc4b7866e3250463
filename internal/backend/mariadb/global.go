package mariadb

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// global is a server variable SET GLOBAL changed on a server of the user's.
type global struct {
	backend.Change
	was any // Change.Was as the variable's type: a number is set back as one
}

// varName is what a variable's name may be: it is written into SET GLOBAL.
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// restoreTimeout bounds setting back the variables at Close, whatever
// ended the run: the run's context is over by then.
const restoreTimeout = 30 * time.Second

// setGlobals sets each of settings on the server with SET GLOBAL, in name
// order, after reading what it was; each is set back by restore (Close).
// On an error it sets back what it had set before returning it.
//
//	SELECT @@GLOBAL.innodb_flush_log_at_trx_commit
//	SET GLOBAL innodb_flush_log_at_trx_commit = 1
func (d *db) setGlobals(ctx context.Context, settings map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		v := settings[k]
		if !varName.MatchString(k) {
			d.restore()
			return knob.Bad("give a server variable's name, e.g. --set innodb_flush_log_at_trx_commit=1", "--set %s=%s: %q is no variable name", k, v, k)
		}
		was, typed, err := d.readGlobal(ctx, k)
		if err != nil {
			d.restore()
			return knob.Bad("give a server variable MariaDB has (SHOW GLOBAL VARIABLES)", "--set %s=%s: @@GLOBAL.%s: %v", k, v, k, err)
		}
		if _, err := d.sql.ExecContext(ctx, "SET GLOBAL "+k+" = "+v); err != nil {
			d.restore()
			return knob.Bad("use --db mariadb:managed, or set it on your server yourself", "SET GLOBAL %s=%s: %v", k, v, err)
		}
		g := global{Change: backend.Change{Key: k, Was: was, Set: v}, was: typed}
		if now, _, err := d.readGlobal(ctx, k); err == nil {
			g.Set = now
		}
		d.changed = append(d.changed, g)
	}
	return nil
}

// readGlobal reads @@GLOBAL.k: as text, and as its type says (an integer,
// a number, text or NULL), to be set back as it was.
func (d *db) readGlobal(ctx context.Context, k string) (string, any, error) {
	rows, err := d.sql.QueryContext(ctx, "SELECT @@GLOBAL."+k)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return "", nil, err
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("no value")
	}
	var v sql.NullString
	if err := rows.Scan(&v); err != nil {
		return "", nil, err
	}
	if !v.Valid {
		return "NULL", nil, rows.Err()
	}
	typ := strings.ToUpper(types[0].DatabaseTypeName())
	var typed any = v.String
	switch {
	case strings.Contains(typ, "INT") && strings.HasPrefix(typ, "UNSIGNED"):
		if n, err := strconv.ParseUint(v.String, 10, 64); err == nil {
			typed = n
		}
	case strings.Contains(typ, "INT"):
		if n, err := strconv.ParseInt(v.String, 10, 64); err == nil {
			typed = n
		}
	case typ == "DOUBLE" || typ == "FLOAT" || typ == "DECIMAL":
		if n, err := strconv.ParseFloat(v.String, 64); err == nil {
			typed = n
		}
	}
	return v.String, typed, rows.Err()
}

// restore sets back, once and last set first, every variable setGlobals
// changed, each read back afterwards: a value that does not read back as it
// was is said. It runs whatever ended the run, with a context of its own.
func (d *db) restore() {
	d.restored.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
		defer cancel()
		for i := len(d.changed) - 1; i >= 0; i-- {
			g := &d.changed[i]
			if _, err := d.sql.ExecContext(ctx, "SET GLOBAL "+g.Key+" = ?", g.was); err != nil {
				g.Err = err.Error()
				continue
			}
			switch now, _, err := d.readGlobal(ctx, g.Key); {
			case err != nil:
				g.Err = "set back, but not read back: " + err.Error()
			case now != g.Was:
				g.Err = "set back, but reads back " + now
			default:
				g.Restored = true
			}
		}
	})
}

// Changes lists the variables the run changed on a server of the user's;
// after Close, whether each was set back.
func (d *db) Changes() []backend.Change {
	out := make([]backend.Change, len(d.changed))
	for i, g := range d.changed {
		out[i] = g.Change
	}
	return out
}

var _ backend.Changer = (*db)(nil)
