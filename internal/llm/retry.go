package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryOptions configures WithRetry. Zero fields take the defaults.
type RetryOptions struct {
	// MaxAttempts is the total number of tries, the first included (default 5).
	MaxAttempts int
	// BaseDelay is the wait before the second try; it doubles each time
	// (default 1s).
	BaseDelay time.Duration
	// MaxDelay caps one computed wait (default 30s). A server's
	// retry-after is honoured up to MaxRetryAfter instead.
	MaxDelay time.Duration
	// MaxRetryAfter caps a server-requested wait (default 60s).
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx is done (default: a timer). Tests replace
	// it to record the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter maps a computed backoff to the wait actually used (default:
	// a uniform pick in [d/2, d]). Not applied to server-requested waits.
	Jitter func(d time.Duration) time.Duration
}

func (o RetryOptions) withDefaults() RetryOptions {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = time.Second
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = 30 * time.Second
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 60 * time.Second
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.Jitter == nil {
		o.Jitter = halfJitter
	}
	return o
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func halfJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// WithRetry wraps p so that retryable failures (429, 5xx, 529 overloaded,
// connection resets, dropped streams) are tried again with exponential
// backoff and jitter, honouring the server's retry-after. Other failures
// (400, 401, 403, 404, cancellation) return at once.
//
// A call is retried only while no text has been streamed to onDelta: once
// the user has seen part of an answer, a second attempt could show it twice
// or show a different answer glued to the first, so the error is returned
// (still marked retryable) and the caller decides, for example by starting
// the turn over. Tool-call arguments are not streamed to onDelta, so a
// stream cut while the model writes a tool call is retried.
func WithRetry(p Provider, opts RetryOptions) Provider {
	return &retrying{Provider: p, opts: opts.withDefaults()}
}

type retrying struct {
	Provider
	opts RetryOptions
}

// Unwrap returns the wrapped provider.
func (r *retrying) Unwrap() Provider { return r.Provider }

func (r *retrying) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	delivered := false
	forward := func(d Delta) {
		if d.Text != "" {
			delivered = true
		}
		if onDelta != nil {
			onDelta(d)
		}
	}
	var lastErr error
	for attempt := 1; ; attempt++ {
		resp, err := r.Provider.Stream(ctx, req, forward)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			return Response{}, err
		}
		if !IsRetryable(err) {
			return Response{}, err
		}
		if delivered {
			return Response{}, &RetryError{Attempts: attempt, Err: err, AfterOutput: true}
		}
		if attempt >= r.opts.MaxAttempts {
			break
		}
		if serr := r.opts.Sleep(ctx, r.wait(attempt, err)); serr != nil {
			return Response{}, lastErr
		}
	}
	return Response{}, &RetryError{Attempts: r.opts.MaxAttempts, Err: lastErr}
}

// wait is the pause after the given failed attempt (1-based).
func (r *retrying) wait(attempt int, err error) time.Duration {
	var ae *APIError
	if errors.As(err, &ae) && ae.RetryAfter > 0 {
		return min(ae.RetryAfter, r.opts.MaxRetryAfter)
	}
	d := r.opts.BaseDelay
	for i := 1; i < attempt && d < r.opts.MaxDelay; i++ {
		d *= 2
	}
	return r.opts.Jitter(min(d, r.opts.MaxDelay))
}

// RetryError is returned when retries ran out, or when a retryable failure
// happened after text had already been streamed.
type RetryError struct {
	Attempts    int
	AfterOutput bool
	Err         error
}

func (e *RetryError) Error() string {
	if e.AfterOutput {
		return fmt.Sprintf("%v (stream broke after output began; not retried)", e.Err)
	}
	return fmt.Sprintf("%v (gave up after %d attempts)", e.Err, e.Attempts)
}

func (e *RetryError) Unwrap() error { return e.Err }
