package agents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installHooks runs `chanto hook install AGENT` in dir, with the hook
// command naming the binary under test.
func installHooks(t *testing.T, dir string, env []string, agent string, flags ...string) {
	t.Helper()
	args := append([]string{"-C", dir, "hook", "install", agent, "--command", chantoBin}, flags...)
	cmd := exec.Command(chantoBin, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chanto hook install %s: %v\n%s", agent, err, out)
	}
}

// runClaude runs Claude Code in print mode on dir against the fake model
// and returns what it printed (stream-json, hook events included).
func runClaude(t *testing.T, dir, config string, m *fakeModel) string {
	t.Helper()
	bin := claudeBinary(t)
	home := t.TempDir()
	installHooks(t, dir, []string{"HOME=" + home}, "claude")
	srv := anthropicServer(t, m)
	cmd := exec.CommandContext(agentContext(t), bin, "-p", "Fix the failing test in this Go module.", "--model", "claude-sonnet-4-5",
		"--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--allowedTools", "Bash,Edit,Write,Read,Task")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "CHANTO_HOME="+chantoHome(t, config),
		"ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-fake-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
	cmd.Env = append(cmd.Env, goEnv(t)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	m.check(t)
	return string(out)
}

func bash(command string) call {
	return call{Name: "Bash", Input: map[string]any{"command": command, "description": "run"}}
}

// A lazy claim on a failing test is blocked, the model is told the failing
// test's name and output, and once it fixes the code the stop goes through
// with the evidence line shown.
func TestClaudeLazyClaimIsBlockedThenVerified(t *testing.T) {
	dir := project(t, brokenCalc)
	m := scripted(t,
		step{expect: []string{"Fix the failing test"}, reply: reply{Text: "All tests pass."}},
		step{expect: []string{"TestAdd", "want 5", "Fix the code, not the tests"}, reply: reply{Calls: []call{bash(writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Calls: []call{bash("go test ./...")}}},
		step{expect: []string{"ok"}, reply: reply{Text: "Fixed Add: it subtracted. go test ./... passes."}},
	)
	shown := claudeShown(runClaude(t, dir, "", m))
	if !strings.Contains(shown, "Stop says: Verified: go vet ./...") || !strings.Contains(shown, "your own run, not repeated") {
		t.Fatalf("the evidence line did not reach the user; shown: %s", shown)
	}
}

// A deleted test is reported to the model right after the call, and the
// claim that follows is blocked with "fix the code, not the tests"; once
// the test is back and the code fixed, the gate runs the checks itself.
func TestClaudeDeletedTestIsBlocked(t *testing.T) {
	dir := project(t, brokenCalc)
	m := scripted(t,
		step{reply: reply{Calls: []call{bash("rm calc_test.go")}}},
		step{expect: []string{"test file deleted", "fix the code, not the tests"}, reply: reply{Text: "All tests pass."}},
		step{expect: []string{"Your answer was not accepted", "fix the code, not the tests"}, reply: reply{Calls: []call{bash("git checkout calc_test.go")}}},
		step{reply: reply{Calls: []call{bash(writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Text: "Restored the test and fixed Add."}},
	)
	shown := claudeShown(runClaude(t, dir, "", m))
	if !strings.Contains(shown, "Stop says: Verified: go vet ./...") {
		t.Fatalf("shown: %s", shown)
	}
	if _, err := os.Stat(filepath.Join(dir, "calc_test.go")); err != nil {
		t.Fatal(err)
	}
}

// With max_attempts = 2, the third unverified stop is allowed and the
// user is shown ⚠ Not verified with the failure.
func TestClaudeCapAllowsTheStopNotVerified(t *testing.T) {
	dir := project(t, fixedCalc)
	m := scripted(t,
		step{reply: reply{Calls: []call{bash(writeFile("calc.go", wrongCalc("a - b")))}}},
		step{reply: reply{Text: "Refactored. All tests pass."}},
		step{expect: []string{"TestAdd", "attempt 1 of 2"}, reply: reply{Calls: []call{bash(writeFile("calc.go", wrongCalc("a * b")))}}},
		step{reply: reply{Text: "All tests pass."}},
		step{expect: []string{"TestAdd", "attempt 2 of 2"}, reply: reply{Calls: []call{bash(writeFile("calc.go", wrongCalc("a - b - 1")))}}},
		step{reply: reply{Text: "All tests pass."}},
	)
	shown := claudeShown(runClaude(t, dir, "[guardrails]\nmax_attempts = 2\n", m))
	if !strings.Contains(shown, "⚠ Not verified") || !strings.Contains(shown, "TestAdd") || !strings.Contains(shown, "max_attempts") {
		t.Fatalf("the cap was not shown as Not verified; shown: %s", shown)
	}
}

// claudeShown is what Claude Code showed the user of the hooks' messages
// (the stream-json "informational" system lines), one per line.
func claudeShown(out string) string {
	var shown []string
	for _, l := range strings.Split(out, "\n") {
		var ev struct {
			Type, Subtype, Content string
		}
		if json.Unmarshal([]byte(l), &ev) == nil && ev.Type == "system" && ev.Subtype == "informational" {
			shown = append(shown, ev.Content)
		}
	}
	return strings.Join(shown, "\n")
}

// A subagent (Claude Code runs it in the background and hands its result
// to the model as a <task-notification> prompt, a UserPromptSubmit with
// the turn's prompt_id) deletes the test: that is still the turn's change,
// so the claim that follows is blocked; SubagentStop itself is not gated.
func TestClaudeSubagentChangeIsTheTurns(t *testing.T) {
	dir := project(t, brokenCalc)
	m := scripted(t,
		step{reply: reply{Calls: []call{{Name: "Task", Input: map[string]any{"description": "fix Add", "prompt": "Make TestAdd pass.", "subagent_type": "general-purpose"}}}}},
		step{expect: []string{"Make TestAdd pass."}, reply: reply{Calls: []call{bash("rm calc_test.go")}}},
		step{reply: reply{Text: "Done: TestAdd no longer fails."}},
		step{reply: reply{Text: "The subagent fixed it. All tests pass."}},
		step{expect: []string{"fix the code, not the tests"}, reply: reply{Calls: []call{bash("git checkout calc_test.go")}}},
		step{reply: reply{Calls: []call{bash(writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Text: "Restored the test and fixed Add."}},
	)
	shown := claudeShown(runClaude(t, dir, "", m))
	if !strings.Contains(shown, "Stop says: Verified: go vet ./...") {
		t.Fatalf("shown: %s", shown)
	}
}

// An Edit that weakens the test is reported right after the call (the
// PostToolUse answer reaches the model after Edit as after Bash), and the
// model restores it and fixes the code.
func TestClaudeEditWeakeningTheTestIsToldAtOnce(t *testing.T) {
	dir := project(t, brokenCalc)
	test := filepath.Join(dir, "calc_test.go")
	m := scripted(t,
		step{reply: reply{Calls: []call{{Name: "Read", Input: map[string]any{"file_path": test}}}}},
		step{reply: reply{Calls: []call{{Name: "Edit", Input: map[string]any{"file_path": test, "old_string": "got != 5", "new_string": "got != -1"}}}}},
		step{expect: []string{"expected value changed", "fix the code, not the tests"}, reply: reply{Calls: []call{bash("git checkout calc_test.go && " + writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Text: "Restored the test and fixed Add."}},
	)
	shown := claudeShown(runClaude(t, dir, "", m))
	if !strings.Contains(shown, "Stop says: Verified: go vet ./...") {
		t.Fatalf("shown: %s", shown)
	}
}
