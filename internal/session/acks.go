package session

import (
	"context"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// ackGap reads the ledger around mid (the middle of an outage a kill
// made): the last commit acknowledged before it and the first after it, on
// the time line (0: none), and the time between (0 unless both exist).
func (s *session) ackGap(mid time.Time) (lastT, firstT, gap float64) {
	before, after := s.ledger.AckedAround(mid)
	if !before.IsZero() {
		lastT = before.Sub(s.t0).Seconds()
	}
	if !after.IsZero() {
		firstT = after.Sub(s.t0).Seconds()
		if !before.IsZero() {
			gap = after.Sub(before).Seconds()
		}
	}
	return lastT, firstT, gap
}

// heldNow reads the ids db holds and holds them to the ledger as it stands
// after the run: how many commits were acknowledged, and what is lost,
// in flight or never committed. ok is false for a workload that keeps no
// ledger.
func (s *session) heldNow(ctx context.Context, db backend.DB) (acked int64, v ledger.Verdict, ok bool, err error) {
	led, ok := s.w.(workload.Ledgered)
	if !ok || s.ledger == nil {
		return 0, v, false, nil
	}
	present, err := led.Present(ctx, db)
	if err != nil {
		return 0, v, true, err
	}
	end := time.Now()
	acked, _ = s.ledger.Counts()
	return acked, s.ledger.Verify(present, end, end), true, nil
}
