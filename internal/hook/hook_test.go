package hook

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

func newHooks(t *testing.T, cfg config.Hooks, trusted bool) *Hooks {
	t.Helper()
	h, err := New(cfg, &run.Runner{}, trusted)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPreToolUseDecisions(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body string
		want       Action
		reason     string
	}{
		{"silent", `cat >/dev/null`, Continue, ""},
		{"exit2", `echo "rm is not allowed here" >&2; exit 2`, Block, "rm is not allowed here"},
		{"legacy block", `echo '{"decision":"block","reason":"nope"}'`, Block, "nope"},
		{"flat deny", `echo '{"permissionDecision":"deny","permissionDecisionReason":"flat"}'`, Block, "flat"},
		{"cc deny", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"cc"}}'`, Block, "cc"},
		{"ask", `echo '{"permissionDecision":"ask","permissionDecisionReason":"check"}'`, Ask, "check"},
		{"allow", `echo '{"permissionDecision":"allow"}'`, Allow, ""},
		{"continue false", `echo '{"continue":false,"stopReason":"halt"}'`, Block, "halt"},
	}
	for _, c := range cases {
		cmd := script(t, dir, strings.ReplaceAll(c.name, " ", "_"), c.body)
		h := newHooks(t, config.Hooks{PreToolUse: []config.Hook{{Matcher: "Bash", Command: cmd}}}, true)
		d, err := h.Run(context.Background(), PreToolUse, Payload{Cwd: dir, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`)})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if d.Action != c.want || d.Reason != c.reason {
			t.Errorf("%s: got %q %q, want %q %q", c.name, d.Action, d.Reason, c.want, c.reason)
		}
	}
}

func TestPayloadIsDataNotShell(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "payload.json")
	cmd := script(t, dir, "record", `cat > `+got)
	h := newHooks(t, config.Hooks{PreToolUse: []config.Hook{{Command: cmd}}}, true)
	evil := `{"command":"$(touch ` + dir + `/pwned1); '; touch ` + dir + `/pwned2; '` + "`touch " + dir + "/pwned3`" + `"}`
	_, err := h.Run(context.Background(), PreToolUse, Payload{SessionID: "s1", Cwd: dir, ToolName: "bash", ToolInput: json.RawMessage(evil), TranscriptPath: "/t.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pwned1", "pwned2", "pwned3"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("payload was executed: %s exists", f)
		}
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("payload %s: %v", b, err)
	}
	for k, v := range map[string]any{"session_id": "s1", "hook_event_name": "PreToolUse", "event": "pre_tool_use", "tool_name": "bash", "cwd": dir, "transcript_path": "/t.jsonl"} {
		if m[k] != v {
			t.Errorf("payload %s = %v, want %v", k, m[k], v)
		}
	}
	if ti, _ := m["tool_input"].(map[string]any); ti == nil || !strings.Contains(ti["command"].(string), "pwned1") {
		t.Errorf("tool_input = %v", m["tool_input"])
	}
}

func TestRewriteChainsAndMatcher(t *testing.T) {
	dir := t.TempDir()
	rewrite := script(t, dir, "rewrite", `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}'`)
	seen := filepath.Join(dir, "seen")
	record := script(t, dir, "record", `cat > `+seen)
	never := script(t, dir, "never", `touch `+filepath.Join(dir, "never-ran"))
	h := newHooks(t, config.Hooks{PreToolUse: []config.Hook{
		{Matcher: "Bash", Command: rewrite},
		{Matcher: "bash|Edit", Command: record},
		{Matcher: "Edit|Write", Command: never},
	}}, true)
	d, err := h.Run(context.Background(), PreToolUse, Payload{Cwd: dir, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != Allow || string(d.ToolInput) != `{"command":"ls -la"}` {
		t.Errorf("got %q %s", d.Action, d.ToolInput)
	}
	b, _ := os.ReadFile(seen)
	if !strings.Contains(string(b), `"ls -la"`) {
		t.Errorf("second hook saw %s, want the rewritten input", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "never-ran")); err == nil {
		t.Error("hook with matcher Edit|Write ran for bash")
	}
	if !h.Has(PreToolUse, "Bash") || h.Has(PostToolUse, "bash") {
		t.Error("Has is wrong")
	}
}

func TestTimeoutAndFailuresDoNotBlock(t *testing.T) {
	dir := t.TempDir()
	slow := script(t, dir, "slow", `sleep 30`)
	bad := script(t, dir, "bad", `echo '{"decision":'`)
	crash := script(t, dir, "crash", `echo boom >&2; exit 1`)
	h := newHooks(t, config.Hooks{PostToolUse: []config.Hook{{Command: slow, TimeoutSecs: 1}, {Command: bad}, {Command: crash}}}, true)
	start := time.Now()
	d, err := h.Run(context.Background(), PostToolUse, Payload{Cwd: dir, ToolName: "bash"})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("timeout not enforced: %v", took)
	}
	var he *Error
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "timed out") || !strings.Contains(err.Error(), "not a valid JSON") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v", err)
	}
	if d.Action != Continue {
		t.Errorf("failing hooks decided %q", d.Action)
	}
}

