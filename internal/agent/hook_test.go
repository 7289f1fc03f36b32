package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/hook"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/tool"
)

// hookAgent builds an agent with the real bash tool in a temp folder, the
// permission policy and the given hooks; the script's tool results are
// what the real hooks and policy decided.
func hookAgent(t *testing.T, text string, perms config.Permissions, hooks config.Hooks, warns *[]string) (*Agent, string) {
	t.Helper()
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := t.TempDir()
	runner := &run.Runner{}
	h, err := hook.New(hooks, runner, true)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := NewPolicyApprover(perms, dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	w := func(s string) { mu.Lock(); *warns = append(*warns, s); mu.Unlock() }
	rec := &recorder{}
	return New(Options{
		Provider: script(t, text), Model: "test", Tools: []tool.Tool{tool.Bash{}},
		Env:  &tool.Env{Root: dir, Runner: runner},
		Sink: rec, SessionID: "s1",
		Approver: &HookApprover{Hooks: h, Policy: pa, SessionID: "s1", Cwd: dir, Warn: w},
		Policy:   &HookPolicy{Inner: NoPolicy{}, Hooks: h, SessionID: "s1", Cwd: dir, Source: "startup", Warn: w},
	}), dir
}

func TestPreToolUseHooks(t *testing.T) {
	perms := config.Permissions{Allow: []string{"Bash(echo:*)"}, Deny: []string{"Bash(rm:*)"}}
	hooks := config.Hooks{PreToolUse: []config.Hook{
		// Rewrites touch into echo; denies anything naming "secret"; allows
		// "ls" (which the policy would ask about) and "rm" (denied by rule).
		{Matcher: "Bash", Command: `in=$(cat)
case "$in" in
  *touch*) echo '{"updatedInput":{"command":"echo rewritten"}}' ;;
  *secret*) echo "no secrets here" >&2; exit 2 ;;
  *'"ls'*|*'"rm'*) echo '{"permissionDecision":"allow"}' ;;
esac`},
	}}
	var warns []string
	a, dir := hookAgent(t, `call bash {"command":"touch made"}
---
expect rewritten
call bash {"command":"echo secret"}
---
expect bash refused by a pre_tool_use hook: no secrets here
call bash {"command":"ls"}
---
expect-not refused
call bash {"command":"rm -f x"}
---
expect matches deny rule Bash(rm:*)
call bash {"command":"pwd"}
---
expect Bash(pwd:*)
say done
`, perms, hooks, &warns)
	out, err := a.Run(context.Background(), "go")
	if err != nil || out.Answer != "done" {
		t.Fatalf("answer %q, err %v", out.Answer, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the original input ran, not the rewritten one: %v", err)
	}
	if len(warns) > 0 {
		t.Fatalf("warnings: %q", warns)
	}
}

func TestStopHookSendsBackThenCap(t *testing.T) {
	var warns []string
	// The first hook sends the answer back once (a marker file remembers).
	once := config.Hooks{Stop: []config.Hook{{Command: `test -e sent && exit 0; touch sent; echo '{"decision":"block","reason":"mention the tests"}'`}}}
	a, _ := hookAgent(t, `say first
---
expect A stop hook sent your answer back: mention the tests
say second, tests pass
`, config.Permissions{}, once, &warns)
	out, err := a.Run(context.Background(), "go")
	if err != nil || out.Answer != "second, tests pass" {
		t.Fatalf("answer %q, err %v", out.Answer, err)
	}

	// A hook that always objects is obeyed three times, then the answer stands.
	always := config.Hooks{Stop: []config.Hook{{Command: `echo '{"decision":"block","reason":"again"}'`}}}
	warns = nil
	a, _ = hookAgent(t, "say a\n---\nsay b\n---\nsay c\n---\nsay d\n", config.Permissions{}, always, &warns)
	out, err = a.Run(context.Background(), "go")
	if err != nil || out.Answer != "d" {
		t.Fatalf("answer %q, err %v", out.Answer, err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "sent the answer back 3 times") {
		t.Fatalf("warnings %q, want the cap reported once", warns)
	}
}

func TestUserPromptAndPostToolUseHooks(t *testing.T) {
	var warns []string
	hooks := config.Hooks{
		UserPrompt:  []config.Hook{{Command: `grep -q forbidden && { echo "not that prompt" >&2; exit 2; }; exit 0`}},
		PostToolUse: []config.Hook{{Matcher: "bash", Command: `echo '{"decision":"block","reason":"output looked odd"}'`}},
	}
	a, _ := hookAgent(t, "say never\n", config.Permissions{}, hooks, &warns)
	_, err := a.Run(context.Background(), "a forbidden prompt")
	var pr *PromptRefusedError
	if !errors.As(err, &pr) || pr.Reason != "not that prompt" {
		t.Fatalf("err = %v, want the prompt refused", err)
	}
	a, _ = hookAgent(t, `call bash {"command":"echo hi"}
---
expect A post_tool_use hook flagged this result: output looked odd
say ok
`, config.Permissions{Allow: []string{"Bash(echo:*)"}}, hooks, &warns)
	if out, err := a.Run(context.Background(), "fine"); err != nil || out.Answer != "ok" {
		t.Fatalf("answer %q, err %v", out.Answer, err)
	}
}
