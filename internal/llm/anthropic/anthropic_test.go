package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/llm/llmtest"
)

// Frames in the shape the Messages API streams them.
func messageStart(in, cacheCreate, cacheRead int) string {
	return llmtest.Event("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`+itoa(in)+`,"cache_creation_input_tokens":`+itoa(cacheCreate)+`,"cache_read_input_tokens":`+itoa(cacheRead)+`,"output_tokens":1}}}`)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func textStart(i int) string {
	return llmtest.Event("content_block_start", `{"type":"content_block_start","index":`+itoa(i)+`,"content_block":{"type":"text","text":""}}`)
}

func textDelta(i int, s string) string {
	b, _ := json.Marshal(s)
	return llmtest.Event("content_block_delta", `{"type":"content_block_delta","index":`+itoa(i)+`,"delta":{"type":"text_delta","text":`+string(b)+`}}`)
}

func toolStart(i int, id, name string) string {
	return llmtest.Event("content_block_start", `{"type":"content_block_start","index":`+itoa(i)+`,"content_block":{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{}}}`)
}

func jsonDelta(i int, partial string) string {
	b, _ := json.Marshal(partial)
	return llmtest.Event("content_block_delta", `{"type":"content_block_delta","index":`+itoa(i)+`,"delta":{"type":"input_json_delta","partial_json":`+string(b)+`}}`)
}

func blockStop(i int) string {
	return llmtest.Event("content_block_stop", `{"type":"content_block_stop","index":`+itoa(i)+`}`)
}

func messageDelta(stop string, out int) string {
	return llmtest.Event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":`+itoa(out)+`}}`)
}

var (
	ping        = llmtest.Event("ping", `{"type": "ping"}`)
	messageStop = llmtest.Event("message_stop", `{"type":"message_stop"}`)
)

func textReply(s string) llmtest.Reply {
	return llmtest.Reply{Events: []string{messageStart(10, 0, 0), textStart(0), textDelta(0, s), blockStop(0), messageDelta("end_turn", 3), messageStop}}
}

func errorBody(kind, msg string) string {
	return `{"type":"error","error":{"type":"` + kind + `","message":"` + msg + `"},"request_id":"req_011"}`
}

// recorder collects sleeps instead of waiting.
type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return nil
}

func newProvider(t *testing.T, srv *llmtest.Server, rec *recorder) llm.Provider {
	t.Helper()
	c := New(Options{APIKey: "sk-test", BaseURL: srv.URL})
	return llm.WithRetry(c, llm.RetryOptions{
		BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second,
		Sleep: rec.sleep, Jitter: func(d time.Duration) time.Duration { return d },
	})
}

func baseRequest() llm.Request {
	return llm.Request{
		Model:  "claude-sonnet-4-5",
		System: "You are chanto.",
		Tools: []llm.ToolSpec{{Name: "bash", Description: "Run a command.",
			Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)}},
		Messages: []llm.Message{{Role: llm.User, Parts: []llm.Part{{Type: llm.Text, Text: "run the tests"}}}},
	}
}

