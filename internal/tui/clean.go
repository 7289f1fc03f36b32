package tui

import (
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/safetext"
)

// cleanEvent is e with every text chanto did not write itself — the
// model's words, tool and check output, file and test names — made safe
// to show (safetext): an escape sequence in a tool's output must not move
// the cursor or retitle the window. The TUI's own styling is added after.
func cleanEvent(e *event.Event) *event.Event {
	c := *e
	c.Text, c.Error = safetext.Clean(c.Text), safetext.Clean(c.Error)
	for i, ch := range c.Checks {
		if i == 0 {
			c.Checks = make([]string, len(e.Checks))
		}
		c.Checks[i] = safetext.Line(ch)
	}
	if t := c.Tool; t != nil {
		x := *t
		x.Name, x.Output = safetext.Line(x.Name), safetext.Clean(x.Output)
		c.Tool = &x
	}
	if v := c.Violation; v != nil {
		x := *v
		x.File, x.Test, x.Kind = safetext.Line(x.File), safetext.Line(x.Test), safetext.Line(x.Kind)
		x.Before, x.After, x.Message = safetext.Clean(x.Before), safetext.Clean(x.After), safetext.Clean(x.Message)
		c.Violation = &x
	}
	if ch := c.Check; ch != nil {
		x := *ch
		x.Command = safetext.Line(x.Command)
		c.Check = &x
	}
	if r := c.Review; r != nil {
		x := *r
		x.Findings, x.Reason, x.Model = safetext.Clean(x.Findings), safetext.Clean(x.Reason), safetext.Line(x.Model)
		c.Review = &x
	}
	if s := c.Subagent; s != nil {
		x := *s
		x.Name, x.Model, x.Description = safetext.Line(x.Name), safetext.Line(x.Model), safetext.Line(x.Description)
		c.Subagent = &x
	}
	if v := c.Verify; v != nil {
		x := *v
		x.Evidence = safetext.Clean(x.Evidence)
		c.Verify = &x
	}
	return &c
}
