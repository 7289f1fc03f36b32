package agents

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// responsesServer serves the OpenAI Responses API (streaming) for Codex.
// Requests without tools (titles, compaction) get a short text.
func responsesServer(t *testing.T, m *fakeModel) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasSuffix(r.URL.Path, "/responses") {
			if strings.HasSuffix(r.URL.Path, "/models") {
				fmt.Fprint(w, `{"object":"list","data":[],"models":[]}`)
				return
			}
			w.WriteHeader(404)
			return
		}
		var req struct {
			Tools []map[string]any `json:"tools"`
		}
		json.Unmarshal(body, &req)
		rep := reply{Text: "ok"}
		if len(req.Tools) > 0 {
			rep = m.next(string(body))
		}
		writeResponses(w, rep)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeResponses(w http.ResponseWriter, rep reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	seq := 0
	ev := func(name string, v map[string]any) {
		v["type"], v["sequence_number"] = name, seq
		seq++
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	ev("response.created", map[string]any{"response": map[string]any{"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5", "output": []any{}}})
	var output []any
	idx := 0
	if rep.Text != "" {
		item := map[string]any{"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}}
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		ev("response.output_text.delta", map[string]any{"item_id": "msg_1", "output_index": idx, "content_index": 0, "delta": rep.Text})
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	for k, c := range rep.Calls {
		args, _ := json.Marshal(c.Input)
		id := fmt.Sprintf("call_%d_%d", toolIDs.Add(1), k)
		item := map[string]any{"id": "fc_" + id, "type": "function_call", "status": "completed", "arguments": string(args), "call_id": id, "name": c.Name}
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": item})
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	ev("response.completed", map[string]any{"response": map[string]any{"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5", "output": output,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}})
}
