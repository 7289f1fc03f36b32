package scripted

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/safetext"
)

// Model plays a Script back, one response per Stream call.
type Model struct {
	script *Script
	// Window is what ContextWindow reports (default 200000).
	Window int

	mu    sync.Mutex
	next  int // index of the next response
	calls int // tool calls issued so far, for call_N ids
}

var _ llm.Provider = (*Model)(nil)

// Open loads the script at path; syntax errors are reported here, before
// any turn runs.
func Open(path string) (*Model, error) {
	s, err := Load(path)
	if err != nil {
		return nil, err
	}
	return New(s), nil
}

// New returns a model that plays s.
func New(s *Script) *Model { return &Model{script: s, Window: 200000} }

// Name implements llm.Provider.
func (m *Model) Name() string { return "scripted" }

// ContextWindow implements llm.Provider.
func (m *Model) ContextWindow(string) int { return m.Window }

// Remaining is the number of responses not yet played.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.script.responses) - m.next
}

// take claims the next response and the id base for its calls.
func (m *Model) take() (response, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	total := len(m.script.responses)
	if m.next >= total {
		m.next++
		return response{}, 0, fmt.Errorf("scripted model: %s has %d %s; a %s was requested",
			m.script.Path, total, plural(total, "response"), safetext.Ordinal(m.next))
	}
	r := m.script.responses[m.next]
	m.next++
	base := m.calls
	for _, st := range r.steps {
		if st.kind == stepCall || st.kind == stepCallRaw {
			m.calls++
		}
	}
	return r, base, nil
}

// Stream implements llm.Provider: it checks the expectations, then streams
// the block's text word by word and returns its calls.
func (m *Model) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	r, callBase, err := m.take()
	if err != nil {
		return llm.Response{}, err
	}
	if err := m.checkExpectations(r, req); err != nil {
		return llm.Response{}, err
	}
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	var (
		msg    = llm.Message{Role: llm.Assistant}
		text   strings.Builder
		stop   llm.StopReason
		said   bool
		outLen int
	)
	for _, st := range r.steps {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, err
		}
		switch st.kind {
		case stepSay:
			chunk := st.arg
			if said {
				chunk = "\n" + chunk
			}
			said = true
			text.WriteString(chunk)
			for _, w := range splitWords(chunk) {
				onDelta(llm.Delta{Text: w})
			}
		case stepCall, stepCallRaw:
			callBase++
			input, inErr := llm.ParseToolInput(st.name, st.arg)
			msg.Parts = append(msg.Parts, llm.Part{Type: llm.ToolUse, ID: fmt.Sprintf("call_%d", callBase),
				Name: st.name, Input: input, InputError: inErr})
			outLen += len(st.name) + len(st.arg)
		case stepSleep:
			if err := sleep(ctx, st.dur); err != nil {
				return llm.Response{}, err
			}
		case stepStop:
			stop = llm.StopReason(st.arg)
		case stepFail:
			return llm.Response{}, &llm.APIError{Provider: "scripted", Status: st.status,
				Message: st.arg, Retryable: llm.RetryableStatus(st.status)}
		}
	}
	if text.Len() > 0 {
		msg.Parts = append([]llm.Part{{Type: llm.Text, Text: text.String()}}, msg.Parts...)
	}
	if stop == "" {
		stop = llm.StopEnd
		if len(msg.ToolCalls()) > 0 {
			stop = llm.StopToolUse
		}
	}
	usage := llm.Usage{
		InputTokens:  tokens(requestLen(req)),
		OutputTokens: tokens(text.Len() + outLen),
	}
	return llm.Response{Message: msg, StopReason: stop, Usage: usage}, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// splitWords splits s into pieces that each end with a word, the blanks
// before a word going with it, so joining them gives s back.
func splitWords(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if isBlank(s[i]) && !isBlank(s[i-1]) {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// tokens estimates a token count from a byte length, about four bytes a
// token, at least one.
func tokens(n int) int64 { return int64(n/4 + 1) }

func requestLen(req llm.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			n += len(p.Text) + len(p.Name) + len(p.Input)
		}
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
