package hookgate

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// calcProject is a Go module whose test fails: Add subtracts.
func calcProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "go.mod", "module calc\n\ngo 1.22\n")
	write(t, dir, "calc.go", "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n")
	write(t, dir, "calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookCall sends one event to Handle the way `chanto hook AGENT` does.
type hookCall struct {
	t    *testing.T
	opts Options
	base map[string]any
}

func newHookCall(t *testing.T, a Agent, dir string) *hookCall {
	opts := Options{Agent: a, StateDir: t.TempDir(), HistoryDir: t.TempDir(), ProtectTests: true, MaxAttempts: 2}
	return &hookCall{t: t, opts: opts, base: map[string]any{"session_id": "s-1", "cwd": dir, "prompt_id": "p-1", "turn_id": "t-1"}}
}

func (h *hookCall) send(event string, fields map[string]any) map[string]any {
	h.t.Helper()
	p := map[string]any{"hook_event_name": event}
	for k, v := range h.base {
		p[k] = v
	}
	for k, v := range fields {
		p[k] = v
	}
	in, _ := json.Marshal(p)
	out, warn := Handle(context.Background(), h.opts, in)
	if warn != "" {
		h.t.Logf("warn: %s", warn)
	}
	var a map[string]any
	if err := json.Unmarshal(out, &a); err != nil {
		h.t.Fatalf("%s: answer is not JSON: %s", event, out)
	}
	return a
}

func str(a map[string]any, k string) string { s, _ := a[k].(string); return s }

func TestTurnFailFixVerified(t *testing.T) {
	dir := calcProject(t)
	h := newHookCall(t, Claude, dir)
	if a := h.send("UserPromptSubmit", map[string]any{"prompt": "fix Add"}); len(a) != 0 {
		t.Fatalf("turn start answered %v", a)
	}
	a := h.send("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": "All tests pass."})
	if str(a, "decision") != "block" || !strings.Contains(str(a, "reason"), "TestAdd") || !strings.Contains(str(a, "reason"), "want 5") {
		t.Fatalf("a failing test was not sent back with its name and output: %v", a)
	}
	write(t, dir, "calc.go", "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n")
	h.send("PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(dir, "calc.go")}})
	// The model's own passing run of the whole suite stands in for the gate's.
	h.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}, "tool_response": map[string]any{"stdout": "ok", "stderr": ""}})
	a = h.send("Stop", map[string]any{"stop_hook_active": true})
	msg := str(a, "systemMessage")
	if a["decision"] != nil || !strings.HasPrefix(msg, "Verified: ") || !strings.Contains(msg, "your own run, not repeated") {
		t.Fatalf("fixed code not verified with the evidence shown: %v", a)
	}
}

func TestDeletedTestIsBlockedAtOnceAndAtStop(t *testing.T) {
	dir := calcProject(t)
	h := newHookCall(t, Codex, dir)
	h.send("UserPromptSubmit", nil)
	os.Remove(filepath.Join(dir, "calc_test.go"))
	a := h.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "rm calc_test.go"}, "tool_response": ""})
	note, _ := a["hookSpecificOutput"].(map[string]any)
	if note == nil || !strings.Contains(note["additionalContext"].(string), "fix the code, not the tests") {
		t.Fatalf("tampering not reported after the tool: %v", a)
	}
	a = h.send("Stop", map[string]any{"stop_hook_active": false})
	if str(a, "decision") != "block" || !strings.Contains(str(a, "reason"), "fix the code, not the tests") {
		t.Fatalf("a deleted test was not blocked: %v", a)
	}
}

// Past max_attempts the stop is allowed, never silently: the user sees
// ⚠ Not verified with the failure.
func TestCapAllowsTheStopNotVerified(t *testing.T) {
	dir := calcProject(t)
	write(t, dir, "calc.go", "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n")
	h := newHookCall(t, Gemini, dir)
	h.send("BeforeAgent", nil)
	var reason string
	for i := 0; i < 2; i++ {
		if i > 0 {
			// gemini-cli retries with the deny reason as a new prompt,
			// through BeforeAgent: the same turn goes on.
			h.send("BeforeAgent", map[string]any{"prompt": reason})
		}
		// Each try breaks Add anew, so the gate runs again.
		write(t, dir, "calc.go", "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b - "+string(rune('0'+i))+" }\n")
		a := h.send("AfterAgent", map[string]any{"stop_hook_active": i > 0})
		if str(a, "decision") != "deny" {
			t.Fatalf("attempt %d: %v", i+1, a)
		}
		reason = str(a, "reason")
	}
	write(t, dir, "calc.go", "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a * b }\n")
	a := h.send("AfterAgent", map[string]any{"stop_hook_active": true})
	msg := str(a, "systemMessage")
	if a["decision"] != nil || !strings.Contains(msg, "⚠ Not verified") || !strings.Contains(msg, "TestAdd") || !strings.Contains(msg, "max_attempts") {
		t.Fatalf("cap: %v", a)
	}
}

func TestStopWithoutSnapshotComparesAgainstHEAD(t *testing.T) {
	dir := calcProject(t)
	h := newHookCall(t, Claude, dir)
	write(t, dir, "calc.go", "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n")
	a := h.send("Stop", nil)
	if msg := str(a, "systemMessage"); !strings.HasPrefix(msg, "Verified: ") || !strings.Contains(msg, "no turn-start snapshot: compared against HEAD") {
		t.Fatalf("%v", a)
	}
}

