package backend

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind is what QueryAny makes of a column's values (Plain, PlainText).
type Kind uint8

// The kinds of column.
const (
	KindText   Kind = iota // the text as a string (numeric, dates, anything not below)
	KindInt                // an integer: int64
	KindFloat              // a floating-point number: float64
	KindBool               // a boolean: bool
	KindBinary             // binary: []byte
)

// KindOf tells the kind of a column from its type as the driver names it
// (database/sql's ColumnType.DatabaseTypeName): "BIGINT", "UNSIGNED INT",
// "INT64" (Firebird), "DOUBLE PRECISION", "VARBINARY", "BLOB"… An empty
// name (SQLite's expressions, which have no declared type) is binary: a
// driver that tells text from binary itself (go-sqlite3: string or []byte)
// is believed.
func KindOf(dbType string) Kind {
	t := strings.ToUpper(dbType)
	switch {
	case t == "", t == "BIT", t == "GEOMETRY", strings.Contains(t, "BLOB"), strings.Contains(t, "BINARY"), strings.Contains(t, "BYTEA"):
		return KindBinary
	case strings.Contains(t, "INT"):
		return KindInt
	case strings.Contains(t, "FLOAT"), strings.Contains(t, "DOUBLE"), strings.Contains(t, "REAL"):
		return KindFloat
	case strings.HasPrefix(t, "BOOL"):
		return KindBool
	}
	return KindText
}

// PlainText is the plain value (QueryAny's) of a column of kind k given
// as the engine's text (KindBinary: its bytes, copied): nil for nil (NULL),
// an int64, float64 or bool when the text reads as one, the text otherwise
// (a NUMERIC(10,2)'s "1.50" stays text even in an integer column).
func PlainText(b []byte, k Kind) any {
	switch {
	case b == nil:
		return nil
	case k == KindBinary:
		return bytes.Clone(b)
	}
	return plainString(string(b), k)
}

// plainString reads s as a number or a boolean where k says it is one.
func plainString(s string, k Kind) any {
	switch k {
	case KindInt:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case KindFloat:
		if f, err := strconv.ParseFloat(s, 64); err == nil { // NaN, Inf too
			return f
		}
	case KindBool:
		switch strings.ToLower(s) {
		case "t", "true", "1":
			return true
		case "f", "false", "0":
			return false
		}
	}
	return s
}

// Plain turns a value a database/sql driver returned for a column of type
// dbType (see KindOf) into a plain one, as QueryAny returns them: int64,
// float64, bool, string, []byte for binary columns only (MariaDB returns
// []byte for text and decimals too: they become strings, an integer or
// floating-point column's text a number), nil for NULL. Times become
// text: DATE 2006-01-02, TIME 15:04:05, the others 2006-01-02 15:04:05,
// with the fraction of a second when there is one and the offset only for
// a type WITH TIME ZONE. A []byte is kept, not copied: database/sql's Scan
// into *any has copied it already.
func Plain(v any, dbType string) any {
	switch x := v.(type) {
	case nil, int64, float64, bool:
		return x
	case []byte:
		if k := KindOf(dbType); k != KindBinary {
			return plainString(string(x), k)
		}
		return x
	case string:
		return plainString(x, KindOf(dbType))
	case int, int8, int16, int32, uint8, uint16, uint32:
		n, _ := driver.DefaultParameterConverter.ConvertValue(x) // int64: each of these fits
		return n
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return strconv.FormatUint(x, 10)
	case float32:
		// 1.1, not float64(float32(1.1)): 1.100000023841858.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return f
	case time.Time:
		return timeText(x, strings.ToUpper(dbType))
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// timeText writes t as a column of type t (upper case) holds it.
func timeText(t time.Time, typ string) string {
	layout := "2006-01-02 15:04:05.999999999"
	switch {
	case typ == "DATE":
		layout = "2006-01-02"
	case strings.HasPrefix(typ, "TIME") && !strings.HasPrefix(typ, "TIMESTAMP"):
		layout = "15:04:05.999999999"
	}
	if strings.Contains(typ, "ZONE") {
		layout += "-07:00"
	}
	return t.Format(layout)
}

// EachAny calls row for each of rows' rows with the columns' names (through
// name when not nil: Firebird lower-cases them) and the row's values made
// plain (Plain); cols and vals are reused from one row to the next. The
// caller closes rows and classifies the error.
func EachAny(rows *sql.Rows, name func(string) string, row func(cols []string, vals []any) error) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	if name != nil {
		for i, c := range cols {
			cols[i] = name(c)
		}
	}
	dbTypes := make([]string, len(cols))
	for i, t := range types {
		dbTypes[i] = t.DatabaseTypeName()
	}
	raw, dest, vals := make([]any, len(cols)), make([]any, len(cols)), make([]any, len(cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		for i, v := range raw {
			vals[i] = Plain(v, dbTypes[i])
		}
		if err := row(cols, vals); err != nil {
			return err
		}
	}
	return rows.Err()
}
