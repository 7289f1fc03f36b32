package cli

import (
	"context"
	"time"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/gate"
	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
)

// newGatePolicy builds verified mode from the effective guardrails (flags
// applied). With guardrails off it still guards against test tampering and
// finishing on a failed run, as DESIGN §4 asks of the plain agent.
func newGatePolicy(cfg config.Config, root string, runner *run.Runner) agent.StopPolicy {
	g := cfg.Guardrails
	return gate.New(gate.Options{
		Verify:         g.Enabled,
		Full:           g.Scope == "full",
		Checks:         g.Checks,
		MaxAttempts:    g.MaxAttempts,
		Timeout:        time.Duration(g.TimeoutSecs) * time.Second,
		ProtectTests:   g.ProtectTests,
		AllowTestEdits: g.AllowTestEdits,
		Runner:         runner,
		Root:           repoTop(runner, root),
	})
}

// repoTop is the top of the git work tree holding dir, else dir: the turn
// snapshot covers the whole repository even when chanto starts in a
// sub-folder.
func repoTop(r *run.Runner, dir string) string {
	// No context reaches here; rev-parse answers at once, so a short
	// bound keeps an interrupt prompt.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	top, err := git.Top(ctx, r, dir)
	if err != nil {
		return dir
	}
	return top
}