func TestSubagentStopAndBadInputNeverPass(t *testing.T) {
	dir := calcProject(t)
	h := newHookCall(t, Claude, dir)
	if a := h.send("SubagentStop", nil); len(a) != 0 {
		t.Fatalf("SubagentStop gated: %v", a)
	}
	out, warn := Handle(context.Background(), h.opts, []byte("{not json"))
	if !strings.Contains(string(out), "⚠ Not verified") || warn == "" {
		t.Fatalf("bad payload: %s / %q", out, warn)
	}
	// A crash is reported as one at a stop, never as a pass.
	h.opts.StateDir = "/dev/null/state"
	a := h.send("Stop", nil)
	if msg := str(a, "systemMessage"); !strings.Contains(msg, "⚠ Not verified") || !strings.Contains(msg, "could not run") {
		t.Fatalf("broken state: %v", a)
	}
}

// After a send-back, a stop with nothing changed is the model explaining
// (the failing code is code it was told to leave alone): the verdict
// stands, nothing runs again, and the user sees ⚠ Not verified. An agent
// that sends stop_hook_active false every time is not blocked forever.
func TestUnchangedStopAfterSendBackEndsNotVerified(t *testing.T) {
	dir := calcProject(t)
	h := newHookCall(t, Claude, dir)
	h.send("UserPromptSubmit", nil)
	if a := h.send("Stop", map[string]any{"stop_hook_active": false}); str(a, "decision") != "block" {
		t.Fatalf("first stop: %v", a)
	}
	a := h.send("Stop", map[string]any{"stop_hook_active": false})
	if msg := str(a, "systemMessage"); a["decision"] != nil || !strings.Contains(msg, "⚠ Not verified") || !strings.Contains(msg, "TestAdd") {
		t.Fatalf("unchanged stop after a send-back: %v", a)
	}
}

// Claude Code runs a subagent in the background and hands its result to
// the model as a <task-notification> prompt: UserPromptSubmit again, with
// the turn's own prompt_id. That is the same turn: its snapshot stays, so
// what the subagent changed is still the turn's change.
func TestTaskNotificationKeepsTheTurn(t *testing.T) {
	dir := calcProject(t)
	h := newHookCall(t, Claude, dir)
	delete(h.base, "turn_id")
	h.send("UserPromptSubmit", map[string]any{"prompt": "fix Add"})
	os.Remove(filepath.Join(dir, "calc_test.go")) // the subagent's Bash
	h.send("SubagentStop", map[string]any{"stop_hook_active": false, "agent_id": "a1"})
	h.send("UserPromptSubmit", map[string]any{"prompt": "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>"})
	a := h.send("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": "The subagent fixed it."})
	if str(a, "decision") != "block" || !strings.Contains(str(a, "reason"), "fix the code, not the tests") {
		t.Fatalf("the subagent's deleted test was lost with a new snapshot: %v", a)
	}
	// A prompt of the user's own (a new prompt_id) is a new turn.
	h.base["prompt_id"] = "p-2"
	h.send("UserPromptSubmit", map[string]any{"prompt": "now leave it"})
	if a := h.send("Stop", map[string]any{"stop_hook_active": false}); a["decision"] != nil {
		t.Fatalf("a new turn with nothing changed since its start was blocked: %v", a)
	}
}

// TestChainedOwnRunStandsIn: the model's passing `go vet ./... && go test
// ./...` is both checks' own run; a chain with `;` is neither.
func TestChainedOwnRunStandsIn(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		own  int // checks shown as the model's own run
		desc string
	}{
		{"go vet ./... && go test ./...", 2, "an && chain of plain checks"},
		{"go vet ./... ; go test ./...", 0, "a ; list, whose status is the last command's"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			dir := calcProject(t)
			h := newHookCall(t, Claude, dir)
			h.send("UserPromptSubmit", map[string]any{"prompt": "fix Add"})
			write(t, dir, "calc.go", "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n")
			h.send("PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(dir, "calc.go")}})
			h.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": tc.cmd}, "tool_response": map[string]any{"stdout": "ok", "stderr": ""}})
			a := h.send("Stop", map[string]any{"stop_hook_active": false})
			msg := str(a, "systemMessage")
			if a["decision"] != nil || !strings.HasPrefix(msg, "Verified: ") {
				t.Fatalf("fixed code not verified: %v", a)
			}
			if n := strings.Count(msg, "your own run, not repeated"); n != tc.own {
				t.Fatalf("%d checks shown as the model's own run, want %d: %s", n, tc.own, msg)
			}
		})
	}
}

// A check that writes into the project is named for it in the stop's
// evidence, against the turn-start snapshot as against git.
func TestStopNamesWhatTheChecksWrote(t *testing.T) {
	dir := calcProject(t)
	h := newHookCall(t, Claude, dir)
	h.opts.Checks = []string{"echo run > left.out"}
	if a := h.send("UserPromptSubmit", map[string]any{"prompt": "fix Add"}); len(a) != 0 {
		t.Fatalf("turn start answered %v", a)
	}
	write(t, dir, "calc.go", "package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n")
	h.send("PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(dir, "calc.go")}})
	a := h.send("Stop", map[string]any{"stop_hook_active": false})
	msg := str(a, "systemMessage")
	if a["decision"] != nil || !strings.HasPrefix(msg, "Verified: ") || !strings.Contains(msg, "Note: the checks wrote files your change did not touch: left.out") {
		t.Fatalf("what the check wrote is not named: %v", a)
	}
}
