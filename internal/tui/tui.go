// Package tui is chanto's interactive session: a bubbletea program that
// drives an app.Session (prompt, interrupt, answers, verify settings) and
// renders its updates. Finished messages go into the terminal's own
// scrollback (tea.Println), so native scrolling, search and copy work and
// nothing is lost on resize; only the live region — the streaming reply,
// running tools, the gate's progress, the input and the footer — is
// redrawn. The agent and the gate know nothing of it.
package tui

import (
	"context"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/config"
)

// Options start the interactive session.
type Options struct {
	// App is what the session is built from (Sink and Warn are the TUI's).
	App app.Options
	// Untrusted lists the project settings that stay off until the folder
	// is trusted; non-empty asks the trust question before anything runs.
	Untrusted []string
	// Reload reads the configuration again once the folder is trusted.
	Reload func() (config.Config, error)
	// NoColor draws without colours (NO_COLOR).
	NoColor bool
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
}

// Run runs the session until the user quits.
func Run(ctx context.Context, opts Options) error {
	m := newModel(opts)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(opts.In), tea.WithOutput(opts.Out), tea.WithFPS(30))
	_, err := p.Run()
	if m.sess != nil {
		if cerr := m.sess.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return nil
	}
	return err
}

// banner opens the scrollback of a session.
func (m *model) banner() string {
	w := max(m.width, 10)
	head := truncate(fmt.Sprintf("chanto · %s · %s", m.opts.App.Config.Model, m.opts.App.Cwd), w)
	return m.st.bold.Render(head) + "\n" + m.st.dim.Render(truncate("session "+m.sess.ID()+" · /help commands · ? keys · Esc interrupts", w))
}
