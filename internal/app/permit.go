package app

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/hook"
	"github.com/chanto-dev/chanto/internal/tool"
)

// permitter is the session's permission policy: the pre_tool_use hooks,
// then the rules; where they would ask, an interactive session asks the
// user, any other refuses naming the rule to add. The mode and the
// session's "always" answers change it while the session runs.
type permitter struct {
	root  string
	hooks *hook.Hooks
	warn  func(string)
	// ask puts a question to the user and waits for the answer; nil in a
	// session that cannot ask.
	ask func(ctx context.Context, q Question) Answer

	mu    sync.Mutex
	perms config.Permissions
	inner *agent.HookApprover
}

func newPermitter(perms config.Permissions, root string, hooks *hook.Hooks, warn func(string)) (*permitter, error) {
	p := &permitter{root: root, hooks: hooks, warn: warn}
	if err := p.set(perms); err != nil {
		return nil, err
	}
	return p, nil
}

// set rebuilds the rules from perms.
func (p *permitter) set(perms config.Permissions) error {
	pa, err := agent.NewPolicyApprover(perms, p.root)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.perms = perms
	p.inner = &agent.HookApprover{Hooks: p.hooks, Policy: pa, Cwd: p.root, Warn: p.warn}
	p.mu.Unlock()
	return nil
}

func (p *permitter) current() (*agent.HookApprover, config.Permissions) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inner, p.perms
}

// Permit implements agent.Permitter.
func (p *permitter) Permit(ctx context.Context, t tool.Tool, input json.RawMessage) agent.Permission {
	inner, _ := p.current()
	d := inner.Permit(ctx, t, input)
	if d.Allowed || !d.Ask || p.ask == nil {
		return d
	}
	q := Question{Tool: t.Name(), Input: input, Subject: d.Subject, Suggest: d.Suggest, Why: d.Detail}
	if d.Input != nil {
		q.Input = d.Input
	}
	a := p.ask(ctx, q)
	if a.Allow {
		if a.Always && d.Suggest != "" {
			p.allowAlways(d.Suggest)
		}
		return agent.Permission{Tool: t.Name(), Allowed: true, By: agent.ByUser, Input: d.Input}
	}
	detail := "the user declined this call"
	if a.Reason != "" {
		detail += ": " + a.Reason
	}
	if ctx.Err() != nil {
		detail = "interrupted by the user before it ran"
	}
	return agent.Permission{Tool: t.Name(), By: agent.ByUser, Detail: detail}
}

// allowAlways adds an allow rule for the rest of the session and saves
// it for the project folder (config.AllowFile), so later sessions there
// have it too.
func (p *permitter) allowAlways(rule string) {
	if err := config.SaveAllow(config.FindProjectRoot(p.root), rule); err != nil && p.warn != nil {
		p.warn("allow " + rule + ": not saved for later sessions: " + err.Error())
	}
	_, perms := p.current()
	if slices.Contains(perms.Allow, rule) {
		return
	}
	perms.Allow = append(slices.Clone(perms.Allow), rule)
	if err := p.set(perms); err != nil && p.warn != nil {
		p.warn("allow " + rule + ": " + err.Error())
	}
}

var _ agent.Permitter = (*permitter)(nil)

// withSavedAllows adds the rules the user saved for this project folder
// by answering "always" before; a broken store is said and skipped.
func (s *Session) withSavedAllows(perms config.Permissions) config.Permissions {
	saved, err := config.SavedAllows(config.FindProjectRoot(s.opts.Cwd))
	if err != nil {
		s.opts.Warn("saved allow rules ignored: " + err.Error())
		return perms
	}
	for _, r := range saved {
		if !slices.Contains(perms.Allow, r) {
			perms.Allow = append(slices.Clone(perms.Allow), r)
		}
	}
	return perms
}
