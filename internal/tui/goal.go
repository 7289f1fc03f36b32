package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/goal"
)

// goalHelp is /goal's usage line.
const goalHelp = "/goal TEXT | criteria C1 ;; C2 | file NAME | clear"

// cmdGoal shows or changes the session's goal (docs/goals.md):
//
//	/goal                       show it, and the project's goal files
//	/goal TEXT                  set its statement (criteria kept)
//	/goal criteria C1 ;; C2     set its criteria, in their text form
//	/goal file NAME             load .chanto/goals/NAME.toml (or a path)
//	/goal clear                 remove it
func (m *model) cmdGoal(arg string) tea.Cmd {
	sub, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	cur := m.sess.Goal()
	var next *goal.Goal
	switch {
	case arg == "":
		return m.print(m.goalText(cur))
	case sub == "clear" && rest == "":
		if err := m.sess.SetGoal(nil); err != nil {
			return m.print(m.st.warn.Render("/goal clear: " + err.Error()))
		}
		return m.print(m.st.dim.Render("goal cleared"))
	case sub == "criteria":
		next = copyGoal(cur)
		next.Criteria = nil
		for _, part := range strings.Split(rest, ";;") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			c, err := goal.ParseCriterion(part)
			if err != nil {
				return m.print(m.st.warn.Render("/goal criteria: " + err.Error()))
			}
			next.Criteria = append(next.Criteria, c)
		}
		if len(next.Criteria) == 0 {
			return m.print(m.st.warn.Render("/goal criteria: name at least one, e.g. /goal criteria test: TestParse ;; go build ./..."))
		}
	case sub == "file" && rest != "":
		g, err := m.goalFile(rest)
		if err != nil {
			return m.print(m.st.warn.Render("/goal file: " + err.Error()))
		}
		next = g
	default:
		next = copyGoal(cur)
		next.Statement = arg
	}
	if err := m.sess.SetGoal(next); err != nil {
		return m.print(m.st.warn.Render("/goal: " + err.Error()))
	}
	return m.print(m.goalText(next))
}

// goalFile loads a goal file; one inside an untrusted project is refused,
// as its criteria are commands.
func (m *model) goalFile(name string) (*goal.Goal, error) {
	root := config.FindProjectRoot(m.opts.App.Cwd)
	path := goal.Resolve(root, name)
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.opts.App.Cwd, path)
	}
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		if ok, err := config.IsTrusted(root); err != nil || !ok {
			return nil, fmt.Errorf("%s: its criteria are commands, and %s is not trusted (run: chanto trust %s)", rel, root, root)
		}
	}
	return goal.LoadFile(path)
}

func copyGoal(g *goal.Goal) *goal.Goal {
	if g == nil {
		return &goal.Goal{}
	}
	c := *g
	c.Criteria = append([]goal.Criterion(nil), g.Criteria...)
	return &c
}

// goalText shows a goal (or its absence) and the project's goal files.
func (m *model) goalText(g *goal.Goal) string {
	var b strings.Builder
	if g == nil {
		b.WriteString("no goal set (" + goalHelp + ")")
	} else {
		b.WriteString("goal: " + g.Statement)
		if g.Source != "" {
			b.WriteString(" (" + g.Source + ")")
		}
		for i, c := range g.Criteria {
			fmt.Fprintf(&b, "\n  %d. %s", i+1, c.String())
		}
		if len(g.Criteria) == 0 {
			b.WriteString("\n  no criteria yet: /goal criteria C1 ;; C2")
		}
		if bud := g.Budget(); bud != "" {
			b.WriteString("\n  budget: " + bud)
		}
	}
	if files := goal.List(config.FindProjectRoot(m.opts.App.Cwd)); len(files) > 0 {
		b.WriteString("\ngoal files: " + strings.Join(files, ", ") + " (/goal file NAME)")
	}
	return b.String()
}

// goalStatus and teamStatus are /status's lines for the goal and the
// team checks.
func (m *model) goalStatus() string {
	g := m.sess.Goal()
	if g == nil {
		return "goal:        none"
	}
	return fmt.Sprintf("goal:        %s (%d criteria)", g.Statement, len(g.Criteria))
}

func (m *model) teamStatus() string {
	tcs := m.opts.App.Config.TeamChecks
	if len(tcs) == 0 {
		return "team checks: none"
	}
	var names []string
	for _, tc := range tcs {
		n := tc.Name
		if len(tc.Paths) > 0 {
			n += " (" + strings.Join(tc.Paths, ", ") + ")"
		}
		names = append(names, n)
	}
	return "team checks: " + strings.Join(names, ", ")
}
