package verify

import (
	"path"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// TeamCheck is a check a team committed ([[team_checks]] in the project
// config): it runs after the detected or configured checks, in the
// repository root, always in full, and the evidence names it by Name.
type TeamCheck struct {
	Name    string
	Command string
	// Paths are globs relative to the repository root ("**" spans
	// folders; a pattern without "/" matches a file's name at any depth).
	// When set, the check runs only if a changed file matches one.
	Paths []string
	// Timeout is the check's own limit; 0 means Options.Timeout.
	Timeout time.Duration
}

// TeamChecks turns the configured [[team_checks]] into the gate's; every
// face (chanto verify, verified mode, the hooks for other agents) passes
// them in Options.TeamChecks.
func TeamChecks(cfg []config.TeamCheck) []TeamCheck {
	out := make([]TeamCheck, 0, len(cfg))
	for _, c := range cfg {
		out = append(out, TeamCheck{Name: c.Name, Command: c.Command, Paths: c.Paths, Timeout: time.Duration(c.TimeoutSecs) * time.Second})
	}
	return out
}

// teamChecks are the team checks this change set calls for. With no
// change, or one that is unknown, the whole project is being checked and
// every team check runs.
func (e *engine) teamChecks() []detect.Check {
	var out []detect.Check
	for _, tc := range e.opts.TeamChecks {
		if len(tc.Paths) > 0 && !e.cs.Unknown && len(e.cs.Changed) > 0 && !anyMatch(tc.Paths, e.cs.Changed) {
			continue
		}
		out = append(out, detect.Check{Command: tc.Command, Dir: e.cs.Root, Runner: detect.Custom, Team: tc.Name, Timeout: tc.Timeout})
	}
	return out
}

// anyMatch reports whether a changed path matches one of the globs.
func anyMatch(globs, changed []string) bool {
	for _, p := range changed {
		for _, g := range globs {
			g = strings.TrimPrefix(g, "./")
			target := p
			if !strings.Contains(g, "/") {
				target = path.Base(p)
			}
			if ok, _ := doublestar.Match(g, target); ok {
				return true
			}
		}
	}
	return false
}
