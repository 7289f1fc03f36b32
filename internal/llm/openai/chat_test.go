package openai

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

// chunk is a chat.completion.chunk frame with the given choice delta.
func chunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return llmtest.Data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-5","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + f + `}],"usage":null}`)
}

func content(s string) string {
	b, _ := json.Marshal(s)
	return chunk(`{"content":`+string(b)+`}`, "")
}

func argsDelta(index int, s string) string {
	b, _ := json.Marshal(s)
	return chunk(`{"tool_calls":[{"index":`+itoa(index)+`,"function":{"arguments":`+string(b)+`}}]}`, "")
}

func callStart(index int, id, name string) string {
	return chunk(`{"tool_calls":[{"index":`+itoa(index)+`,"id":"`+id+`","type":"function","function":{"name":"`+name+`","arguments":""}}]}`, "")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func usageChunk(prompt, completion, cached int) string {
	return llmtest.Data(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-5","choices":[],"usage":{"prompt_tokens":` + itoa(prompt) + `,"completion_tokens":` + itoa(completion) + `,"total_tokens":` + itoa(prompt+completion) + `,"prompt_tokens_details":{"cached_tokens":` + itoa(cached) + `}}}`)
}

var done = llmtest.Data("[DONE]")

func chatText(s string) llmtest.Reply {
	return llmtest.Reply{Events: []string{chunk(`{"role":"assistant","content":""}`, ""), content(s), chunk(`{}`, "stop"), usageChunk(10, 2, 0), done}}
}

func errBody(kind, code, msg string) string {
	return `{"error":{"message":"` + msg + `","type":"` + kind + `","param":null,"code":"` + code + `"}}`
}

type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return nil
}

func newProvider(srv *llmtest.Server, wire Wire, rec *recorder) llm.Provider {
	c := New(Options{APIKey: "sk-test", BaseURL: srv.URL + "/v1", Wire: wire})
	return llm.WithRetry(c, llm.RetryOptions{BaseDelay: 100 * time.Millisecond, Sleep: rec.sleep,
		Jitter: func(d time.Duration) time.Duration { return d }})
}

func request() llm.Request {
	return llm.Request{
		Model:  "gpt-5",
		System: "You are chanto.",
		Tools: []llm.ToolSpec{{Name: "edit", Description: "Edit a file.",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		Messages: []llm.Message{{Role: llm.User, Parts: []llm.Part{{Type: llm.Text, Text: "fix a.go"}}}},
	}
}

func TestChatTextAndToolCalls(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{
		chunk(`{"role":"assistant","content":""}`, ""),
		content("Editing "), content("now."),
		callStart(0, "call_abc", "edit"),
		argsDelta(0, `{"pa`), argsDelta(0, `th": "a.go"}`),
		callStart(1, "call_def", "edit"),
		argsDelta(1, `{"path": "b.go"`), argsDelta(1, `}`),
		chunk(`{}`, "tool_calls"),
		usageChunk(120, 30, 100),
		done,
	}})
	var deltas []string
	resp, err := newProvider(srv, Chat, &recorder{}).Stream(context.Background(), request(), func(d llm.Delta) { deltas = append(deltas, d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "Editing |now." || resp.Message.TextOf() != "Editing now." {
		t.Errorf("deltas %q text %q", deltas, resp.Message.TextOf())
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "call_abc" || string(calls[0].Input) != `{"path": "a.go"}` ||
		calls[1].ID != "call_def" || string(calls[1].Input) != `{"path": "b.go"}` {
		t.Errorf("calls = %+v", calls)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q", resp.StopReason)
	}
	if want := (llm.Usage{InputTokens: 20, OutputTokens: 30, CacheReadTokens: 100}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func TestChatRequestShape(t *testing.T) {
	srv := llmtest.NewServer(t, chatText("ok"))
	req := request()
	req.MaxTokens = 2000
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.Assistant, Parts: []llm.Part{
			{Type: llm.Text, Text: "Looking."},
			{Type: llm.ToolUse, ID: "call_1", Name: "edit", Input: json.RawMessage(`{"path":"a.go"}`)},
			{Type: llm.ToolUse, ID: "call_2", Name: "edit", Input: json.RawMessage(`{"pa`), InputError: "bad"},
		}},
		llm.Message{Role: llm.User, Parts: []llm.Part{
			{Type: llm.ToolResult, ID: "call_1", Text: "edited"},
			{Type: llm.ToolResult, ID: "call_2", Text: "invalid JSON arguments", IsError: true},
		}})
	if _, err := newProvider(srv, Chat, &recorder{}).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("path %s auth %q", r.Path, r.Header.Get("Authorization"))
	}
	b := r.Body
	if b["model"] != "gpt-5" || b["stream"] != true || b["max_tokens"] != 2000.0 {
		t.Errorf("model %v stream %v max_tokens %v", b["model"], b["stream"], b["max_tokens"])
	}
	assertJSON(t, b["stream_options"], `{"include_usage":true}`)
	assertJSON(t, b["tools"], `[{"function":{"description":"Edit a file.","name":"edit","parameters":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}},"type":"function"}]`)
	assertJSON(t, b["messages"], `[
		{"content":"You are chanto.","role":"system"},
		{"content":"fix a.go","role":"user"},
		{"content":"Looking.","role":"assistant","tool_calls":[
			{"function":{"arguments":"{\"path\":\"a.go\"}","name":"edit"},"id":"call_1","type":"function"},
			{"function":{"arguments":"{}","name":"edit"},"id":"call_2","type":"function"}]},
		{"content":"edited","role":"tool","tool_call_id":"call_1"},
		{"content":"error: invalid JSON arguments","role":"tool","tool_call_id":"call_2"}]`)
}

func TestChatMaxCompletionTokensOnOpenAI(t *testing.T) {
	c := New(Options{APIKey: "k"})
	p, err := c.chatParams(llm.Request{Model: "gpt-5", MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(p)
	if !strings.Contains(string(raw), `"max_completion_tokens":100`) || strings.Contains(string(raw), `"max_tokens"`) {
		t.Errorf("params = %s", raw)
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

func TestChatMalformedArgs(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{
		callStart(0, "call_1", "edit"), argsDelta(0, `{"path": "a.go", "old_`), chunk(`{}`, "tool_calls"), done,
	}})
	resp, err := newProvider(srv, Chat, &recorder{}).Stream(context.Background(), request(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Message.ToolCalls()
	if len(c) != 1 || string(c[0].Input) != "{}" || c[0].InputError != `invalid JSON arguments for tool "edit": unexpected end of input` {
		t.Errorf("calls = %+v", c)
	}
}

func TestChatErrorMidStream(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Events: []string{chunk(`{"role":"assistant","content":""}`, ""), llmtest.Data(`{"error":{"message":"The server had an error","type":"server_error","code":null}}`)}},
		chatText("ok"),
		llmtest.Reply{Events: []string{llmtest.Data(`{"error":{"message":"context too long","type":"invalid_request_error","code":"context_length_exceeded"}}`)}})
	rec := &recorder{}
	p := newProvider(srv, Chat, rec)
	if resp, err := p.Stream(context.Background(), request(), nil); err != nil || resp.Message.TextOf() != "ok" || len(rec.waits) != 1 {
		t.Fatalf("resp %+v err %v waits %v", resp, err, rec.waits)
	}
	_, err := p.Stream(context.Background(), request(), nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Retryable || ae.Message != "context too long" {
		t.Errorf("err = %v", err)
	}
}

func TestChatRetries(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "250"}, Body: errBody("requests", "rate_limit_exceeded", "Rate limit reached")},
		llmtest.Reply{Status: 503, Body: errBody("server_error", "", "overloaded")},
		llmtest.Reply{Events: []string{chunk(`{"role":"assistant","content":""}`, ""), callStart(0, "c", "edit")}, Cut: true},
		chatText("finally"))
	rec := &recorder{}
	resp, err := newProvider(srv, Chat, rec).Stream(context.Background(), request(), nil)
	if err != nil || resp.Message.TextOf() != "finally" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	want := []time.Duration{250 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
	if len(rec.waits) != 3 || rec.waits[0] != want[0] || rec.waits[1] != want[1] || rec.waits[2] != want[2] {
		t.Errorf("waits = %v, want %v", rec.waits, want)
	}
}

func TestChatAuthAndGiveUp(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Status: 401, Body: errBody("invalid_request_error", "invalid_api_key", "Incorrect API key provided")})
	_, err := newProvider(srv, Chat, &recorder{}).Stream(context.Background(), request(), nil)
	if err == nil || err.Error() != "openai: authentication failed (401): check OPENAI_API_KEY" {
		t.Errorf("err = %v", err)
	}

	var replies []llmtest.Reply
	for range 5 {
		replies = append(replies, llmtest.Reply{Status: 500, Body: errBody("server_error", "", "boom")})
	}
	srv = llmtest.NewServer(t, replies...)
	_, err = newProvider(srv, Chat, &recorder{}).Stream(context.Background(), request(), nil)
	if err == nil || err.Error() != "openai: server error (500): boom (gave up after 5 attempts)" {
		t.Errorf("err = %v", err)
	}
}

func TestChatNoFinishIsDropped(t *testing.T) {
	// Text arrives, then the server ends the body without finish_reason.
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{content("partial")}})
	_, err := newProvider(srv, Chat, &recorder{}).Stream(context.Background(), request(), nil)
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "stream ended before the message was complete") {
		t.Errorf("err = %v", err)
	}
}

