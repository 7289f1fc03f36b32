package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/llm"
	"github.com/chanto-dev/chanto/internal/tool"
)

func toolTurn(id, cmd string, size int) []llm.Message {
	return []llm.Message{
		{Role: llm.Assistant, Parts: []llm.Part{{Type: llm.ToolUse, ID: id, Name: "bash", Input: []byte(fmt.Sprintf(`{"command":%q}`, cmd))}}},
		{Role: llm.User, Parts: []llm.Part{{Type: llm.ToolResult, ID: id, Text: strings.Repeat("x", size)}}},
	}
}

func TestFitWindow(t *testing.T) {
	tests := []struct {
		name   string
		window int
		sizes  []int // tool output sizes, oldest first
		elided []bool
	}{
		{name: "well under the window", window: 100000, sizes: []int{14000, 14000, 14000}, elided: []bool{false, false, false}},
		{name: "oldest goes first", window: 10000, sizes: []int{14000, 14000, 14000}, elided: []bool{true, true, false}},
		{name: "just enough is elided", window: 20000, sizes: []int{30000, 30000, 2000, 2000}, elided: []bool{true, false, false, false}},
		{name: "latest results are kept even when over", window: 1000, sizes: []int{40000}, elided: []bool{false}},
		{name: "small outputs are not worth it", window: 1000, sizes: []int{100, 100, 100, 8000}, elided: []bool{false, false, false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var history []llm.Message
			history = append(history, userText("start"))
			for i, n := range tc.sizes {
				history = append(history, toolTurn(fmt.Sprintf("c%d", i), "go test ./...", n)...)
			}
			a := New(Options{Provider: script(t, "say x\n"), ContextWindow: tc.window, History: history,
				Tools: []tool.Tool{echoTool{name: "bash"}}})
			a.fitWindow()
			msgs := a.Messages()
			if len(msgs) != len(history) {
				t.Fatalf("%d messages, want %d: none may be dropped", len(msgs), len(history))
			}
			for i, want := range tc.elided {
				use, res := msgs[1+2*i].Parts[0], msgs[2+2*i].Parts[0]
				if use.Type != llm.ToolUse || res.Type != llm.ToolResult || use.ID != res.ID {
					t.Fatalf("pair %d broken: %+v / %+v", i, use, res)
				}
				got := strings.HasPrefix(res.Text, elisionPrefix)
				if got != want {
					t.Errorf("output %d elided = %v, want %v (%.40q)", i, got, want, res.Text)
				}
				if got {
					wantNote := fmt.Sprintf(`[output elided to save context: %d KB from bash "go test ./..."; re-run if needed]`, (tc.sizes[i]+512)/1024)
					if res.Text != wantNote {
						t.Errorf("note = %q, want %q", res.Text, wantNote)
					}
				}
			}
			// The caller's history is not modified behind its back.
			if strings.HasPrefix(history[2].Parts[0].Text, elisionPrefix) {
				t.Error("elision wrote through to the caller's history")
			}
		})
	}
}

// TestElisionInTheLoop runs a real conversation that outgrows a small
// window and checks the model is sent the note instead of the old output.
func TestElisionInTheLoop(t *testing.T) {
	rec := &recorder{}
	big := strings.Repeat("y", 6000)
	s := fmt.Sprintf(`call bash {"text":%q}
---
call bash {"text":"second"}
---
expect-any [output elided to save context: 6 KB from bash
expect bash:second
say done
`, big)
	a := New(Options{Provider: script(t, s), ContextWindow: 2500, Sink: rec, Transcript: rec,
		Tools: []tool.Tool{echoTool{name: "bash"}}})
	out, err := a.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "done" {
		t.Errorf("answer = %q", out.Answer)
	}
	// The transcript keeps the full output.
	if !strings.Contains(rec.messages[2].Parts[0].Text, big) {
		t.Error("transcript lost the original output")
	}
}

func TestElisionNote(t *testing.T) {
	tests := []struct {
		call llm.Part
		size int
		want string
	}{
		{llm.Part{Name: "bash", Input: []byte(`{"command":"go test ./..."}`)}, 14 * 1024, `[output elided to save context: 14 KB from bash "go test ./..."; re-run if needed]`},
		{llm.Part{Name: "read", Input: []byte(`{"path":"main.go"}`)}, 700, `[output elided to save context: 700 bytes from read "main.go"; re-run if needed]`},
		{llm.Part{Name: "task", Input: []byte(`{}`)}, 2048, `[output elided to save context: 2 KB from task; re-run if needed]`},
		{llm.Part{}, 2048, `[output elided to save context: 2 KB from a tool call; re-run if needed]`},
	}
	for _, tc := range tests {
		if got := elisionNote(tc.size, tc.call); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
