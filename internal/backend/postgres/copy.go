package postgres

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// copyFrom loads rows with COPY … FROM STDIN in binary format on the
// prepared path's bare pgconn connection, as pgx's CopyFrom does: the
// columns' types come from describing a SELECT of them, and each value is
// encoded by the type map. The rows are encoded as pgconn reads them.
func (c *conn) copyFrom(table string, columns []string, next func() ([]any, bool)) (int64, error) {
	quoted := make([]string, len(columns))
	for i, col := range columns {
		quoted[i] = pgx.Identifier{col}.Sanitize()
	}
	cols := strings.Join(quoted, ", ")
	name := pgx.Identifier{table}.Sanitize()
	pc := c.pc
	desc, err := pc.Prepare(bg, "", "SELECT "+cols+" FROM "+name, nil)
	if err != nil {
		return 0, err
	}
	oids := make([]uint32, len(desc.Fields))
	for i, f := range desc.Fields {
		oids[i] = f.DataTypeOID
	}
	r := &copyReader{m: c.typeMap(), oids: oids, next: next}
	tag, err := pc.CopyFrom(bg, r, "COPY "+name+" ("+cols+") FROM STDIN WITH (FORMAT binary)")
	if r.err != nil {
		return 0, r.err
	}
	return tag.RowsAffected(), err
}

// copyReader is the binary COPY stream of the rows next returns: the
// header, a row at a time, the trailer.
type copyReader struct {
	m      *pgtype.Map
	oids   []uint32
	next   func() ([]any, bool)
	buf    []byte
	off    int
	header bool
	done   bool
	err    error // an encoding error: the COPY is abandoned
}

// PostgreSQL's binary COPY header: the signature, flags, no extension.
var copyHeader = []byte("PGCOPY\n\377\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

func (r *copyReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.done {
			return 0, io.EOF
		}
		if err := r.fill(); err != nil {
			r.err = err
			return 0, err
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// fill encodes the next rows, about 64 KiB of them.
func (r *copyReader) fill() error {
	r.buf, r.off = r.buf[:0], 0
	if !r.header {
		r.buf = append(r.buf, copyHeader...)
		r.header = true
	}
	for len(r.buf) < 64<<10 {
		row, ok := r.next()
		if !ok {
			r.buf = binary.BigEndian.AppendUint16(r.buf, 0xffff) // the trailer
			r.done = true
			return nil
		}
		if len(row) != len(r.oids) {
			return fmt.Errorf("postgres: COPY row of %d values for %d columns", len(row), len(r.oids))
		}
		r.buf = binary.BigEndian.AppendUint16(r.buf, uint16(len(row)))
		for i, v := range row {
			at := len(r.buf)
			r.buf = append(r.buf, 0, 0, 0, 0)
			out, err := r.m.Encode(r.oids[i], pgtype.BinaryFormatCode, v, r.buf)
			if err != nil {
				return fmt.Errorf("postgres: COPY column %d: %w", i+1, err)
			}
			if out == nil { // NULL
				r.buf = r.buf[:at]
				r.buf = binary.BigEndian.AppendUint32(r.buf, 0xffffffff)
				continue
			}
			r.buf = out
			binary.BigEndian.PutUint32(r.buf[at:], uint32(len(r.buf)-at-4))
		}
	}
	return nil
}
