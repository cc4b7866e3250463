package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

func TestParseCommit(t *testing.T) {
	ok := map[string]Commit{
		"op": {Mode: PerOp}, "unit": {Mode: PerUnit, Every: 1}, "every:10": {Mode: PerUnits, Every: 10},
	}
	for in, want := range ok {
		got, err := ParseCommit(in)
		if err != nil || got != want {
			t.Errorf("ParseCommit(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if got.String() != in {
			t.Errorf("String() = %q, want %q", got.String(), in)
		}
	}
	for _, in := range []string{"", "ops", "every:", "every:0", "every:-1", "every:x"} {
		if _, err := ParseCommit(in); !errors.As(err, new(*knob.Error)) {
			t.Errorf("ParseCommit(%q) = %v, want a bad-input error", in, err)
		}
	}
}

func FuzzParseCommit(f *testing.F) {
	for _, s := range []string{"op", "unit", "every:3", "every:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCommit(s)
		if err != nil {
			return
		}
		again, err := ParseCommit(c.String())
		if err != nil || again != c {
			t.Fatalf("%q parsed to %+v, which does not round-trip (%+v, %v)", s, c, again, err)
		}
	})
}

// TestDeckProportions: every full deck deals each kind exactly its weight.
func TestDeckProportions(t *testing.T) {
	units := []Weighted{{Name: "a", Weight: 45}, {Name: "b", Weight: 43}, {Name: "c", Weight: 4}, {Name: "d", Weight: 4}, {Name: "e", Weight: 4}}
	d := NewDeck(units, rand.New(rand.NewPCG(1, 2)))
	counts := make([]int, len(units))
	for range 100 * 3 {
		counts[d.Deal()]++
	}
	for i, u := range units {
		if counts[i] != 3*u.Weight {
			t.Errorf("%s dealt %d times in 3 decks, want %d", u.Name, counts[i], 3*u.Weight)
		}
	}
}

func TestGroup(t *testing.T) {
	g := Group{Commit: Commit{Mode: PerUnits, Every: 3}}
	var commits []bool
	for range 6 {
		due := g.UnitEnds()
		commits = append(commits, due)
		if due {
			g.Pending = 0
		}
	}
	want := []bool{false, false, true, false, false, true}
	for i := range want {
		if commits[i] != want[i] {
			t.Fatalf("every:3 commit pattern %v, want %v", commits, want)
		}
	}
	op := Group{Commit: Commit{Mode: PerOp}}
	if op.UnitBegins() || op.UnitEnds() {
		t.Error("commit op: the unit itself neither begins nor commits")
	}
	if LostUnits(&Lost{Units: 2, Err: errors.New("x")}) != 2 || LostUnits(errors.New("x")) != 0 {
		t.Error("LostUnits")
	}
}

// fakeKV is a key-value engine whose connections are nil: enough to tell
// the APIs apart.
type fakeKV struct{ backend.DB }

func (fakeKV) KVConn(context.Context) (backend.KVConn, error) { return nil, nil }

// TestConnOf: a workload gets a connection of the API it speaks, and a
// named error from an engine that does not speak it.
func TestConnOf(t *testing.T) {
	ctx := context.Background()
	if _, err := KVConnOf(ctx, "kv", fakeKV{}); err != nil {
		t.Errorf("KVConnOf(a key-value engine) = %v", err)
	}
	if _, err := SQLConnOf(ctx, "tpcb", fakeKV{}); err == nil || !strings.HasPrefix(err.Error(), "tpcb: backend workload.fakeKV does not speak SQL") {
		t.Errorf("SQLConnOf(a key-value engine) = %v", err)
	}
	if _, err := KVConnOf(ctx, "kv", struct{ backend.DB }{}); err == nil || !strings.HasPrefix(err.Error(), "kv: backend") {
		t.Errorf("KVConnOf(an engine that is neither) = %v", err)
	}
}

// txLog records a connection's transaction calls; the rest of the
// connection is nil.
type txLog struct {
	backend.KVConn
	calls []string
}

func (l *txLog) Begin(_ context.Context, write bool) error {
	l.calls = append(l.calls, fmt.Sprintf("begin(write=%v)", write))
	return nil
}
func (l *txLog) Commit(context.Context) error   { l.calls = append(l.calls, "commit"); return nil }
func (l *txLog) Rollback(context.Context) error { l.calls = append(l.calls, "rollback"); return nil }

// sqlLog is txLog as a SQL connection.
type sqlLog struct {
	backend.Conn
	*txLog
}

func (l sqlLog) Begin(ctx context.Context) error    { return l.txLog.Begin(ctx, true) }
func (l sqlLog) Commit(ctx context.Context) error   { return l.txLog.Commit(ctx) }
func (l sqlLog) Rollback(ctx context.Context) error { return l.txLog.Rollback(ctx) }

// TestInTx: the work is committed when it succeeds, rolled back and its
// error returned when it fails.
func TestInTx(t *testing.T) {
	boom := errors.New("boom")
	for _, c := range []struct {
		name string
		work error
		want string
	}{{"work=ok", nil, "begin(write=true) commit"}, {"work=failed", boom, "begin(write=true) rollback"}} {
		kv, sql := &txLog{}, sqlLog{txLog: &txLog{}}
		errKV := InKVTx(context.Background(), kv, func() error { return c.work })
		errSQL := InSQLTx(context.Background(), sql, func() error { return c.work })
		for api, got := range map[string]struct {
			calls []string
			err   error
		}{"kv": {kv.calls, errKV}, "sql": {sql.calls, errSQL}} {
			if strings.Join(got.calls, " ") != c.want || !errors.Is(got.err, c.work) || (c.work == nil) != (got.err == nil) {
				t.Errorf("%s/%s: %v, %v; want %s, %v", c.name, api, got.calls, got.err, c.want, c.work)
			}
		}
	}
}
