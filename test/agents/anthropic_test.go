package agents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// anthropicServer serves the Messages API (streaming) for Claude Code.
func anthropicServer(t *testing.T, m *fakeModel) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
			if strings.Contains(r.URL.Path, "count_tokens") {
				fmt.Fprint(w, `{"input_tokens":100}`)
				return
			}
			w.WriteHeader(404)
			return
		}
		var req struct {
			Stream bool             `json:"stream"`
			Tools  []map[string]any `json:"tools"`
		}
		json.Unmarshal(body, &req)
		rep := reply{Text: "ok"}
		if len(req.Tools) > 0 {
			rep = m.next(string(body))
		}
		writeAnthropic(w, req.Stream, rep)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// toolIDs numbers the tool calls: an id must not repeat within a
// conversation (Claude Code pairs each result, and the hook answers
// attached to it, with its call by id).
var toolIDs atomic.Int64

func writeAnthropic(w http.ResponseWriter, stream bool, rep reply) {
	stop := "end_turn"
	if len(rep.Calls) > 0 {
		stop = "tool_use"
	}
	if !stream {
		var content []map[string]any
		if rep.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": rep.Text})
		}
		for i, c := range rep.Calls {
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", toolIDs.Add(1), i), "name": c.Name, "input": c.Input})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 5}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
		"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
	i := 0
	if rep.Text != "" {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": rep.Text}})
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for k, c := range rep.Calls {
		in, _ := json.Marshal(c.Input)
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", toolIDs.Add(1), k), "name": c.Name, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}