func TestTextAndToolUse(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{
		messageStart(25, 100, 50),
		textStart(0), ping, textDelta(0, "I'll run "), textDelta(0, "the tests."), blockStop(0),
		toolStart(1, "toolu_01", "bash"),
		jsonDelta(1, ""), jsonDelta(1, `{"comm`), jsonDelta(1, `and": "go te`), jsonDelta(1, `st ./..."}`),
		blockStop(1),
		messageDelta("tool_use", 89), messageStop,
	}})
	var deltas []string
	resp, err := newProvider(t, srv, &recorder{}).Stream(context.Background(), baseRequest(), func(d llm.Delta) { deltas = append(deltas, d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "I'll run |the tests." {
		t.Errorf("deltas = %q", deltas)
	}
	if resp.Message.TextOf() != "I'll run the tests." || resp.StopReason != llm.StopToolUse {
		t.Errorf("resp = %+v", resp)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 1 || calls[0].ID != "toolu_01" || calls[0].Name != "bash" || calls[0].InputError != "" {
		t.Fatalf("calls = %+v", calls)
	}
	var in struct{ Command string }
	if err := json.Unmarshal(calls[0].Input, &in); err != nil || in.Command != "go test ./..." {
		t.Errorf("input = %s (%v)", calls[0].Input, err)
	}
	want := llm.Usage{InputTokens: 25, OutputTokens: 89, CacheReadTokens: 50, CacheCreateTokens: 100}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func TestRequestShape(t *testing.T) {
	srv := llmtest.NewServer(t, textReply("done"))
	req := baseRequest()
	req.MaxTokens = 1234
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.Assistant, Parts: []llm.Part{
			{Type: llm.Text, Text: "Running."},
			{Type: llm.ToolUse, ID: "toolu_01", Name: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)},
		}},
		llm.Message{Role: llm.User, Parts: []llm.Part{
			{Type: llm.ToolResult, ID: "toolu_01", Text: "FAIL: TestX", IsError: true},
		}})
	if _, err := newProvider(t, srv, &recorder{}).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/messages" || got.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("path %s, auth %q", got.Path, got.Header.Get("Authorization"))
	}
	body := got.Body
	if body["model"] != "claude-sonnet-4-5" || body["max_tokens"] != 1234.0 || body["stream"] != true {
		t.Errorf("model/max_tokens/stream = %v %v %v", body["model"], body["max_tokens"], body["stream"])
	}
	assertJSON(t, body["system"], `[{"cache_control":{"type":"ephemeral"},"text":"You are chanto.","type":"text"}]`)
	assertJSON(t, body["tools"], `[{"description":"Run a command.","input_schema":{"additionalProperties":false,"properties":{"command":{"type":"string"}},"required":["command"],"type":"object"},"name":"bash"}]`)
	msgs := body["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("messages = %v", msgs)
	}
	assertJSON(t, msgs[1], `{"content":[{"text":"Running.","type":"text"},{"id":"toolu_01","input":{"command":"go test ./..."},"name":"bash","type":"tool_use"}],"role":"assistant"}`)
	// The last block of the conversation carries the second cache breakpoint.
	assertJSON(t, msgs[2], `{"content":[{"cache_control":{"type":"ephemeral"},"content":[{"text":"FAIL: TestX","type":"text"}],"is_error":true,"tool_use_id":"toolu_01","type":"tool_result"}],"role":"user"}`)
	if strings.Count(string(got.Raw), "cache_control") != 2 {
		t.Errorf("want exactly 2 cache breakpoints in %s", got.Raw)
	}
}

func TestDefaultMaxTokens(t *testing.T) {
	srv := llmtest.NewServer(t, textReply("x"))
	if _, err := newProvider(t, srv, &recorder{}).Stream(context.Background(), baseRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Body["max_tokens"]; got != float64(DefaultMaxTokens) {
		t.Errorf("max_tokens = %v", got)
	}
	for model, want := range map[string]int{"claude-3-5-haiku-latest": 8192, "claude-3-haiku-20240307": 4096, "claude-opus-4-1": DefaultMaxTokens} {
		if got := defaultMaxTokens(model); got != want {
			t.Errorf("defaultMaxTokens(%q) = %d, want %d", model, got, want)
		}
	}
}

func assertJSON(t *testing.T, got any, want string) {
	t.Helper()
	b, _ := json.Marshal(got)
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	wb, _ := json.Marshal(w)
	if string(b) != string(wb) {
		t.Errorf("got  %s\nwant %s", b, wb)
	}
}

func TestMalformedToolArgs(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{
		messageStart(5, 0, 0), toolStart(0, "toolu_02", "edit"),
		jsonDelta(0, `{"path": "a.go", "old_`), blockStop(0),
		messageDelta("tool_use", 9), messageStop,
	}})
	resp, err := newProvider(t, srv, &recorder{}).Stream(context.Background(), baseRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Message.ToolCalls()
	if len(c) != 1 || string(c[0].Input) != "{}" ||
		c[0].InputError != `invalid JSON arguments for tool "edit": unexpected end of input` {
		t.Errorf("call = %+v", c)
	}
}

func TestRetryAfter429(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: 429, Header: map[string]string{"retry-after": "7"}, Body: errorBody("rate_limit_error", "slow down")},
		llmtest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "1500"}, Body: errorBody("rate_limit_error", "slow down")},
		textReply("ok"))
	rec := &recorder{}
	resp, err := newProvider(t, srv, rec).Stream(context.Background(), baseRequest(), nil)
	if err != nil || resp.Message.TextOf() != "ok" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	if len(rec.waits) != 2 || rec.waits[0] != 7*time.Second || rec.waits[1] != 1500*time.Millisecond {
		t.Errorf("waits = %v, want [7s 1.5s]", rec.waits)
	}
}

