package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// codexHome is a CODEX_HOME whose config points Codex at the fake model
// (a custom provider on the Responses wire) with hooks on and the project
// trusted; `chanto hook install codex --trust` then writes the project's
// .codex/hooks.json and records the hooks' approval.
func codexHome(t *testing.T, url, dir string) string {
	t.Helper()
	home := t.TempDir()
	cfg := `model = "gpt-5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "` + url + `/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"

[features]
hooks = true

[projects."` + dir + `"]
trust_level = "trusted"
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	installHooks(t, dir, []string{"CODEX_HOME=" + home, "HOME=" + home}, "codex", "--trust")
	return home
}

// runCodex runs `codex exec` on dir against the fake model and returns
// what it printed.
func runCodex(t *testing.T, dir, config string, m *fakeModel) string {
	t.Helper()
	bin := codexBinary(t)
	srv := responsesServer(t, m)
	home := codexHome(t, srv.URL, dir)
	cmd := exec.CommandContext(agentContext(t), bin, "exec", "--skip-git-repo-check", "Fix the failing test in this Go module.")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "HOME="+home, "FAKE_MODEL_KEY=sk-fake-for-tests", "CHANTO_HOME="+chantoHome(t, config))
	cmd.Env = append(cmd.Env, goEnv(t)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	m.check(t)
	return string(out)
}

func shell(command string) call {
	return call{Name: "exec_command", Input: map[string]any{"cmd": command}}
}

// Codex 0.171's exec mode shows no hook message (systemMessage) to the
// user, so these tests read what the model was told and whether the stop
// went through; what the user is shown is checked with Claude Code.

func TestCodexLazyClaimIsBlockedThenAllowed(t *testing.T) {
	dir := project(t, brokenCalc)
	m := scripted(t,
		step{expect: []string{"Fix the failing test"}, reply: reply{Text: "All tests pass."}},
		step{expect: []string{"TestAdd", "want 5", "Fix the code, not the tests"}, reply: reply{Calls: []call{shell(writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Text: "Fixed Add: it subtracted."}},
	)
	out := runCodex(t, dir, "", m)
	if strings.Count(out, "hook: Stop Blocked") != 1 || !strings.Contains(out, "hook: Stop Completed") {
		t.Fatalf("want one blocked stop, then one allowed:\n%s", out)
	}
}

func TestCodexDeletedTestIsBlocked(t *testing.T) {
	dir := project(t, brokenCalc)
	m := scripted(t,
		step{reply: reply{Calls: []call{shell("rm calc_test.go")}}},
		step{expect: []string{"test file deleted", "fix the code, not the tests"}, reply: reply{Text: "All tests pass."}},
		step{expect: []string{"Your answer was not accepted", "fix the code, not the tests"}, reply: reply{Calls: []call{shell("git checkout calc_test.go")}}},
		step{reply: reply{Calls: []call{shell(writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Text: "Restored the test and fixed Add."}},
	)
	out := runCodex(t, dir, "", m)
	if strings.Count(out, "hook: Stop Blocked") != 1 {
		t.Fatalf("want one blocked stop:\n%s", out)
	}
}

func TestCodexCapAllowsTheStop(t *testing.T) {
	dir := project(t, fixedCalc)
	m := scripted(t,
		step{reply: reply{Calls: []call{shell(writeFile("calc.go", wrongCalc("a - b")))}}},
		step{reply: reply{Text: "Refactored. All tests pass."}},
		step{expect: []string{"TestAdd", "attempt 1 of 2"}, reply: reply{Calls: []call{shell(writeFile("calc.go", wrongCalc("a * b")))}}},
		step{reply: reply{Text: "All tests pass."}},
		step{expect: []string{"TestAdd", "attempt 2 of 2"}, reply: reply{Calls: []call{shell(writeFile("calc.go", wrongCalc("a - b - 1")))}}},
		step{reply: reply{Text: "All tests pass."}},
	)
	out := runCodex(t, dir, "[guardrails]\nmax_attempts = 2\n", m)
	if strings.Count(out, "hook: Stop Blocked") != 2 || !strings.Contains(out, "hook: Stop Completed") {
		t.Fatalf("want two blocked stops, then the stop allowed:\n%s", out)
	}
}
