package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/tool"
)

func newAgent(t *testing.T, text string, rec *recorder, mod func(*Options)) *Agent {
	t.Helper()
	opts := Options{
		Provider:   script(t, text),
		Model:      "test",
		Tools:      []tool.Tool{echoTool{name: "bash"}, echoTool{name: "read", readOnly: true}},
		Sink:       rec,
		Transcript: rec,
		SessionID:  "s1",
	}
	if mod != nil {
		mod(&opts)
	}
	return New(opts)
}

func TestLoop(t *testing.T) {
	tests := []struct {
		name   string
		script string
		mod    func(*Options)
		answer string
		err    string
		calls  int
	}{
		{name: "plain answer", script: "say hello there\n", answer: "hello there", calls: 1},
		{name: "tool then answer", script: `call bash {"text":"hi"}
---
expect bash:hi
say done
`, answer: "done", calls: 2},
		{name: "unknown tool", script: `call bsh {"text":"hi"}
---
expect unknown tool "bsh"; available: bash, read
say sorry
`, answer: "sorry", calls: 2},
		{name: "malformed arguments", script: `call-raw bash {"text": "unterminated
---
expect invalid JSON arguments for tool "bash"
expect nothing ran
say retried
`, answer: "retried", calls: 2},
		{name: "infrastructure error becomes a result", script: `call slow {}
---
expect slow could not run
say ok
`, mod: func(o *Options) { o.Tools = append(o.Tools, echoTool{name: "slow", fail: true}) }, answer: "ok", calls: 2},
		{name: "max turns", script: "call bash {}\n---\ncall bash {}\n---\nsay never\n",
			mod: func(o *Options) { o.MaxTurns = 2 }, err: "reached --max-turns 2", calls: 2},
		{name: "refused by approver", script: `call bash {"text":"rm -rf"}
---
expect bash refused: permission mode "default" asks before running commands, and print mode cannot ask; rerun with --permission-mode bypass
say understood
`, mod: func(o *Options) { o.Approver = ModeApprover{Mode: ModeDefault} }, answer: "understood", calls: 2},
		{name: "provider error", script: "fail 401 invalid x-api-key\n", err: "invalid x-api-key", calls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			a := newAgent(t, tc.script, rec, tc.mod)
			out, err := a.Run(context.Background(), "go")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if out.Answer != tc.answer {
				t.Errorf("answer = %q, want %q", out.Answer, tc.answer)
			}
			if out.ModelCalls != tc.calls {
				t.Errorf("model calls = %d, want %d", out.ModelCalls, tc.calls)
			}
			ts := rec.types()
			if ts[0] != event.TurnStarted || ts[len(ts)-1] != event.TurnCompleted {
				t.Errorf("events = %v, want turn.started … turn.completed", ts)
			}
			if len(rec.messages) != len(a.Messages()) {
				t.Errorf("transcript has %d messages, conversation %d", len(rec.messages), len(a.Messages()))
			}
		})
	}
}

func TestEventsOfAToolCall(t *testing.T) {
	rec := &recorder{}
	a := newAgent(t, "say let me look\ncall read {\"text\":\"x\"}\n---\nsay fine\n", rec, nil)
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := []string{event.TurnStarted, event.MessageCompleted, event.ToolStarted, event.ToolCompleted, event.MessageCompleted, event.TurnCompleted}
	if got := rec.types(); !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	var deltas strings.Builder
	for _, e := range rec.of(event.MessageDelta) {
		deltas.WriteString(e.Text)
	}
	if deltas.String() != "let me lookfine" {
		t.Errorf("deltas = %q", deltas.String())
	}
	done := rec.of(event.ToolCompleted)[0]
	if done.Tool.Output != "read:x" || done.Tool.ID == "" || done.SessionID != "s1" || done.Time.IsZero() {
		t.Errorf("tool.completed = %+v %+v", done, done.Tool)
	}
	u := rec.of(event.TurnCompleted)[0].Usage
	if u == nil || u.InputTokens == 0 || u.OutputTokens == 0 {
		t.Errorf("turn.completed usage = %+v", u)
	}
}