func TestOverloadedRetried(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: 529, Body: errorBody("overloaded_error", "Overloaded")},
		llmtest.Reply{Status: 529, Body: errorBody("overloaded_error", "Overloaded")},
		textReply("ok"))
	rec := &recorder{}
	if _, err := newProvider(t, srv, rec).Stream(context.Background(), baseRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if len(rec.waits) != 2 || rec.waits[0] != 100*time.Millisecond || rec.waits[1] != 200*time.Millisecond {
		t.Errorf("waits = %v, want [100ms 200ms]", rec.waits)
	}
}

func TestErrorEventMidStream(t *testing.T) {
	overloaded := llmtest.Event("error", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`)
	invalid := llmtest.Event("error", `{"type": "error", "error": {"type": "invalid_request_error", "message": "bad thing"}}`)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Events: []string{messageStart(3, 0, 0), overloaded}},
		textReply("after"),
		llmtest.Reply{Events: []string{messageStart(3, 0, 0), invalid}})
	rec := &recorder{}
	p := newProvider(t, srv, rec)
	resp, err := p.Stream(context.Background(), baseRequest(), nil)
	if err != nil || resp.Message.TextOf() != "after" || len(rec.waits) != 1 {
		t.Fatalf("resp %+v, err %v, waits %v", resp, err, rec.waits)
	}
	_, err = p.Stream(context.Background(), baseRequest(), nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Retryable || ae.Kind != "invalid_request_error" || !strings.Contains(err.Error(), "bad thing") {
		t.Errorf("err = %v (%+v)", err, ae)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("requests = %d, want 3 (invalid request not retried)", len(srv.Requests()))
	}
}

func TestAuthNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 401, Body: errorBody("authentication_error", "invalid x-api-key")})
	rec := &recorder{}
	_, err := newProvider(t, srv, rec).Stream(context.Background(), baseRequest(), nil)
	if err == nil || err.Error() != "anthropic: authentication failed (401): check ANTHROPIC_API_KEY" {
		t.Errorf("err = %v", err)
	}
	if len(rec.waits) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("retried: waits %v", rec.waits)
	}
}

func TestNotFoundNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 404, Body: errorBody("not_found_error", "model: claude-nope")})
	_, err := newProvider(t, srv, &recorder{}).Stream(context.Background(), baseRequest(), nil)
	if err == nil || err.Error() != "anthropic: not found (404): model: claude-nope" {
		t.Errorf("err = %v", err)
	}
}

func TestServerErrorGivesUp(t *testing.T) {
	var replies []llmtest.Reply
	for range 5 {
		replies = append(replies, llmtest.Reply{Status: 500, Body: errorBody("api_error", "Internal server error")})
	}
	srv := llmtest.NewServer(t, replies...)
	rec := &recorder{}
	_, err := newProvider(t, srv, rec).Stream(context.Background(), baseRequest(), nil)
	want := "anthropic: server error (500): Internal server error (gave up after 5 attempts)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
	wantWaits := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}
	if len(rec.waits) != 4 || rec.waits[3] != wantWaits[3] {
		t.Errorf("waits = %v, want %v", rec.waits, wantWaits)
	}
}

func TestStreamCutRetried(t *testing.T) {
	srv := llmtest.NewServer(t,
		// Cut while the tool arguments stream: nothing reached the user yet.
		llmtest.Reply{Events: []string{messageStart(3, 0, 0), toolStart(0, "toolu_1", "bash"), jsonDelta(0, `{"comm`)}, Cut: true},
		textReply("second try"))
	rec := &recorder{}
	resp, err := newProvider(t, srv, rec).Stream(context.Background(), baseRequest(), nil)
	if err != nil || resp.Message.TextOf() != "second try" || len(rec.waits) != 1 {
		t.Fatalf("resp %+v, err %v, waits %v", resp, err, rec.waits)
	}
}

func TestStreamEndsWithoutStop(t *testing.T) {
	// A clean EOF before message_stop is as bad as a reset.
	srv := llmtest.NewServer(t,
		llmtest.Reply{Events: []string{messageStart(3, 0, 0)}},
		textReply("ok"))
	rec := &recorder{}
	if _, err := newProvider(t, srv, rec).Stream(context.Background(), baseRequest(), nil); err != nil || len(rec.waits) != 1 {
		t.Fatalf("err %v, waits %v", err, rec.waits)
	}
}

func TestStreamCutAfterTextNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Events: []string{messageStart(3, 0, 0), textStart(0), textDelta(0, "Half an ans")}, Cut: true})
	rec := &recorder{}
	var shown string
	_, err := newProvider(t, srv, rec).Stream(context.Background(), baseRequest(), func(d llm.Delta) { shown += d.Text })
	if err == nil || !llm.IsRetryable(err) || !strings.Contains(err.Error(), "not retried") {
		t.Errorf("err = %v", err)
	}
	if shown != "Half an ans" || len(srv.Requests()) != 1 {
		t.Errorf("shown %q, requests %d", shown, len(srv.Requests()))
	}
}

