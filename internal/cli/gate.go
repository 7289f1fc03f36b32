package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
func newGatePolicy(cfg config.Config, root string, runner *run.Runner, s gateSession) agent.StopPolicy {
	g := cfg.Guardrails
	return gate.New(gate.Options{
		Verify:         g.Enabled,
		Full:           g.Scope == "full",
		FullReason:     s.fullReason,
		FullRunSecs:    s.fullRuns(),
		Measured:       s.measured,
		Checks:         g.Checks,
		MaxAttempts:    g.MaxAttempts,
		Timeout:        time.Duration(g.TimeoutSecs) * time.Second,
		ProtectTests:   g.ProtectTests,
		AllowTestEdits: g.AllowTestEdits,
		Runner:         runner,
		Root:           repoTop(runner, root),
	})
}

// gateSession is what the gate keeps of the session: what asked for the
// full suite, and the full-run timings its transcript holds.
type gateSession struct {
	fullReason string
	session    printSession
}

func (s gateSession) fullRuns() map[string]float64 {
	if s.session == nil {
		return nil
	}
	return s.session.FullRuns()
}

// measured records a full-run timing in the transcript; a failed write
// only loses the shortcut next turn.
func (s gateSession) measured(key string, secs float64) {
	if s.session != nil {
		_ = s.session.RecordFullRun(key, secs)
	}
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

// fullReason names what asked for the full suite: the flag, or the
// setting and the file it is in (`scope = "full" in ~/.chanto/config.toml`).
func fullReason(l *config.Loaded, flag bool) string {
	if flag {
		return "--verify-full"
	}
	return scopeSetting(l)
}

// scopeSetting is `scope = "full"` and where it was set.
func scopeSetting(l *config.Loaded) string {
	const setting = `scope = "full"`
	for _, src := range l.Sources() {
		if src.Key != "guardrails.scope" || src.From == "default" || strings.HasPrefix(src.From, "flag ") {
			continue
		}
		file := src.From
		if i := strings.LastIndexByte(file, ':'); i > 0 {
			if _, err := strconv.Atoi(file[i+1:]); err == nil {
				file = file[:i]
			}
		}
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			if rest, ok := strings.CutPrefix(file, home+string(filepath.Separator)); ok {
				file = "~/" + filepath.ToSlash(rest)
			}
		}
		return setting + " in " + file
	}
	return setting
}
