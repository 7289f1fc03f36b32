package hookgate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures in testdata/payloads are hook inputs as each agent sends
// them: Claude Code 2.1 and Codex 0.171 recorded from the real CLIs,
// gemini-cli from its hooks reference (docs/hooks/reference.md).
func readPayload(t *testing.T, name string) payload {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "payloads", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePayload(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

func TestPayloadsMapToMoments(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		agent   Agent
		want    moment
		turn    string
	}{
		{"claude-SessionStart", Claude, sessionStart, ""},
		{"claude-UserPromptSubmit", Claude, turnStart, "01432c4e-1cb8-4947-813b-ce278618342a"},
		{"claude-PostToolUse", Claude, afterTool, "01432c4e-1cb8-4947-813b-ce278618342a"},
		{"claude-PostToolUseFailure", Claude, afterTool, "01432c4e-1cb8-4947-813b-ce278618342a"},
		{"claude-Stop", Claude, stop, "01432c4e-1cb8-4947-813b-ce278618342a"},
		{"claude-SubagentStop", Claude, subagentStop, ""},
		{"codex-SessionStart", Codex, sessionStart, ""},
		{"codex-UserPromptSubmit", Codex, turnStart, "01a233fc-1ab8-70f3-b473-23a421c3400c"},
		{"codex-PostToolUse", Codex, afterTool, "01a233fc-1ab8-70f3-b473-23a421c3400c"},
		{"codex-Stop", Codex, stop, "01a233fc-1ab8-70f3-b473-23a421c3400c"},
		{"gemini-BeforeAgent", Gemini, turnStart, ""},
		{"gemini-AfterTool", Gemini, afterTool, ""},
		{"gemini-AfterAgent", Gemini, stop, ""},
	} {
		p := readPayload(t, tc.fixture)
		if got := tc.agent.moment(p.Event); got != tc.want {
			t.Errorf("%s: moment %d, want %d", tc.fixture, got, tc.want)
		}
		if got := p.turnKey(); got != tc.turn {
			t.Errorf("%s: turn %q, want %q", tc.fixture, got, tc.turn)
		}
		if p.SessionID == "" || p.Cwd != "/p" {
			t.Errorf("%s: session %q cwd %q", tc.fixture, p.SessionID, p.Cwd)
		}
	}
	// An event of one agent means nothing to another.
	if Gemini.moment("Stop") != ignored || Claude.moment("AfterAgent") != ignored {
		t.Error("events crossed agents")
	}
}

func TestShellRunsAndTheirOutcome(t *testing.T) {
	for _, tc := range []struct {
		fixture       string
		agent         Agent
		passed, known bool
		output        string
	}{
		{"claude-PostToolUse", Claude, true, true, "ok  \tcalc\t0.002s"},
		{"claude-PostToolUseFailure", Claude, false, true, "Exit code 1\n--- FAIL: TestAdd"},
		// Codex and gemini-cli send no exit status: their runs never stand in.
		{"codex-PostToolUse", Codex, false, false, "ok  \tcalc\t0.002s"},
		{"gemini-AfterTool", Gemini, false, false, ""},
	} {
		p := readPayload(t, tc.fixture)
		cmd, ok := tc.agent.shellCommand(p)
		if !ok || cmd != "go test ./..." {
			t.Errorf("%s: command %q %v", tc.fixture, cmd, ok)
		}
		passed, known, out := tc.agent.runOutcome(p)
		if passed != tc.passed || known != tc.known || (tc.output != "" && out != tc.output) {
			t.Errorf("%s: passed %v known %v output %q", tc.fixture, passed, known, out)
		}
	}
	if _, ok := Claude.shellCommand(payload{ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"a"}`)}); ok {
		t.Error("Write taken for a shell call")
	}
}

// The answers in each agent's documented shape: Claude Code and Codex
// block a stop with decision "block", gemini-cli's AfterAgent with "deny";
// all three show the user systemMessage.
func TestAnswerFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  answer
		want string
	}{
		{"claude block", Claude.block("fix it"), `{"decision":"block","reason":"fix it"}`},
		{"codex block", Codex.block("fix it"), `{"decision":"block","reason":"fix it"}`},
		{"gemini deny", Gemini.block("fix it"), `{"decision":"deny","reason":"fix it"}`},
		{"claude tell", Claude.tell("Verified: x"), `{"systemMessage":"Verified: x"}`},
		{"gemini tell", Gemini.tell("Verified: x"), `{"systemMessage":"Verified: x"}`},
		{"claude PostToolUse", Claude.toolNote("PostToolUse", "restore"), `{"decision":"block","reason":"restore"}`},
		{"claude PostToolUseFailure", Claude.toolNote("PostToolUseFailure", "restore"), `{"hookSpecificOutput":{"additionalContext":"restore","hookEventName":"PostToolUseFailure"}}`},
		{"codex PostToolUse", Codex.toolNote("PostToolUse", "restore"), `{"hookSpecificOutput":{"additionalContext":"restore","hookEventName":"PostToolUse"}}`},
		{"gemini AfterTool", Gemini.toolNote("AfterTool", "restore"), `{"hookSpecificOutput":{"additionalContext":"restore","hookEventName":"AfterTool"}}`},
	} {
		if got := string(encode(tc.got)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestBadPayloadsNameWhatIsWrong(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "no hook payload on stdin",
		"not json":         "is not a JSON object",
		`{"session_id":1}`: "is not a JSON object",
		`{"cwd":"/p"}`:     "has no hook_event_name",
	} {
		_, err := parsePayload([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if _, err := ParseAgent("cursor"); err == nil || !strings.Contains(err.Error(), `unknown agent "cursor"`) {
		t.Errorf("ParseAgent: %v", err)
	}
}
