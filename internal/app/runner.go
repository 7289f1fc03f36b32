package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/hook"
	"github.com/chanto-dev/chanto/internal/policy"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/sandbox"
)

// Hooks come from the loaded configuration, which already dropped the
// hooks of an untrusted project's .chanto/config.toml (with a warning):
// what is left is the user's own file and trusted projects, so hook.New
// is told the configuration is trusted.
const hooksFromLoadedConfig = true

// RunnerOptions adjust NewRunner.
type RunnerOptions struct {
	// Sandbox lets tests point the sandbox at a missing bubblewrap.
	Sandbox []sandbox.Option
	// Warn hears hooks that failed without deciding on a check.
	Warn func(string)
}

// NewRunner builds the runner every command goes through — the model's,
// the gate's checks, hooks: the scrubbed environment (provider keys named
// explicitly), the sandbox unless [sandbox] mode is "off", and, for
// checks, the same permission policy and pre_tool_use hooks as a bash
// call. When the sandbox cannot be set up on this machine the runner still
// exists and every command it is given fails with the sandbox's how-to-fix
// message; nothing runs unconfined.
func NewRunner(cfg config.Config, root string, o RunnerOptions) (*run.Runner, error) {
	r := &run.Runner{PassEnv: cfg.Secrets.PassEnv, ScrubExtra: ProviderKeyEnvs(cfg)}
	if cfg.Sandbox.Mode != sandbox.ModeOff {
		sb, err := sandbox.New(cfg.Sandbox, config.FindProjectRoot(root), o.Sandbox...)
		if err != nil {
			return nil, err
		}
		r.Sandbox = sb
		// chanto's own git: read-only and offline whatever the mode.
		if r.GitSandbox, err = sandbox.NewGit(config.FindProjectRoot(root), o.Sandbox...); err != nil {
			return nil, err
		}
		dl, err := downloadSandbox(cfg, root, o.Sandbox)
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
	r.ApproveCheck = checkApproval(pa, hooks, root, o.Warn)
	return r, nil
}

// checkApproval rules on a gate check as on a bash call with that command
// line. The user asked for verification, so what the policy would only
// ask about (in print mode, every command without an allow rule) runs;
// a deny rule, a built-in guard, lockdown without an allow rule, or a
// pre_tool_use hook's deny refuses it, and the run ends unverified.
func checkApproval(pa *agent.PolicyApprover, hooks *hook.Hooks, root string, warn func(string)) func(context.Context, string) (bool, string) {
	return func(ctx context.Context, command string) (bool, string) {
		input, _ := json.Marshal(map[string]string{"command": command})
		if hooks.Has(hook.PreToolUse, "bash") {
			d, err := hooks.Run(ctx, hook.PreToolUse, hook.Payload{Cwd: root, ToolName: "bash", ToolInput: input})
			warnLines(warn, err)
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

// downloadSandbox is the sandbox dependency downloads run in (go mod
// download or cargo fetch, after a check failed for want of a dependency
// it could not download): the checks' own confinement, with the network
// only through the allowlist proxy to the package registries, so a
// project-named source cannot make it reach loopback, a private range or
// any other host. Only the package manager runs there, never project
// code. It is nil, and checks get no download step, when the checks have
// the network already, when the user limited it to an allowlist, when the
// sandbox is read-only (a download writes the caches) and under lockdown.
func downloadSandbox(cfg config.Config, root string, opts []sandbox.Option) (*sandbox.Sandbox, error) {
	sb := cfg.Sandbox
	if sb.Mode == sandbox.ModeOff || sb.Mode == sandbox.ModeReadOnly || sb.Network != sandbox.NetDeny || cfg.Permissions.Lockdown {
		return nil, nil
	}
	sb.Network, sb.AllowDomains = sandbox.NetAllowlist, RegistryDomains(os.Getenv("GOPROXY"), os.Getenv("GOSUMDB"))
	return sandbox.New(sb, config.FindProjectRoot(root), opts...)
}

// registries are the hosts go mod download and cargo fetch need.
var registries = []string{"proxy.golang.org", "sum.golang.org", "index.crates.io", "static.crates.io", "crates.io"}

// RegistryDomains adds the hosts of the user's own GOPROXY and GOSUMDB
// (the environment chanto was started with, never the project's).
func RegistryDomains(goproxy, gosumdb string) []string {
	out := append([]string(nil), registries...)
	fields := strings.FieldsFunc(goproxy, func(r rune) bool { return r == ',' || r == '|' })
	if f := strings.Fields(gosumdb); len(f) > 0 {
		fields = append(fields, f[len(f)-1])
	}
	for _, f := range fields {
		u, err := url.Parse(f)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
			continue
		}
		host := u.Hostname()
		if p := u.Port(); p != "" {
			host += ":" + p
		}
		if !slices.Contains(out, host) {
			out = append(out, host)
		}
	}
	return out
}

// ProviderKeyEnvs lists the variables holding provider keys, which the
// model's commands must never see.
func ProviderKeyEnvs(cfg config.Config) []string {
	names := []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}
	for _, p := range cfg.Providers {
		if p.APIKeyEnv != "" {
			names = append(names, p.APIKeyEnv)
		}
	}
	return names
}

// warnLines hands each line of err to warn.
func warnLines(warn func(string), err error) {
	if err == nil || warn == nil {
		return
	}
	for _, l := range strings.Split(err.Error(), "\n") {
		warn(l)
	}
}
