package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/event"
)

func TestReadPrompt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.txt")
	if err := os.WriteFile(file, []byte("from file"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		opts  agentOptions
		args  []string
		stdin string
		want  string
		code  int
	}{
		{name: "arguments", args: []string{"fix", "the parser"}, want: "fix the parser"},
		{name: "stdin", stdin: "from stdin\n", want: "from stdin\n"},
		{name: "arguments win over stdin", args: []string{"x"}, stdin: "y", want: "x"},
		{name: "file", opts: agentOptions{promptFile: file}, want: "from file"},
		{name: "missing file", opts: agentOptions{promptFile: file + ".no"}, code: ExitUsage},
		{name: "file and arguments", opts: agentOptions{promptFile: file}, args: []string{"x"}, code: ExitUsage},
		{name: "blank", stdin: " \n", code: ExitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readPrompt(&tc.opts, tc.args, strings.NewReader(tc.stdin))
			if codeOf(err) != tc.code {
				t.Fatalf("err = %v (code %d), want code %d", err, codeOf(err), tc.code)
			}
			if got != tc.want {
				t.Errorf("prompt = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateOptions(t *testing.T) {
	ok := agentOptions{outputFormat: formatText}
	if err := ok.validate(); err != nil {
		t.Fatal(err)
	}
	bad := []agentOptions{
		{outputFormat: "yaml"},
		{outputFormat: formatJSON, permissionMode: "yolo"},
		{outputFormat: formatJSON, sandbox: "none"},
		{outputFormat: formatJSON, maxTurns: -1},
		{outputFormat: formatJSON, resume: "a", continueLast: true},
		{outputFormat: formatJSON, outputSchema: "s.json", verify: VerifyOptions{Enabled: true}},
	}
	for _, o := range bad {
		if err := o.validate(); codeOf(err) != ExitUsage {
			t.Errorf("%+v: err = %v, want a usage error", o, err)
		}
	}
}

func TestApplyFlags(t *testing.T) {
	cfg := config.Default()
	cfg.Guardrails.Checks = []string{"make test"}
	applyFlags(&cfg, &agentOptions{model: "scripted:x", permissionMode: "bypass", lockdown: true, sandbox: "off",
		verify: VerifyOptions{Enabled: true, Full: true, Checks: []string{"go test ./..."}, AllowTestEdits: []string{"a_test.go"}}})
	g := cfg.Guardrails
	if cfg.Model != "scripted:x" || cfg.Permissions.Mode != "bypass" || !cfg.Permissions.Lockdown || cfg.Sandbox.Mode != "off" ||
		!g.Enabled || g.Scope != "full" || len(g.Checks) != 1 || g.Checks[0] != "go test ./..." || g.AllowTestEdits[0] != "a_test.go" {
		t.Errorf("flags not applied: %+v", cfg)
	}
}

func TestTextOutput(t *testing.T) {
	tests := []struct {
		res  runResult
		want string
	}{
		{runResult{Answer: "done"}, "done\n"},
		{runResult{Answer: "done", Evidence: "Verified: go test ./... (1s) passed."}, "done\n\nVerified: go test ./... (1s) passed.\n"},
		{runResult{Err: errors.New("boom")}, ""},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		o := newOutput(formatText, &stdio{out: &out, err: &out})
		o.Emit(event.Event{Type: event.MessageDelta, Text: "not streamed to a pipe"})
		o.finish(tc.res)
		if out.String() != tc.want {
			t.Errorf("got %q, want %q", out.String(), tc.want)
		}
	}
}

func TestJSONOutput(t *testing.T) {
	var out bytes.Buffer
	o := newOutput(formatJSON, &stdio{out: &out})
	o.Emit(event.Event{Type: event.MessageDelta, Text: "ignored"})
	o.finish(runResult{Answer: "a", Verdict: "not_verified", Evidence: "⚠ Not verified: x", SessionID: "s",
		ExitCode: ExitNotVerified, NumTurns: 2, Usage: event.Usage{InputTokens: 10, OutputTokens: 3}})
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, k := range []string{"result", "verdict", "evidence", "usage", "session_id", "exit_code", "num_turns"} {
		if _, ok := got[k]; !ok {
			t.Errorf("field %q missing: %s", k, out.String())
		}
	}
	if _, ok := got["error"]; ok {
		t.Error("error present on a run without one")
	}
	if got["exit_code"].(float64) != 3 || got["verdict"] != "not_verified" {
		t.Errorf("got %s", out.String())
	}
}

func TestTextOutputOnATerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	o := &textOutput{out: &out, err: &errOut, live: true}
	o.Emit(event.Event{Type: event.MessageDelta, Text: "Let me"})
	o.Emit(event.Event{Type: event.MessageDelta, Text: " look."})
	o.Emit(event.Event{Type: event.MessageCompleted, Text: "Let me look."})
	o.Emit(event.Event{Type: event.ToolStarted, Tool: &event.Tool{Name: "bash", Input: []byte(`{"command":"go test ./...\necho"}`)}})
	o.Emit(event.Event{Type: event.ToolCompleted, Tool: &event.Tool{Name: "bash", Output: "exit 1\nFAIL", IsError: true}})
	o.Emit(event.Event{Type: event.MessageDelta, Text: "Fixed."})
	o.Emit(event.Event{Type: event.MessageCompleted, Text: "Fixed."})
	o.finish(runResult{Answer: "Fixed.", Evidence: "Verified: go test ./... (1s) passed."})
	if want := "Let me look.\nFixed.\n\nVerified: go test ./... (1s) passed.\n"; out.String() != want {
		t.Errorf("stdout = %q, want %q", out.String(), want)
	}
	if want := "  ▸ bash go test ./...\n  ✗ bash: exit 1\n"; errOut.String() != want {
		t.Errorf("stderr = %q, want %q", errOut.String(), want)
	}
}
