package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fake answers Stream from a list of outcomes: an error, or a text that is
// streamed as one delta.
type fake struct {
	outcomes []any
	calls    int
}

func (f *fake) Name() string             { return "fake" }
func (f *fake) ContextWindow(string) int { return 42 }

func (f *fake) Stream(_ context.Context, _ Request, onDelta func(Delta)) (Response, error) {
	o := f.outcomes[f.calls]
	f.calls++
	switch v := o.(type) {
	case error:
		return Response{}, v
	case partial:
		onDelta(Delta{Text: string(v)})
		return Response{}, &APIError{Provider: "fake", Retryable: true, Err: ErrStreamDropped}
	case string:
		onDelta(Delta{Text: v})
		return Response{Message: Message{Role: Assistant, Parts: []Part{{Type: Text, Text: v}}}}, nil
	}
	panic(fmt.Sprintf("bad outcome %T", o))
}

// partial streams text, then fails as a dropped stream.
type partial string

func status(code int) error {
	return &APIError{Provider: "fake", Status: code, Message: http.StatusText(code), Retryable: RetryableStatus(code)}
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name      string
		outcomes  []any
		opts      RetryOptions
		wantErr   string
		wantWaits []time.Duration
		wantCalls int
	}{
		{name: "success first", outcomes: []any{"hi"}, wantCalls: 1},
		{name: "backoff doubles and caps", outcomes: []any{status(500), status(502), status(503), status(529), "ok"},
			opts:      RetryOptions{BaseDelay: time.Second, MaxDelay: 3 * time.Second},
			wantWaits: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}, wantCalls: 5},
		{name: "retry-after wins and is capped", outcomes: []any{
			&APIError{Provider: "fake", Status: 429, Retryable: true, RetryAfter: 10 * time.Minute}, "ok"},
			wantWaits: []time.Duration{60 * time.Second}, wantCalls: 2},
		{name: "400 not retried", outcomes: []any{status(400)}, wantErr: "fake: bad request (400): Bad Request", wantCalls: 1},
		{name: "403 not retried", outcomes: []any{status(403)}, wantErr: "fake: permission denied (403): Forbidden", wantCalls: 1},
		{name: "plain error not retried", outcomes: []any{errors.New("boom")}, wantErr: "boom", wantCalls: 1},
		{name: "gives up", outcomes: []any{status(529), status(529), status(529)}, opts: RetryOptions{MaxAttempts: 3},
			wantErr: "fake: overloaded (529) (gave up after 3 attempts)", wantWaits: []time.Duration{time.Second, 2 * time.Second}, wantCalls: 3},
		{name: "no retry after text was shown", outcomes: []any{partial("Hal"), "Hello"},
			wantErr: "fake: connection error: stream ended before the message was complete (stream broke after output began; not retried)", wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{outcomes: tt.outcomes}
			var waits []time.Duration
			opts := tt.opts
			opts.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			opts.Jitter = func(d time.Duration) time.Duration { return d }
			p := WithRetry(f, opts)
			_, err := p.Stream(context.Background(), Request{}, func(Delta) {})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("err = %q\nwant  %q", got, tt.wantErr)
			}
			if fmt.Sprint(waits) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits = %v, want %v", waits, tt.wantWaits)
			}
			if f.calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", f.calls, tt.wantCalls)
			}
			if p.Name() != "fake" || p.ContextWindow("") != 42 {
				t.Errorf("decorator hides Name/ContextWindow")
			}
		})
	}
}

func TestRetryStopsOnCancel(t *testing.T) {
	f := &fake{outcomes: []any{status(500), "never"}}
	ctx, cancel := context.WithCancel(context.Background())
	p := WithRetry(f, RetryOptions{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepCtx(ctx, d)
	}})
	_, err := p.Stream(ctx, Request{}, nil)
	if err == nil || f.calls != 1 || !strings.Contains(err.Error(), "(500)") {
		t.Errorf("err %v, calls %d", err, f.calls)
	}
}

func TestHalfJitter(t *testing.T) {
	for range 100 {
		if d := halfJitter(time.Second); d < 500*time.Millisecond || d > time.Second {
			t.Fatalf("jitter %v outside [0.5s, 1s]", d)
		}
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(20 * time.Second).Format(http.TimeFormat)}}, 20 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-4"}}, 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.h, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestParseToolInput(t *testing.T) {
	tests := []struct{ raw, input, errText string }{
		{"", "{}", ""},
		{"  ", "{}", ""},
		{`{"path":"a.go"}`, `{"path":"a.go"}`, ""},
		{`{"path": "a.go", "old_`, "{}", `invalid JSON arguments for tool "edit": unexpected end of input`},
		{`[1,2]`, "{}", `invalid JSON arguments for tool "edit": json: cannot unmarshal array`},
		{`null`, "{}", `invalid JSON arguments for tool "edit": expected an object, got null`},
		{`{"a":1} trailing`, "{}", `invalid JSON arguments for tool "edit": invalid character 't' after top-level value`},
	}
	for _, tt := range tests {
		in, msg := ParseToolInput("edit", tt.raw)
		if string(in) != tt.input || !strings.HasPrefix(msg, tt.errText) || (tt.errText == "") != (msg == "") {
			t.Errorf("ParseToolInput(%q) = %s, %q; want %s, %q", tt.raw, in, msg, tt.input, tt.errText)
		}
	}
}

func TestTransportError(t *testing.T) {
	if err := TransportError("x", context.Canceled); err != context.Canceled {
		t.Errorf("cancel became %v", err)
	}
	for _, err := range []error{syscall.ECONNRESET, fmt.Errorf("read: %w", syscall.ECONNREFUSED), ErrStreamDropped} {
		if !IsRetryable(TransportError("x", err)) {
			t.Errorf("%v not retryable", err)
		}
	}
	if IsRetryable(TransportError("x", errors.New("x509: certificate signed by unknown authority"))) {
		t.Errorf("certificate error retryable")
	}
}

func TestKnownContextWindow(t *testing.T) {
	for model, want := range map[string]int{
		"claude-sonnet-4-5": 200000, "claude-opus-4-1-20250805": 200000, "gpt-5": 400000, "gpt-5-mini": 400000,
		"gpt-4o": 128000, "gpt-4o-mini": 128000, "gpt-4.1": 1047576, "gpt-4": 8192, "o3-mini": 200000,
		"qwen3-coder": DefaultContextWindow, "anthropic/claude-sonnet-4": 200000, "": DefaultContextWindow,
	} {
		if got := KnownContextWindow(model); got != want {
			t.Errorf("KnownContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
	u := Usage{InputTokens: 10, CacheReadTokens: 100, CacheCreateTokens: 5, OutputTokens: 7}
	if u.TotalInput() != 115 {
		t.Errorf("TotalInput = %d", u.TotalInput())
	}
}
