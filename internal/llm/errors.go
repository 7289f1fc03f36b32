package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chanto-dev/chanto/internal/safetext"
)

// APIError is a classified provider failure. Providers return it (wrapped or
// not) so the retry decorator and the agent can decide what to do without
// knowing which SDK produced it.
type APIError struct {
	// Provider is the provider name (anthropic, openai, local…).
	Provider string
	// Status is the HTTP status, or 0 for a transport failure (connection
	// reset, dropped stream) and for an error event inside a stream.
	Status int
	// Kind is the provider's error type when it sent one
	// (overloaded_error, rate_limit_error, …).
	Kind string
	// Message is the provider's human-readable message.
	Message string
	// Hint is one short sentence telling the user what to do (e.g. which
	// variable holds the key).
	Hint string
	// RetryAfter is the server's requested wait, 0 when it named none.
	RetryAfter time.Duration
	// Retryable says whether sending the same request again may succeed.
	Retryable bool
	// Err is the underlying error, if any.
	Err error
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	b.WriteString(e.summary())
	if e.Hint != "" {
		b.WriteString(": ")
		b.WriteString(e.Hint)
	} else if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(oneLine(e.Message))
	} else if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(oneLine(e.Err.Error()))
	}
	return b.String()
}

// summary names the failure class with its status.
func (e *APIError) summary() string {
	what := "request failed"
	switch {
	case e.Status == 401:
		what = "authentication failed"
	case e.Status == 403:
		what = "permission denied"
	case e.Status == 404:
		what = "not found"
	case e.Status == 400:
		what = "bad request"
	case e.Status == 429:
		what = "rate limited"
	case e.Status == 529 || e.Kind == "overloaded_error":
		what = "overloaded"
	case e.Status >= 500:
		what = "server error"
	case e.Status == 0 && e.Kind == "stalled":
		what = "stream stalled"
	case e.Status == 0 && e.Kind != "":
		what = "stream error " + e.Kind
	case e.Status == 0:
		what = "connection error"
	}
	if e.Status != 0 {
		return fmt.Sprintf("%s (%d)", what, e.Status)
	}
	return what
}

func (e *APIError) Unwrap() error { return e.Err }

// oneLine keeps the first line of s, trimmed to a readable length.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return safetext.Cut(s, 300)
}

// IsRetryable reports whether err is an APIError marked retryable.
func IsRetryable(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Retryable
}

// RetryableStatus reports whether an HTTP status is worth retrying: rate
// limits, request timeouts, conflicts, and server errors including
// Anthropic's 529 overloaded.
func RetryableStatus(status int) bool {
	switch {
	case status == 408, status == 409, status == 429:
		return true
	case status >= 500:
		return true
	}
	return false
}

// ParseToolInput turns streamed tool arguments into a ToolUse part's Input.
// Empty arguments mean {}. Arguments that are not a JSON object leave Input
// as {} and explain why in the returned message, which the agent sends back
// to the model so it can retry the call.
func ParseToolInput(tool, raw string) (json.RawMessage, string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return json.RawMessage(`{}`), ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil {
		msg := err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) && msg == "unexpected end of JSON input" {
			msg = "unexpected end of input"
		}
		return json.RawMessage(`{}`), fmt.Sprintf("invalid JSON arguments for tool %q: %s", tool, msg)
	}
	if obj == nil {
		return json.RawMessage(`{}`), fmt.Sprintf("invalid JSON arguments for tool %q: expected an object, got null", tool)
	}
	return json.RawMessage(raw), ""
}

// RetryAfter reads a server's requested wait from retry-after-ms or
// retry-after (seconds or an HTTP date); 0 when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// HTTPError classifies an HTTP error response. hint replaces the server's
// message for a 401 (e.g. "check ANTHROPIC_API_KEY").
func HTTPError(provider string, status int, kind, message string, h http.Header, hint string, err error) *APIError {
	e := &APIError{
		Provider:   provider,
		Status:     status,
		Kind:       kind,
		Message:    message,
		RetryAfter: RetryAfter(h, time.Now()),
		Retryable:  RetryableStatus(status) || kind == "overloaded_error",
		Err:        err,
	}
	if status == 401 {
		e.Hint = hint // the server's wording adds nothing to "check the key"
	}
	return e
}

// ErrStreamDropped marks a stream that ended before the provider said the
// message was complete.
var ErrStreamDropped = errors.New("stream ended before the message was complete")

// TransportError classifies a failure that is not an HTTP error status:
// cancellation passes through untouched; connection failures, timeouts
// and truncated streams become a retryable APIError.
func TransportError(provider string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return err
	}
	return &APIError{Provider: provider, Retryable: isTransient(err), Message: err.Error(), Err: err}
}

// isTransient reports whether err looks like a network hiccup.
func isTransient(err error) bool {
	if errors.Is(err, ErrStreamDropped) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTemporary || dns.IsTimeout
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"connection reset", "broken pipe", "unexpected EOF", "server closed", "stream error", "http2", "EOF"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
