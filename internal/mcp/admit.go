package mcp

import (
	"context"
	"fmt"
	"slices"
)

// Admission decides which configured servers may start. A server of the
// user's own file starts; one the project defines (.mcp.json, or the
// project's .chanto/config.toml) starts only in a trusted folder and once
// the user approved it: earlier (the approval file), by --mcp-approve
// NAME, or by answering Ask.
type Admission struct {
	Root    string
	Trusted bool
	// Approve names the servers approved on the command line; they are
	// recorded as approved.
	Approve []string
	// Ask puts the question to the user; nil where nobody can be asked.
	// always records the approval for later sessions.
	Ask func(ctx context.Context, s Spec) (allow, always bool)
}

// Admit splits specs into those to start and the status of the rest,
// with a one-line warning for each project server left out.
func (a Admission) Admit(ctx context.Context, specs []Spec) (start []Spec, held []Status, warns []string) {
	for _, s := range specs {
		why := a.hold(ctx, s)
		if why == "" {
			start = append(start, s)
			continue
		}
		st := Status{Name: s.Name, Origin: s.Origin, Where: s.Where, Transport: s.Transport, Command: s.CommandLine(), State: StateSkipped, Error: why}
		if !s.Enabled {
			st.State = StateDisabled
		} else {
			warns = append(warns, fmt.Sprintf("MCP server %q (%s) not started: %s", s.Name, s.Where, why))
		}
		held = append(held, st)
	}
	return start, held, warns
}

// hold is why s may not start, "" when it may.
func (a Admission) hold(ctx context.Context, s Spec) string {
	if !s.Enabled {
		return "disabled (enabled = false)"
	}
	if !s.Project() {
		return ""
	}
	if !a.Trusted {
		return fmt.Sprintf("%s is not trusted (run: chanto trust %s)", a.Root, a.Root)
	}
	ok, err := Approved(a.Root, s)
	if err != nil {
		return err.Error()
	}
	if ok {
		return ""
	}
	if slices.Contains(a.Approve, s.Name) {
		if err := Approve(a.Root, s); err != nil {
			return "could not record the approval: " + err.Error()
		}
		return ""
	}
	if a.Ask != nil {
		allow, always := a.Ask(ctx, s)
		if !allow {
			return "you declined it"
		}
		if always {
			if err := Approve(a.Root, s); err != nil {
				return "could not record the approval: " + err.Error()
			}
		}
		return ""
	}
	return fmt.Sprintf("not approved yet (approve it once with --mcp-approve %s, or in the interactive session)", s.Name)
}