func TestStopSendBackCap(t *testing.T) {
	dir := t.TempDir()
	cmd := script(t, dir, "judge", `cat >/dev/null; echo '{"decision":"block","reason":"tests are missing"}'`)
	h := newHooks(t, config.Hooks{Stop: []config.Hook{{Command: cmd}}}, true)
	for i := 1; i <= DefaultMaxStopSends; i++ {
		d, err := h.Run(context.Background(), Stop, Payload{Cwd: dir, LastAnswer: "done", StopHookActive: i > 1})
		if err != nil || d.Action != Block || d.Reason != "tests are missing" || d.StopCapReached {
			t.Fatalf("send %d: %+v %v", i, d, err)
		}
	}
	d, _ := h.Run(context.Background(), Stop, Payload{Cwd: dir})
	if !d.StopCapReached || d.Action != Continue || !strings.Contains(d.Reason, "3 times") {
		t.Errorf("past the cap: %+v", d)
	}
	d, _ = h.Run(context.Background(), Stop, Payload{Cwd: dir})
	if d.Action != Block {
		t.Errorf("the count did not restart: %+v", d)
	}
}

func TestUntrustedHooksNeverRun(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	cmd := "touch " + marker
	h := newHooks(t, config.Hooks{SessionStart: []config.Hook{{Command: cmd}}, Stop: []config.Hook{{Command: cmd}}}, false)
	for _, ev := range []Event{SessionStart, Stop} {
		if _, err := h.Run(context.Background(), ev, Payload{Cwd: dir}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an untrusted hook ran")
	}
	if h.Disabled() != 2 {
		t.Errorf("Disabled() = %d, want 2", h.Disabled())
	}
}

func TestSessionStartContext(t *testing.T) {
	dir := t.TempDir()
	h := newHooks(t, config.Hooks{SessionStart: []config.Hook{{Command: "echo 'branch: main'"}, {Command: `echo '{"additionalContext":"ci is red"}'`}}}, true)
	d, err := h.Run(context.Background(), SessionStart, Payload{Cwd: dir, Source: "startup"})
	if err != nil || d.Context != "branch: main\nci is red" {
		t.Errorf("context %q, err %v", d.Context, err)
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []config.Hooks{
		{PreToolUse: []config.Hook{{Matcher: "(", Command: "true"}}},
		{Stop: []config.Hook{{Command: "  "}}},
		{UserPrompt: []config.Hook{{Command: "true", TimeoutSecs: -1}}},
	} {
		if _, err := New(c, nil, true); err == nil || !strings.Contains(err.Error(), "hooks.") {
			t.Errorf("%+v: err = %v", c, err)
		}
	}
}
