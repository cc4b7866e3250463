package postgres

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// The prepared path (--prepare once): each connection prepares a statement
// at its first use, then runs it with pgconn's ExecStatement, the parameters
// encoded here into buffers the connection reuses, as libpq and pgbench do,
// in text format (binary for bytea); the common column types are scanned
// here from the ResultReader's values. Anything else is encoded and scanned
// by pgx's own type map, so the results are pgx's. This takes pgx's
// statement cache, its encode and scan plans and their allocations off the
// hot path, through pgconn's public API only (docs/backends/postgres.md).

// maxPrepared bounds the statements a connection keeps prepared: the largest
// workload (tpcc) uses about 120 (a statement per line count of an order,
// per district count of a delivery); statements made on the fly (a check's
// query) would otherwise pile up on the server. At 64, a TPC-C connection
// dropped all its statements and prepared them again every few
// transactions, the server parsing and planning them anew.
const maxPrepared = 256

// PostgreSQL's type OIDs that the fast path encodes and scans itself.
const (
	oidBool    = 16
	oidBytea   = 17
	oidName    = 19
	oidInt8    = 20
	oidInt2    = 21
	oidInt4    = 23
	oidText    = 25
	oidFloat4  = 700
	oidFloat8  = 701
	oidUnknown = 705
	oidBpchar  = 1042
	oidVarchar = 1043
	oidNumeric = 1700
)

// prepared is a statement prepared on one connection.
type prepared struct {
	desc    *pgconn.StatementDescription
	results []int16 // result format per column: binary for bytea, text otherwise
}

// stmt returns st prepared on this connection, preparing it at its first use.
func (c *conn) stmt(st *backend.Stmt) (*prepared, error) {
	if p, ok := c.prepared[st]; ok {
		return p, nil
	}
	pc := c.pc
	if len(c.prepared) >= maxPrepared {
		for old, p := range c.prepared {
			if err := pc.Deallocate(bg, p.desc.Name); err != nil {
				return nil, err
			}
			delete(c.prepared, old)
		}
	}
	c.seq++
	desc, err := pc.Prepare(bg, "dbgauge_"+strconv.Itoa(c.seq), c.sql(st), nil)
	if err != nil {
		return nil, err
	}
	p := &prepared{desc: desc, results: make([]int16, len(desc.Fields))}
	for i, f := range desc.Fields {
		if f.DataTypeOID == oidBytea {
			p.results[i] = pgtype.BinaryFormatCode
		}
	}
	c.prepared[st] = p
	return p, nil
}

// run starts st with args (Bind/Execute/Sync); the caller reads
// the rows and must close the ResultReader.
func (c *conn) run(st *backend.Stmt, args []any) (*prepared, *pgconn.ResultReader, error) {
	p, err := c.stmt(st)
	if err != nil {
		return nil, nil, err
	}
	if len(args) != len(p.desc.ParamOIDs) {
		return nil, nil, fmt.Errorf("postgres: %q takes %d parameters, given %d", st.SQL, len(p.desc.ParamOIDs), len(args))
	}
	c.buf, c.params, c.formats = c.buf[:0], c.params[:0], c.formats[:0]
	// The values point into c.buf, which may move while it grows: offsets
	// first, slices after.
	ends := c.ends[:0]
	for i, a := range args {
		format, null, err := c.encode(p.desc.ParamOIDs[i], a)
		if err != nil {
			return nil, nil, fmt.Errorf("postgres: parameter $%d of %q: %w", i+1, st.SQL, err)
		}
		c.formats = append(c.formats, format)
		if null {
			ends = append(ends, -1)
		} else {
			ends = append(ends, len(c.buf))
		}
	}
	start := 0
	for _, end := range ends {
		if end < 0 {
			c.params = append(c.params, nil)
			continue
		}
		c.params = append(c.params, c.buf[start:end:end])
		start = end
	}
	c.ends = ends
	// ExecStatement, not ExecPrepared: the statement's description is
	// known from its preparation, so a statement that returns rows is sent
	// without a Describe and no RowDescription comes back to be decoded (an
	// allocation per column); one that returns none (UPDATE, BEGIN,
	// COMMIT) has an empty description, for which pgconn (v5.12) still
	// sends a Describe, answered by a NoData.
	return p, c.pc.ExecStatement(bg, p.desc, c.params, c.formats, p.results), nil
}

