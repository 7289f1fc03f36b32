package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/llm/llmtest"
)

func rev(name, payload string) string {
	return llmtest.Event(name, `{"type":"`+name+`",`+payload+`}`)
}

var created = rev("response.created", `"sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1700000000,"status":"in_progress","model":"gpt-5","output":[]}`)

func textDeltaEv(s string) string {
	b, _ := json.Marshal(s)
	return rev("response.output_text.delta", `"sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":`+string(b)+`,"logprobs":[]`)
}

func fcAdded(index int, callID, name string) string {
	return rev("response.output_item.added", `"sequence_number":5,"output_index":`+itoa(index)+`,"item":{"id":"fc_`+callID+`","type":"function_call","status":"in_progress","arguments":"","call_id":"`+callID+`","name":"`+name+`"}`)
}

func fcDelta(index int, s string) string {
	b, _ := json.Marshal(s)
	return rev("response.function_call_arguments.delta", `"sequence_number":6,"item_id":"fc","output_index":`+itoa(index)+`,"delta":`+string(b))
}

func fcDone(index int, s string) string {
	b, _ := json.Marshal(s)
	return rev("response.function_call_arguments.done", `"sequence_number":7,"item_id":"fc","output_index":`+itoa(index)+`,"arguments":`+string(b))
}

func completed(status string, in, cached, out int, incomplete string) string {
	details := "null"
	if incomplete != "" {
		details = `{"reason":"` + incomplete + `"}`
	}
	name := "response.completed"
	if status == "incomplete" {
		name = "response.incomplete"
	}
	return rev(name, `"sequence_number":9,"response":{"id":"resp_1","object":"response","created_at":1700000000,"status":"`+status+`","model":"gpt-5","output":[],"incomplete_details":`+details+`,"usage":{"input_tokens":`+itoa(in)+`,"input_tokens_details":{"cached_tokens":`+itoa(cached)+`},"output_tokens":`+itoa(out)+`,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":`+itoa(in+out)+`}}`)
}

func respText(s string) llmtest.Reply {
	return llmtest.Reply{Events: []string{created, textDeltaEv(s), completed("completed", 5, 0, 1, "")}}
}

func TestResponsesTextAndCalls(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{
		created,
		rev("response.output_item.added", `"sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`),
		textDeltaEv("Fixing "), textDeltaEv("it."),
		fcAdded(1, "call_1", "edit"),
		fcDelta(1, `{"pa`), fcDelta(1, `th":"a.go"}`), fcDone(1, `{"path":"a.go"}`),
		fcAdded(2, "call_2", "edit"),
		fcDelta(2, `{"path":`), // no .done: the deltas are all there is
		fcDelta(2, `"b.go"}`),
		completed("completed", 100, 40, 20, ""),
	}})
	var deltas []string
	resp, err := newProvider(srv, Responses, &recorder{}).Stream(context.Background(), request(), func(d llm.Delta) { deltas = append(deltas, d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "Fixing |it." || resp.Message.TextOf() != "Fixing it." {
		t.Errorf("deltas %q", deltas)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "call_1" || string(calls[0].Input) != `{"path":"a.go"}` ||
		calls[1].ID != "call_2" || string(calls[1].Input) != `{"path":"b.go"}` {
		t.Errorf("calls = %+v", calls)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q", resp.StopReason)
	}
	if want := (llm.Usage{InputTokens: 60, OutputTokens: 20, CacheReadTokens: 40}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func TestResponsesRequestShape(t *testing.T) {
	srv := llmtest.NewServer(t, respText("ok"))
	req := request()
	req.MaxTokens = 500
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.Assistant, Parts: []llm.Part{
			{Type: llm.Text, Text: "On it."},
			{Type: llm.ToolUse, ID: "call_1", Name: "edit", Input: json.RawMessage(`{"path":"a.go"}`)},
		}},
		llm.Message{Role: llm.User, Parts: []llm.Part{{Type: llm.ToolResult, ID: "call_1", Text: "done"}}})
	if _, err := newProvider(srv, Responses, &recorder{}).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	b := r.Body
	if r.Path != "/v1/responses" || b["model"] != "gpt-5" || b["instructions"] != "You are chanto." ||
		b["max_output_tokens"] != 500.0 || b["store"] != false || b["stream"] != true {
		t.Errorf("path %s body %s", r.Path, r.Raw)
	}
	assertJSON(t, b["tools"], `[{"description":"Edit a file.","name":"edit","parameters":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"},"strict":false,"type":"function"}]`)
	assertJSON(t, b["input"], `[
		{"content":"fix a.go","role":"user"},
		{"content":"On it.","role":"assistant"},
		{"arguments":"{\"path\":\"a.go\"}","call_id":"call_1","name":"edit","type":"function_call"},
		{"call_id":"call_1","output":"done","type":"function_call_output"}]`)
}

func TestResponsesMalformedAndIncomplete(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Events: []string{
		created, fcAdded(0, "call_9", "edit"), fcDelta(0, `{"path": "a.go", "old_`),
		completed("incomplete", 5, 0, 500, "max_output_tokens"),
	}})
	resp, err := newProvider(srv, Responses, &recorder{}).Stream(context.Background(), request(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Message.ToolCalls()
	if len(c) != 1 || string(c[0].Input) != "{}" || !strings.Contains(c[0].InputError, `tool "edit": unexpected end of input`) {
		t.Errorf("calls = %+v", c)
	}
	if resp.StopReason != llm.StopMaxTokens {
		t.Errorf("stop = %q", resp.StopReason)
	}
}

func TestResponsesErrors(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Events: []string{created, rev("error", `"sequence_number":1,"code":"server_error","message":"The server had an error","param":null`)}},
		llmtest.Reply{Events: []string{created, rev("response.failed", `"sequence_number":2,"response":{"id":"resp_1","object":"response","status":"failed","output":[],"error":{"code":"rate_limit_exceeded","message":"slow down"}}`)}},
		llmtest.Reply{Events: []string{created}, Cut: true},
		respText("ok"),
		llmtest.Reply{Events: []string{created, rev("response.failed", `"sequence_number":2,"response":{"id":"resp_1","object":"response","status":"failed","output":[],"error":{"code":"invalid_prompt","message":"nope"}}`)}},
	)
	rec := &recorder{}
	p := newProvider(srv, Responses, rec)
	resp, err := p.Stream(context.Background(), request(), nil)
	if err != nil || resp.Message.TextOf() != "ok" || len(rec.waits) != 3 {
		t.Fatalf("resp %+v err %v waits %v", resp, err, rec.waits)
	}
	_, err = p.Stream(context.Background(), request(), nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Retryable || err.Error() != "openai: stream error invalid_prompt: nope" {
		t.Errorf("err = %v", err)
	}
}
