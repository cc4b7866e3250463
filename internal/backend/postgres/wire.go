package postgres

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wire speaks the few messages of the prepared path itself, on the socket
// pgconn connected and authenticated: Bind/Execute/Sync for a prepared
// statement (BEGIN, COMMIT and ROLLBACK too), reading the answers through
// ReadyForQuery. pgconn's reader (its message structs, its
// background reader, its locks and deadlock guards) cost ~1 µs of client
// CPU a statement; this costs a fifth of it, which on two cores shared with
// the server is the server's (docs/backends/postgres.md).
//
// pgconn stays the connection's owner for everything else (Prepare, COPY,
// scripts): between two of its operations nothing is left unread (every
// answer ends at ReadyForQuery), and pgconn.SyncConn checks that before the
// socket is used here. After a read or write here fails, the connection is
// closed: what the server sent next is unknown.
type wire struct {
	nc     net.Conn
	out    []byte
	in     []byte // in[r:w] is read and not yet used
	r, w   int
	broken error // the error that closed the connection
	synced bool  // nothing of pgconn's is unread since the last check
	values [][]byte
}

// newWire returns the wire path of nc. Its read buffer starts small (a
// point read's answer is tens of bytes; at 1,000 connections every KiB is a
// MiB of dbgauge's) and grows for larger answers.
func newWire(nc net.Conn) *wire {
	return &wire{nc: nc, out: make([]byte, 0, 256), in: make([]byte, 2048)}
}

// bindExecute writes Bind (unnamed portal), Execute and Sync for stmt.
func (w *wire) bindExecute(stmt string, params [][]byte, formats, results []int16) error {
	w.out = w.out[:0]
	start := len(w.out)
	w.out = append(w.out, 'B', 0, 0, 0, 0, 0) // the unnamed portal
	w.out = append(w.out, stmt...)
	w.out = append(w.out, 0)
	w.out = binary.BigEndian.AppendUint16(w.out, uint16(len(formats)))
	for _, f := range formats {
		w.out = binary.BigEndian.AppendUint16(w.out, uint16(f))
	}
	w.out = binary.BigEndian.AppendUint16(w.out, uint16(len(params)))
	for _, p := range params {
		if p == nil {
			w.out = binary.BigEndian.AppendUint32(w.out, 0xffffffff) // NULL
			continue
		}
		w.out = binary.BigEndian.AppendUint32(w.out, uint32(len(p)))
		w.out = append(w.out, p...)
	}
	w.out = binary.BigEndian.AppendUint16(w.out, uint16(len(results)))
	for _, f := range results {
		w.out = binary.BigEndian.AppendUint16(w.out, uint16(f))
	}
	binary.BigEndian.PutUint32(w.out[start+1:], uint32(len(w.out)-start-1))
	w.out = append(w.out, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // all rows of the unnamed portal
	w.out = append(w.out, 'S', 0, 0, 0, 4)
	return w.flush()
}

func (w *wire) flush() error {
	if _, err := w.nc.Write(w.out); err != nil {
		return w.fail(err)
	}
	return nil
}

// fail closes the connection after a read or write failed.
func (w *wire) fail(err error) error {
	if w.broken == nil {
		w.broken = err
		_ = w.nc.Close()
	}
	return err
}

// next returns the next message's type and body; the body is valid until
// the next call.
func (w *wire) next() (byte, []byte, error) {
	if w.broken != nil {
		return 0, nil, w.broken
	}
	if err := w.fill(5); err != nil {
		return 0, nil, err
	}
	t := w.in[w.r]
	n := int(binary.BigEndian.Uint32(w.in[w.r+1:])) - 4
	if n < 0 {
		return 0, nil, w.fail(fmt.Errorf("postgres: a message of length %d", n+4))
	}
	w.r += 5
	if err := w.fill(n); err != nil {
		return 0, nil, err
	}
	body := w.in[w.r : w.r+n]
	w.r += n
	return t, body, nil
}

// fill makes in[r:] hold at least n bytes.
func (w *wire) fill(n int) error {
	if w.w-w.r >= n {
		return nil
	}
	if w.r > 0 {
		w.w = copy(w.in, w.in[w.r:w.w])
		w.r = 0
	}
	if n > len(w.in) {
		in := make([]byte, max(n, 2*len(w.in)))
		copy(in, w.in[:w.w])
		w.in = in
	}
	for w.w < n {
		m, err := w.nc.Read(w.in[w.w:])
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return w.fail(err)
		}
		w.w += m
	}
	return nil
}

// result reads the answer to a request through ReadyForQuery: it calls row
// with each data row's values (valid until row returns; nil is NULL) until
// row fails, and returns the rows the command changed and the first error
// (the server's, as a *pgconn.PgError, or row's).
func (w *wire) result(row func(values [][]byte) error) (int64, error) {
	var n int64
	var first error
	for {
		t, body, err := w.next()
		if err != nil {
			return 0, err
		}
		switch t {
		case 'D':
			if first != nil || row == nil {
				continue
			}
			if w.values, err = dataRow(body, w.values[:0]); err != nil {
				return 0, w.fail(err)
			}
			first = row(w.values)
		case 'C':
			n = rowsAffected(body)
		case 'E':
			var er pgproto3.ErrorResponse
			if err := er.Decode(body); err != nil {
				return 0, w.fail(err)
			}
			if first == nil {
				first = pgconn.ErrorResponseToPgError(&er)
			}
		case 'Z':
			return n, first
		case '2', 'n', 'I', 's', 'N', 'S', 'A', '1', '3', 't', 'T':
			// BindComplete, NoData, EmptyQuery, PortalSuspended, a notice,
			// a parameter's new value, a notification, ParseComplete,
			// CloseComplete, descriptions: nothing to keep.
		default:
			return 0, w.fail(fmt.Errorf("postgres: unexpected message %q on the prepared path", t))
		}
	}
}

// dataRow splits a DataRow's body into its values.
func dataRow(body []byte, values [][]byte) ([][]byte, error) {
	if len(body) < 2 {
		return nil, errors.New("postgres: a short DataRow")
	}
	cols := int(binary.BigEndian.Uint16(body))
	p := 2
	for range cols {
		if p+4 > len(body) {
			return nil, errors.New("postgres: a short DataRow")
		}
		n := int(int32(binary.BigEndian.Uint32(body[p:])))
		p += 4
		if n < 0 {
			values = append(values, nil)
			continue
		}
		if p+n > len(body) {
			return nil, errors.New("postgres: a short DataRow")
		}
		values = append(values, body[p:p+n:p+n])
		p += n
	}
	return values, nil
}

// rowsAffected reads the count at the end of a command tag ("UPDATE 3",
// "INSERT 0 1", "SELECT 2"); 0 when it has none ("BEGIN").
func rowsAffected(tag []byte) int64 {
	tag = bytes.TrimRight(tag, "\x00")
	i := bytes.LastIndexByte(tag, ' ')
	if i < 0 {
		return 0
	}
	n, err := strconv.ParseInt(unsafeString(tag[i+1:]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