// encode appends a's encoding for a parameter of type oid to c.buf and
// returns its format; null when a is nil. An integer or a boolean goes as
// its text whatever the parameter's type (asText).
func (c *conn) encode(oid uint32, a any) (format int16, null bool, err error) {
	const text int16 = pgtype.TextFormatCode
	switch v := a.(type) {
	case nil:
		return text, true, nil
	case int:
		c.buf = strconv.AppendInt(c.buf, int64(v), 10)
		return text, false, nil
	case int64:
		c.buf = strconv.AppendInt(c.buf, v, 10)
		return text, false, nil
	case int32:
		c.buf = strconv.AppendInt(c.buf, int64(v), 10)
		return text, false, nil
	case float64:
		if oid == oidFloat8 || oid == oidNumeric {
			c.buf = strconv.AppendFloat(c.buf, v, 'g', -1, 64)
			return text, false, nil
		}
	case bool:
		c.buf = strconv.AppendBool(c.buf, v)
		return text, false, nil
	case string:
		if isText(oid) {
			c.buf = append(c.buf, v...)
			return text, false, nil
		}
		if oid == oidBytea {
			c.buf = append(c.buf, v...)
			return pgtype.BinaryFormatCode, false, nil
		}
	case []byte:
		if v == nil {
			return text, true, nil
		}
		if oid == oidBytea {
			c.buf = append(c.buf, v...)
			return pgtype.BinaryFormatCode, false, nil
		}
	}
	// As pgx's ExtendedQueryBuilder: strings in text, anything else in the
	// type's preferred format, and the other format when that fails.
	m := c.typeMap()
	format = m.FormatCodeForOID(oid)
	if _, ok := a.(string); ok {
		format = text
	}
	null, err = c.encodeAs(oid, format, a)
	if err != nil {
		format = 1 - format
		if null, err2 := c.encodeAs(oid, format, a); err2 == nil {
			return format, null, nil
		}
	}
	return format, null, err
}

// encodeAs appends a's encoding in format through pgx's type map.
func (c *conn) encodeAs(oid uint32, format int16, a any) (null bool, err error) {
	before := len(c.buf)
	buf, err := c.typeMap().Encode(oid, format, a, c.buf) // c.buf is never nil: an empty value is not NULL
	if err != nil {
		c.buf = c.buf[:before]
		return false, err
	}
	if buf == nil { // pgx encodes NULL as a nil buffer
		c.buf = c.buf[:before]
		return true, nil
	}
	c.buf = buf
	return false, nil
}