func TestContextWindow(t *testing.T) {
	if got := New(Options{}).ContextWindow("claude-sonnet-4-5"); got != 200000 {
		t.Errorf("window = %d", got)
	}
	if got := New(Options{ContextWindow: 1000000}).ContextWindow("claude-sonnet-4-5"); got != 1000000 {
		t.Errorf("override = %d", got)
	}
}

func TestStalledStreamRetried(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Hang: true}, // no headers at all
		llmtest.Reply{Events: []string{messageStart(3, 0, 0), toolStart(0, "toolu_1", "bash")}, Hang: true},
		textReply("awake"))
	rec := &recorder{}
	c := New(Options{APIKey: "k", BaseURL: srv.URL, IdleTimeout: 150 * time.Millisecond})
	p := llm.WithRetry(c, llm.RetryOptions{Sleep: rec.sleep})
	start := time.Now()
	resp, err := p.Stream(context.Background(), baseRequest(), nil)
	if err != nil || resp.Message.TextOf() != "awake" || len(rec.waits) != 2 {
		t.Fatalf("resp %+v, err %v, waits %v", resp, err, rec.waits)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}

	srv = llmtest.NewServer(t, llmtest.Reply{Hang: true})
	_, err = New(Options{APIKey: "k", BaseURL: srv.URL, IdleTimeout: 50 * time.Millisecond}).Stream(context.Background(), baseRequest(), nil)
	if err == nil || err.Error() != "anthropic: stream stalled: no data from the server for 50ms" || !llm.IsRetryable(err) {
		t.Errorf("err = %v", err)
	}
}

func TestCancelNotRetried(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{messageStart(3, 0, 0)}, Hang: true})
	rec := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := newProvider(t, srv, rec).Stream(ctx, baseRequest(), nil)
	if !errors.Is(err, context.Canceled) || len(rec.waits) != 0 {
		t.Errorf("err %v, waits %v", err, rec.waits)
	}
}

// BenchmarkStream measures one streamed answer of 1000 text deltas and a
// tool call through the SDK, the accumulator and the retry decorator.
func BenchmarkStream(b *testing.B) {
	events := []string{messageStart(1000, 0, 0), textStart(0)}
	for range 1000 {
		events = append(events, textDelta(0, "word "))
	}
	events = append(events, blockStop(0), toolStart(1, "toolu_1", "bash"))
	events = append(events, jsonDelta(1, `{"command":"`))
	for range 100 {
		events = append(events, jsonDelta(1, "go test "))
	}
	events = append(events, jsonDelta(1, `"}`), blockStop(1), messageDelta("tool_use", 1100), messageStop)
	replies := make([]llmtest.Reply, b.N)
	for i := range replies {
		replies[i] = llmtest.Reply{Events: events}
	}
	srv := llmtest.NewServer(b, replies...)
	p := llm.WithRetry(New(Options{APIKey: "k", BaseURL: srv.URL}), llm.RetryOptions{})
	b.ResetTimer()
	for range b.N {
		resp, err := p.Stream(context.Background(), baseRequest(), func(llm.Delta) {})
		if err != nil || resp.Message.ToolCalls()[0].InputError != "" {
			b.Fatal(err, resp.Message.ToolCalls())
		}
	}
}
