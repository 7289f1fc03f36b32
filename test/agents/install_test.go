package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A project that already has settings of its own, committed with chanto's
// hooks added by `chanto hook install`: the user's hook keeps running
// beside chanto's. (Codex with install --trust: codex_test.go.)

// A lazy claim in Claude Code, with the hooks `chanto hook install claude`
// wrote into the project's settings next to one of the user's own: blocked
// with the failing test, then verified once the model fixed the code.
func TestClaudeInstalledHooksGate(t *testing.T) {
	dir := project(t, brokenCalc)
	own := "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo own-stop-hook > own.txt\"}]}]\n  }\n}\n"
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "CHANTO_HOME="+chantoHome(t, ""))
	env = append(env, goEnv(t)...)
	installHooks(t, dir, []string{"HOME=" + home}, "claude")
	// The settings are part of the change the gate sees; commit them as a
	// project would.
	for _, args := range [][]string{{"add", ".claude"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "chanto hooks"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	m := scripted(t,
		step{expect: []string{"Fix the failing test"}, reply: reply{Text: "All tests pass."}},
		// TestAdd failed at the turn's start too (the broken code is
		// committed): the model is told it was already failing.
		step{expect: []string{"TestAdd", "want 5", "already failing"}, reply: reply{Calls: []call{bash(writeFile("calc.go", fixedCalc))}}},
		step{reply: reply{Text: "Fixed Add: it subtracted."}},
	)
	srv := anthropicServer(t, m)
	cmd := exec.Command(claudeBinary(t), "-p", "Fix the failing test in this Go module.", "--model", "claude-sonnet-4-5",
		"--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--allowedTools", "Bash,Edit,Write,Read")
	cmd.Dir = dir
	cmd.Env = append(env, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-fake-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	m.check(t)
	shown := claudeShown(string(out))
	if !strings.Contains(shown, "Verified: go vet ./...") {
		t.Fatalf("the evidence line did not reach the user; shown: %s", shown)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "own.txt")); !strings.Contains(string(data), "own-stop-hook") {
		t.Errorf("the user's own Stop hook did not run")
	}
}
