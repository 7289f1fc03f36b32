package llm

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout is how long a stream may stay silent (no event at all,
// the wait for the first one included) before it is abandoned as stalled.
const DefaultIdleTimeout = 5 * time.Minute

// Watchdog cancels a stream that stays silent too long, so a hung
// connection becomes a retryable error instead of a frozen session.
type Watchdog struct {
	d       time.Duration
	timer   *time.Timer
	stalled atomic.Bool
	cancel  context.CancelFunc
}

// Watch returns a context to run the stream under and its watchdog. d = 0
// means DefaultIdleTimeout; d < 0 disables the watchdog. Call Stop when the
// stream is done.
func Watch(ctx context.Context, d time.Duration) (context.Context, *Watchdog) {
	if d == 0 {
		d = DefaultIdleTimeout
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watchdog{d: d, cancel: cancel}
	if d > 0 {
		w.timer = time.AfterFunc(d, func() {
			w.stalled.Store(true)
			cancel()
		})
	}
	return ctx, w
}

// Touch records that the stream is alive.
func (w *Watchdog) Touch() {
	if w.timer != nil && !w.stalled.Load() {
		w.timer.Reset(w.d)
	}
}

// Stop releases the watchdog and its context.
func (w *Watchdog) Stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel()
}

// Stalled reports whether the watchdog fired.
func (w *Watchdog) Stalled() bool { return w.stalled.Load() }

// Error is the retryable error for a stalled stream.
func (w *Watchdog) Error(provider string) error {
	return &APIError{Provider: provider, Retryable: true, Kind: "stalled",
		Message: fmt.Sprintf("no data from the server for %v", w.d)}
}
