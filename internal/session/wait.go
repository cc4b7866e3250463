package session

import (
	"context"
	"errors"
	"time"
)

// Every wait of the session is bounded and ends at the session's stop
// (the first interrupt), not only at the second: until the clients run,
// a stop has no units in flight to finish, so it ends whatever the session
// waits for (a server's start, shard 0's load, a replica's copy).

// ErrInterrupted is the cause of the session's waits ending at its stop:
// the session stopped before its clients ran. Execute's error wraps it.
var ErrInterrupted = errors.New("interrupted")

// untilStop returns ctx, canceled with ErrInterrupted when stop closes as
// well; release stops watching stop (the context stays as it is then).
func untilStop(ctx context.Context, stop <-chan struct{}) (_ context.Context, release func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		select {
		case <-stop:
			cancel(ErrInterrupted)
		case <-done:
		case <-wctx.Done():
		}
	}()
	return wctx, func() { close(done) }
}

// errWaitedOut is poll's error when its bound passed.
var errWaitedOut = errors.New("waited out")

// poll calls done every tick (at once first) until it reports true, for at
// most limit; it returns errWaitedOut when limit passed, and the cause of
// ctx's end (ErrInterrupted for the session's stop) when that came first.
func poll(ctx context.Context, limit, tick time.Duration, done func() bool) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	t := time.NewTicker(tick)
	defer t.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-deadline.C:
			if done() {
				return nil
			}
			return errWaitedOut
		case <-t.C:
		}
	}
	return nil
}
