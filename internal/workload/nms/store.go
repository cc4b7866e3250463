package nms

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// terminal is a VSAT or a CU row: a dozen columns of state.
type terminal struct {
	ID         int64
	Name       string
	Status     int64
	Admin      int64
	Oper       int64
	FreqHz     int64
	PowerDBm   int64
	Calls      int64
	Updates    int64 // incremented by every update: the checks sum it
	LastChange int64 // µs since the epoch
	Alarm      string
	Note       string
}

// channel is a frequency channel allocated to a call.
type channel struct {
	ID          int64
	VSAT        int64
	CU          int64
	FreqHz      int64
	BandwidthHz int64
	PowerDBm    int64
	State       int64
	Created     int64 // µs since the epoch
}

// update is the new state an update writes.
type update struct {
	Status, Oper, PowerDBm, LastChange int64
	Note                               string
}

// tally is the dataset's state, for baselines and checks.
type tally struct {
	vsats, cus, channels   int64
	vsatUpdates, cuUpdates int64
	maxChannel             int64
	orphans                int64 // only when asked: it costs a join
}

// store is what a call needs from an engine; sqlStore and kvStore implement
// it. A store is used by one goroutine.
type store interface {
	begin(ctx context.Context) error
	commit(ctx context.Context) error
	rollback(ctx context.Context) error
	insertChannel(ctx context.Context, ch *channel) error
	deleteChannel(ctx context.Context, id int64) error
	updateVSAT(ctx context.Context, id int64, u *update) error
	updateCU(ctx context.Context, id int64, u *update) error

	datasetLines(ctx context.Context) (lines int, found bool, err error)
	rebuild(ctx context.Context, lines, channels int, g *generator) error
	tally(ctx context.Context, orphans bool) (tally, error)
	ownedChannels(ctx context.Context, clients, id int64) ([]int64, error)
	close() error
}

// generator makes the same dataset for the same number of lines.
type generator struct {
	rng   *rand.Rand
	lines int
}

func newGenerator(lines int) *generator {
	return &generator{rng: rand.New(rand.NewPCG(0x6e6d73, uint64(lines))), lines: lines}
}

func (g *generator) terminal(prefix string, id int64) *terminal {
	r := g.rng
	return &terminal{
		ID: id, Name: fmt.Sprintf("%s-%06d", prefix, id),
		Status: r.Int64N(8), Admin: 1, Oper: r.Int64N(4),
		FreqHz: 11_700_000_000 + r.Int64N(500_000_000), PowerDBm: r.Int64N(40) - 10,
		Alarm: "none", Note: "commissioned",
	}
}

func (g *generator) channel(id int64) *channel {
	r := g.rng
	return &channel{
		ID: id, VSAT: 1 + r.Int64N(int64(g.lines)), CU: 1 + r.Int64N(int64(g.lines)),
		FreqHz: 14_000_000_000 + r.Int64N(500_000_000), BandwidthHz: 64_000 * (1 + r.Int64N(32)),
		PowerDBm: r.Int64N(30), State: 1,
	}
}

// notes are the text written by updates: fixed, so that no call allocates one.
func notes() []string {
	words := []string{"link up", "rain fade", "carrier lost", "power adjusted", "call setup", "call cleared", "SSR received", "retune", "alarm raised", "alarm cleared"}
	out := make([]string, 0, 64)
	for i := range 64 {
		n := ""
		for j := 0; j <= i%7; j++ {
			if j > 0 {
				n += "; "
			}
			n += words[(i+j*3)%len(words)]
		}
		out = append(out, n)
	}
	return out
}

// procCall is one call's operations, for a stored procedure.
type procCall struct {
	ch      channel
	updates []procUpdate
	del     int64
}

type procUpdate struct {
	id   int64
	vsat bool
	u    update
}

// procedureStore is a store on an engine with stored procedures.
type procedureStore interface {
	createProcedure(ctx context.Context, updates int) error
	call(ctx context.Context, c *procCall) error
}
