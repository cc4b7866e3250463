// Package crash runs a write workload in a child process, kills it at a
// seeded random moment, reopens the database and counts exactly what was
// acknowledged and lost. The ledger of acknowledged commits lives in the
// controlling process, outside the engine and its files.
package crash

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// LedgerEnv tells a child run the file descriptor to write its ledger to.
const LedgerEnv = "DBGAUGE_LEDGER_FD"

// pipeLedger writes "b id…" before a commit and "a id…" once it returned, one
// write per line, so that the controller sees an acknowledgement as soon as
// the workload does.
type pipeLedger struct {
	mu  sync.Mutex
	f   *os.File
	buf []byte
}

// ChildLedger returns the ledger the controlling process gave this one, or
// nil when it gave none.
func ChildLedger() (workload.Ledger, error) {
	s := os.Getenv(LedgerEnv)
	if s == "" {
		return nil, nil
	}
	fd, err := strconv.Atoi(s)
	if err != nil {
		return nil, fmt.Errorf("%s=%q is not a file descriptor", LedgerEnv, s)
	}
	return &pipeLedger{f: os.NewFile(uintptr(fd), "ledger")}, nil
}

func (l *pipeLedger) Begin(ids []int64) { l.write('b', ids) }
func (l *pipeLedger) Acked(ids []int64) { l.write('a', ids) }

func (l *pipeLedger) write(tag byte, ids []int64) {
	if len(ids) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.buf[:0], tag)
	for _, id := range ids {
		b = append(b, ' ')
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, '\n')
	l.buf = b
	_, _ = l.f.Write(b)
}

// book is the controller's side: what was begun and what was acknowledged.
type book struct {
	mu    sync.Mutex
	begun map[int64]bool // committing, not yet acknowledged
	acked map[int64]bool
	first chan struct{} // closed at the first acknowledgement
	once  sync.Once
}

func newBook() *book {
	return &book{begun: map[int64]bool{}, acked: map[int64]bool{}, first: make(chan struct{})}
}

// read consumes a child's ledger until it closes.
func (b *book) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		b.mu.Lock()
		for _, s := range f[1:] {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				continue
			}
			if f[0] == "a" {
				delete(b.begun, id)
				b.acked[id] = true
			} else {
				b.begun[id] = true
			}
		}
		b.mu.Unlock()
		if f[0] == "a" {
			b.once.Do(func() { close(b.first) })
		}
	}
	return sc.Err()
}