func TestReadOnlyCallsRunInParallelInOrder(t *testing.T) {
	rec := &recorder{}
	s := `call look {"text":"1"}
call look {"text":"2"}
call look {"text":"3"}
call bash {"text":"4"}
---
say done
`
	a := newAgent(t, s, rec, func(o *Options) {
		o.Tools = append(o.Tools, echoTool{name: "look", readOnly: true, delay: 300 * time.Millisecond})
	})
	start := time.Now()
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 800*time.Millisecond {
		t.Errorf("three 300ms read-only calls took %v; they should overlap", d)
	}
	msgs := a.Messages()
	results := msgs[len(msgs)-2].Parts
	var got []string
	for _, p := range results {
		got = append(got, p.Text)
	}
	if want := []string{"look:1", "look:2", "look:3", "bash:4"}; !slices.Equal(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
}

// sendBackPolicy sends the first answer back and accepts the second with a verdict.
type sendBackPolicy struct {
	NoPolicy
	seen []string
}

func (p *sendBackPolicy) OnFinal(_ context.Context, st *TurnState, answer string) StopDecision {
	p.seen = append(p.seen, answer)
	if st.SendBacks == 0 {
		return SendBack("tests fail: TestX")
	}
	return StopDecision{Verdict: Verified, Evidence: "Verified: go test ./... (1s) passed."}
}

func (p *sendBackPolicy) AfterTool(_ context.Context, _ *TurnState, call llm.Part, _ tool.Result) string {
	return "note for " + call.Name
}

func TestStopPolicy(t *testing.T) {
	rec := &recorder{}
	p := &sendBackPolicy{}
	s := `say first
---
expect tests fail: TestX
call bash {"text":"fix"}
---
expect bash:fix
expect note for bash
say second
`
	a := newAgent(t, s, rec, func(o *Options) { o.Policy = p })
	out, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.seen, []string{"first", "second"}) {
		t.Errorf("policy saw %v", p.seen)
	}
	if out.Answer != "second" || out.Verdict != Verified || !strings.HasPrefix(out.Evidence, "Verified:") {
		t.Errorf("outcome = %+v", out)
	}
}