// asText returns args with each integer and boolean made its text, for
// pgx's path; args itself is left as it is. Both paths send them so, as
// libpq's users (pgbench) send every parameter: text that the server reads
// as the type it gave the parameter, so that a script's variable binds
// wherever pgbench's does (SELECT $1 is text, and pgx has no plan for an
// integer or a boolean there, nor for a boolean into a number).
func asText(args []any) []any {
	var out []any
	for i, a := range args {
		var s string
		switch v := a.(type) {
		case int:
			s = strconv.Itoa(v)
		case int64:
			s = strconv.FormatInt(v, 10)
		case int32:
			s = strconv.FormatInt(int64(v), 10)
		case bool:
			s = strconv.FormatBool(v)
		default:
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = s
	}
	if out == nil {
		return args
	}
	return out
}

func isText(oid uint32) bool {
	switch oid {
	case oidText, oidVarchar, oidBpchar, oidName, oidUnknown:
		return true
	}
	return false
}

// errScan is the error of a row whose columns and destinations disagree.
var errScan = errors.New("postgres: the number of columns and of destinations differ")

// scan scans one row's values into dest.
func (c *conn) scan(p *prepared, values [][]byte, dest []any) error {
	if len(values) != len(dest) || len(values) != len(p.desc.Fields) {
		return errScan
	}
	for i, src := range values {
		oid := p.desc.Fields[i].DataTypeOID
		if src != nil && scanFast(oid, src, dest[i]) {
			continue
		}
		if err := c.typeMap().Scan(oid, p.results[i], src, dest[i]); err != nil {
			return fmt.Errorf("postgres: column %d (%s): %w", i+1, p.desc.Fields[i].Name, err)
		}
	}
	return nil
}

// scanFast scans the text (bytea: binary) value src of a column of type oid
// into dest when both are among the common types, and says whether it did.
func scanFast(oid uint32, src []byte, dest any) bool {
	switch d := dest.(type) {
	case *int64:
		if isInt(oid) {
			n, err := strconv.ParseInt(string(src), 10, 64)
			*d = n
			return err == nil
		}
	case *int:
		if isInt(oid) {
			n, err := strconv.ParseInt(string(src), 10, 64)
			*d = int(n)
			return err == nil
		}
	case *int32:
		if oid == oidInt2 || oid == oidInt4 {
			n, err := strconv.ParseInt(string(src), 10, 32)
			*d = int32(n)
			return err == nil
		}
	case *float64:
		if oid == oidFloat8 || oid == oidFloat4 {
			f, err := strconv.ParseFloat(string(src), 64) // NaN, Infinity and -Infinity too
			*d = f
			return err == nil
		}
	case *string:
		if isText(oid) {
			*d = string(src)
			return true
		}
	case *[]byte:
		if oid == oidBytea || isText(oid) {
			*d = append(make([]byte, 0, len(src)), src...)
			return true
		}
	case *bool:
		if oid == oidBool && len(src) == 1 {
			*d = src[0] == 't'
			return true
		}
	}
	return false
}

func isInt(oid uint32) bool { return oid == oidInt2 || oid == oidInt4 || oid == oidInt8 }

// names returns the columns' names.
func names(fields []pgconn.FieldDescription) []string {
	cols := make([]string, len(fields))
	for i, f := range fields {
		cols[i] = f.Name
	}
	return cols
}

// plainRow fills vals with a row's values (text, bytea's binary) made
// plain (backend.PlainText): integers, floating-point numbers and booleans
// read from their text, bytea copied, anything else PostgreSQL's text as
// it prints it (numeric 1.50, timestamptz 2024-01-02 03:04:05+00).
func plainRow(fields []pgconn.FieldDescription, values [][]byte, vals []any) {
	for i, src := range values {
		vals[i] = backend.PlainText(src, kindOf(fields[i].DataTypeOID))
	}
}

// kindOf is the kind of a column of type oid.
func kindOf(oid uint32) backend.Kind {
	switch {
	case isInt(oid):
		return backend.KindInt
	case oid == oidFloat4 || oid == oidFloat8:
		return backend.KindFloat
	case oid == oidBool:
		return backend.KindBool
	case oid == oidBytea:
		return backend.KindBinary
	}
	return backend.KindText
}

// forget drops st's preparation after an error that may mean the server no
// longer has it as prepared (a schema change: 0A000 "cached plan must not
// change result type"; 26000 no such statement), so that it is prepared
// again at its next use.
func (c *conn) forget(st *backend.Stmt, err error) {
	switch sqlState(err) {
	case "0A000", "26000":
		if p, ok := c.prepared[st]; ok {
			delete(c.prepared, st)
			if !c.pc.IsClosed() {
				_ = c.pc.Deallocate(bg, p.desc.Name)
			}
		}
	}
}
