package agents

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// A reply is what the fake model answers to one request: text, and tool
// calls the agent is to run.
type reply struct {
	Text  string
	Calls []call
}

// call is one tool call: the agent's tool name and its input.
type call struct {
	Name  string
	Input map[string]any
}

// step is one turn of the script: the request must contain every expect
// string (what the hook told the model reaches it), then reply is sent.
type step struct {
	expect []string
	reply  reply
}

// fakeModel is a scripted model: it answers the agent's main requests
// (those offering tools) in order, and side requests (titles, summaries)
// with a short text. Every main request body is kept.
type fakeModel struct {
	mu       sync.Mutex
	t        *testing.T
	script   []step
	requests []string
	missed   []string
}

func scripted(t *testing.T, steps ...step) *fakeModel {
	return &fakeModel{t: t, script: steps}
}

func (m *fakeModel) next(body string) reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.requests)
	m.requests = append(m.requests, body)
	if n >= len(m.script) {
		m.missed = append(m.missed, "request "+itoa(n+1)+" is past the script's end")
		return reply{Text: "The script has ended."}
	}
	s := m.script[n]
	for _, e := range s.expect {
		if !strings.Contains(body, e) {
			m.missed = append(m.missed, "request "+itoa(n+1)+" lacks "+e)
		}
	}
	return s.reply
}

// check fails the test when a request lacked what it should hold, or the
// script was not played to its end.
func (m *fakeModel) check(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.missed {
		t.Error(e)
	}
	if len(m.requests) < len(m.script) {
		t.Errorf("the agent sent %d requests; the script has %d steps", len(m.requests), len(m.script))
	}
	if t.Failed() {
		for i, r := range m.requests {
			t.Logf("request %d: %s", i+1, conversation(r))
		}
	}
}

// conversation is the part of a request body a failing test shows: the
// messages (Anthropic) or input items (Responses), without the tools.
func conversation(body string) string {
	var req struct {
		Messages json.RawMessage `json:"messages"`
		Input    json.RawMessage `json:"input"`
	}
	json.Unmarshal([]byte(body), &req)
	s := string(req.Messages) + string(req.Input)
	if len(s) > 6000 {
		s = "…" + s[len(s)-6000:]
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
