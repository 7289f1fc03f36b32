package agent

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/llm/scripted"
	"github.com/chanto-dev/chanto/internal/tool"
)

// script returns the scripted model playing text.
func script(t *testing.T, text string) *scripted.Model {
	t.Helper()
	s, err := scripted.Parse("test.script", text)
	if err != nil {
		t.Fatal(err)
	}
	return scripted.New(s)
}

// echoTool returns its "text" argument, after an optional delay. It stands
// in for a real tool where the loop, not the tool, is under test.
type echoTool struct {
	name     string
	readOnly bool
	delay    time.Duration
	fail     bool
}

func (e echoTool) Name() string            { return e.name }
func (e echoTool) Description() string     { return "echo the text back" }
func (e echoTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (e echoTool) ReadOnly() bool          { return e.readOnly }
func (e echoTool) Run(ctx context.Context, _ *tool.Env, in json.RawMessage) (tool.Result, error) {
	var args struct{ Text string }
	_ = json.Unmarshal(in, &args)
	if e.delay > 0 {
		select {
		case <-time.After(e.delay):
		case <-ctx.Done():
			return tool.Result{Output: "partial"}, ctx.Err()
		}
	}
	if e.fail {
		return tool.Result{}, context.DeadlineExceeded
	}
	return tool.Result{Output: e.name + ":" + args.Text}, nil
}

// recorder collects events and transcript messages.
type recorder struct {
	mu       sync.Mutex
	events   []event.Event
	messages []llm.Message
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) Append(m llm.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.messages = append(r.messages, m)
	return nil
}

func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ts []string
	for _, e := range r.events {
		if e.Type != event.MessageDelta {
			ts = append(ts, e.Type)
		}
	}
	return ts
}

func (r *recorder) of(typ string) []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var es []event.Event
	for _, e := range r.events {
		if e.Type == typ {
			es = append(es, e)
		}
	}
	return es
}