func TestChatLocalServerQuirks(t *testing.T) {
	// Some servers omit tool-call ids and send the whole call in one chunk.
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{
		chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"type":"function","function":{"name":"edit","arguments":"{\"path\":\"x\"}"}}]}`, ""),
		chunk(`{}`, "tool_calls"), done,
	}})
	// Ambient OpenAI settings must not reach a local server.
	t.Setenv("OPENAI_API_KEY", "sk-ambient")
	t.Setenv("OPENAI_ADMIN_KEY", "sk-admin")
	t.Setenv("OPENAI_ORG_ID", "org-x")
	t.Setenv("OPENAI_PROJECT_ID", "proj-x")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	c := New(Options{BaseURL: srv.URL + "/v1"})
	resp, err := c.Stream(context.Background(), request(), nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 1 || calls[0].ID != "call_1" || string(calls[0].Input) != `{"path":"x"}` {
		t.Errorf("calls = %+v", calls)
	}
	h := srv.Requests()[0].Header
	for _, k := range []string{"Authorization", "Openai-Organization", "Openai-Project"} {
		if got := h.Get(k); got != "" {
			t.Errorf("%s sent to a local server: %q", k, got)
		}
	}
}

func TestStalledStreams(t *testing.T) {
	for _, wire := range []Wire{Chat, Responses} {
		srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{content("thinking")}, Hang: true})
		_, err := New(Options{BaseURL: srv.URL + "/v1", Wire: wire, IdleTimeout: 80 * time.Millisecond}).Stream(context.Background(), request(), nil)
		if err == nil || err.Error() != "openai: stream stalled: no data from the server for 80ms" || !llm.IsRetryable(err) {
			t.Errorf("%s: err = %v", wire, err)
		}
	}
}