func TestInterrupt(t *testing.T) {
	rec := &recorder{}
	a := newAgent(t, "call slow {}\n---\nsay never\n", rec, func(o *Options) {
		o.Tools = append(o.Tools, echoTool{name: "slow", delay: 10 * time.Second})
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := a.Run(ctx, "go")
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	// The call's result is recorded so the conversation can be resumed.
	last := rec.messages[len(rec.messages)-1]
	if len(last.Parts) != 1 || last.Parts[0].Type != llm.ToolResult || !strings.Contains(last.Parts[0].Text, "interrupted") {
		t.Errorf("last transcript message = %+v", last)
	}
}

func TestInterruptWhileStreaming(t *testing.T) {
	rec := &recorder{}
	a := newAgent(t, "sleep 10s\nsay never\n", rec, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := a.Run(ctx, "go"); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if len(rec.messages) != 1 || rec.messages[0].TextOf() != "go" {
		t.Errorf("transcript = %+v, want just the prompt", rec.messages)
	}
}

func TestHistoryIsContinued(t *testing.T) {
	rec := &recorder{}
	history := []llm.Message{userText("remember 42"), {Role: llm.Assistant, Parts: []llm.Part{{Type: llm.Text, Text: "ok"}}}}
	a := newAgent(t, "expect-any remember 42\nexpect what was it\nsay 42\n", rec, func(o *Options) { o.History = history })
	out, err := a.Run(context.Background(), "what was it")
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "42" || len(rec.messages) != 2 {
		t.Errorf("answer %q, %d new transcript messages (want 2)", out.Answer, len(rec.messages))
	}
}

func TestResumeAfterInterruptedTools(t *testing.T) {
	// The session ended on tool results (an interrupt); the next prompt
	// must not make two user messages in a row for the provider.
	history := []llm.Message{
		userText("run it"),
		{Role: llm.Assistant, Parts: []llm.Part{{Type: llm.ToolUse, ID: "c1", Name: "bash", Input: []byte(`{}`)}}},
		{Role: llm.User, Parts: []llm.Part{{Type: llm.ToolResult, ID: "c1", Text: "[interrupted by the user]", IsError: true}}},
	}
	var seen []llm.Message
	p := providerFunc(func(req llm.Request) llm.Response {
		seen = req.Messages
		return llm.Response{Message: llm.Message{Role: llm.Assistant, Parts: []llm.Part{{Type: llm.Text, Text: "ok"}}}}
	})
	a := New(Options{Provider: p, History: history})
	if _, err := a.Run(context.Background(), "go on"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Role == seen[i-1].Role {
			t.Fatalf("messages %d and %d are both %s", i-1, i, seen[i].Role)
		}
	}
	last := seen[len(seen)-1]
	if len(last.Parts) != 2 || last.Parts[0].Type != llm.ToolResult || last.Parts[1].Text != "go on" {
		t.Errorf("last message = %+v", last)
	}
	if len(a.Messages()) != 5 {
		t.Errorf("conversation has %d messages, want 5 (merging is for the request only)", len(a.Messages()))
	}
}

// providerFunc is a provider answering with a function of the request.
type providerFunc func(llm.Request) llm.Response

func (f providerFunc) Name() string             { return "func" }
func (f providerFunc) ContextWindow(string) int { return 0 }
func (f providerFunc) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (llm.Response, error) {
	return f(req), nil
}

func TestStreamCutKeepsPartialText(t *testing.T) {
	rec := &recorder{}
	a := newAgent(t, "say half an answer\nfail 500 stream cut\n", rec, nil)
	_, err := a.Run(context.Background(), "go")
	if err == nil || !strings.Contains(err.Error(), "stream cut") {
		t.Fatalf("err = %v", err)
	}
	last := rec.messages[len(rec.messages)-1]
	if last.Role != llm.Assistant || last.TextOf() != "half an answer" {
		t.Errorf("last transcript message = %+v, want the partial text", last)
	}
}

func TestAnswerCutAtTheOutputLimitIsContinued(t *testing.T) {
	rec := &recorder{}
	s := `say The first half
stop max_tokens
---
expect Continue exactly where it stopped
say and the second half.
`
	a := newAgent(t, s, rec, nil)
	out, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "The first halfand the second half." || out.ModelCalls != 2 {
		t.Errorf("outcome = %+v", out)
	}
}

// waitingPolicy finishes its turn-start work in the background; it records
// whether a tool ran before that work was done.
type waitingPolicy struct {
	NoPolicy
	mu    sync.Mutex
	ready bool
	early bool
}

func (p *waitingPolicy) OnTurnStart(context.Context, *TurnState) error {
	go func() {
		time.Sleep(50 * time.Millisecond)
		p.mu.Lock()
		p.ready = true
		p.mu.Unlock()
	}()
	return nil
}

func (p *waitingPolicy) BeforeTools(ctx context.Context) error {
	for {
		p.mu.Lock()
		ready := p.ready
		p.mu.Unlock()
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (p *waitingPolicy) AfterTool(context.Context, *TurnState, llm.Part, tool.Result) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ready {
		p.early = true
	}
	return ""
}

// No tool runs before the policy's turn-start work is done.
func TestToolsWaitForThePolicy(t *testing.T) {
	p := &waitingPolicy{}
	a := newAgent(t, "call bash {\"text\":\"x\"}\n---\nsay done\n", &recorder{}, func(o *Options) { o.Policy = p })
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if p.early {
		t.Fatal("a tool ran before BeforeTools returned")
	}
}
