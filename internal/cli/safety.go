package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/hook"
	"github.com/chanto-dev/chanto/internal/policy"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

// This file wires issue 6's layers into the seams print mode and chanto
// verify build on: newRunner gets the sandbox and the check approval,
// newApprover the permission policy behind the pre_tool_use hooks, and
// the gate's stop policy the remaining hooks. docs/security.md, "How
// chanto wires it", says the same for users.

// Hooks come from the loaded configuration, which already dropped the
// hooks of an untrusted project's .chanto/config.toml (with a warning):
// what is left is the user's own file and trusted projects, so hook.New
// is told the configuration is trusted.
const hooksFromLoadedConfig = true

// sandboxOptions lets tests point the sandbox at a missing bubblewrap.
var sandboxOptions []sandbox.Option

// safeRunner builds the runner every command goes through: the scrubbed
// environment, the sandbox unless [sandbox] mode (or --sandbox) is "off",
// and, for checks, the same permission policy and pre_tool_use hooks as a
// bash call. When the sandbox cannot be set up on this machine the runner
// still exists and every command it is given fails with the sandbox's
// how-to-fix message; nothing runs unconfined.
func safeRunner(cfg config.Config, root string) (*run.Runner, error) {
	r := &run.Runner{PassEnv: cfg.Secrets.PassEnv, ScrubExtra: providerKeyEnvs(cfg)}
	if cfg.Sandbox.Mode != sandbox.ModeOff {
		sb, err := sandbox.New(cfg.Sandbox, config.FindProjectRoot(root), sandboxOptions...)
		if err != nil {
			return nil, err
		}
		r.Sandbox = sb
		// chanto's own git: read-only and offline whatever the mode.
		if r.GitSandbox, err = sandbox.NewGit(config.FindProjectRoot(root), sandboxOptions...); err != nil {
			return nil, err
		}
		dl, err := downloadSandbox(cfg, root)
		if err != nil {
			return nil, err
		}
		if dl != nil {
			r.DownloadSandbox = dl
		}
	}
	pa, err := agent.NewPolicyApprover(cfg.Permissions, root)
	if err != nil {
		return nil, err
	}
	hooks, err := hook.New(cfg.Hooks, r, hooksFromLoadedConfig)
	if err != nil {
		return nil, err
	}
	r.ApproveCheck = checkApproval(pa, hooks, root)
	return r, nil
}

// checkApproval rules on a gate check as on a bash call with that command
// line. The user asked for verification, so what the policy would only
// ask about (in print mode, every command without an allow rule) runs;
// a deny rule, a built-in guard, lockdown without an allow rule, or a
// pre_tool_use hook's deny refuses it, and the run ends unverified.
func checkApproval(pa *agent.PolicyApprover, hooks *hook.Hooks, root string) func(context.Context, string) (bool, string) {
	return func(ctx context.Context, command string) (bool, string) {
		input, _ := json.Marshal(map[string]string{"command": command})
		if hooks.Has(hook.PreToolUse, "bash") {
			d, err := hooks.Run(ctx, hook.PreToolUse, hook.Payload{Cwd: root, ToolName: "bash", ToolInput: input})
			warnLine(err)
			if d.Action == hook.Block {
				return false, fmt.Sprintf("check %q refused by a pre_tool_use hook: %s", command, d.Reason)
			}
			if d.ToolInput != nil {
				var in struct{ Command string }
				if json.Unmarshal(d.ToolInput, &in) != nil || in.Command != command {
					return false, fmt.Sprintf("check %q refused: a pre_tool_use hook rewrote it, and checks run only as configured", command)
				}
			}
		}
		d := pa.Decide("bash", input)
		if d.Verdict == policy.Deny && !strings.HasPrefix(d.Rule, "mode:") {
			return false, fmt.Sprintf("check %q refused: %s", command, strings.TrimPrefix(d.Reason, "bash refused: "))
		}
		return true, ""
	}
}

// safeApprover is the permission policy for print mode behind the
// pre_tool_use hooks. Its hooks run through their own runner, built the
// same way as the model's.
func safeApprover(cfg config.Config, root string) (agent.Approver, error) {
	pa, err := agent.NewPolicyApprover(cfg.Permissions, root)
	if err != nil {
		return nil, err
	}
	hooks, err := hookSet(cfg, root)
	if err != nil {
		return nil, err
	}
	return &agent.HookApprover{Hooks: hooks, Policy: pa, Cwd: root, Warn: warnText}, nil
}

func hookSet(cfg config.Config, root string) (*hook.Hooks, error) {
	r, err := safeRunner(cfg, root)
	if err != nil {
		return nil, err
	}
	return hook.New(cfg.Hooks, r, hooksFromLoadedConfig)
}

// withStopHooks puts the session, prompt, post-tool and stop hooks around
// the gate's stop policy: the gate rules first, then the stop hooks judge
// an answer the gate accepted.
func withStopHooks(cfg config.Config, root string, runner *run.Runner, inner agent.StopPolicy) agent.StopPolicy {
	hooks, err := hook.New(cfg.Hooks, runner, hooksFromLoadedConfig)
	if err != nil {
		warnText(err.Error())
		return inner
	}
	return &agent.HookPolicy{Inner: inner, Hooks: hooks, Cwd: root, Source: "startup", Warn: warnText}
}

// warnText reports what a hook layer has to say: failed hooks and the
// stop hook's cap. Print mode's stderr is the process's.
func warnText(s string) { diag(os.Stderr, "%s", s) }

func warnLine(err error) {
	if err != nil {
		for _, l := range strings.Split(err.Error(), "\n") {
			warnText(l)
		}
	}
}
