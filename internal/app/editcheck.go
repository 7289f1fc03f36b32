package app

import (
	"context"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/event"
	"github.com/chanto-dev/chanto/internal/format"
	"github.com/chanto-dev/chanto/internal/lsp"
	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/tool"
)

// editChecker is what write and edit call after changing a file: the
// file's formatter, then its language server.
type editChecker struct {
	format *format.Set
	lsp    *lsp.Manager
}

var _ tool.EditChecker = (*editChecker)(nil)

// newEditChecker builds the formatters and language servers of the
// project holding cwd. Project-supplied programs (node_modules/.bin, a
// virtualenv) run only when the folder is trusted; configured commands
// from an untrusted project file were dropped when the config loaded.
func newEditChecker(cfg config.Config, cwd string, r *run.Runner) *editChecker {
	root := config.FindProjectRoot(cwd)
	trusted, _ := config.IsTrusted(root)
	return &editChecker{
		format: format.New(format.Options{Config: cfg.Formatters, Root: root, Trusted: trusted, Runner: r}),
		lsp:    lsp.New(lsp.Options{Config: cfg.LSP, Root: root, Trusted: trusted, Runner: r}),
	}
}

// AfterEdit formats the file, then reports its diagnostics.
func (c *editChecker) AfterEdit(ctx context.Context, abs string, written []byte) tool.EditCheck {
	var check tool.EditCheck
	var lines []string
	content := written
	o := c.format.Format(ctx, abs, written)
	if o.Changed {
		check.Formatted, content = o.Content, o.Content
		lines = append(lines, "formatted with "+o.Formatter)
	}
	if o.Note != "" {
		lines = append(lines, o.Note)
	}
	r := c.lsp.Touch(ctx, abs, content)
	if t := r.Text(c.lsp.Display); t != "" {
		lines = append(lines, t)
	}
	if r.Checked {
		errs, warns, elsewhere := r.Counts()
		check.Diagnostics = &event.Diagnostics{Server: r.Server, Errors: errs, Warnings: warns, Elsewhere: elsewhere}
	}
	for i, l := range lines {
		if i > 0 {
			check.Text += "\n"
		}
		check.Text += l
	}
	return check
}

// Diagnostics answers the diagnostics tool.
func (c *editChecker) Diagnostics(ctx context.Context, abs string) string {
	return c.lsp.Diagnostics(ctx, abs)
}

// close shuts the language servers down.
func (c *editChecker) close() {
	if c != nil {
		c.lsp.Close()
	}
}
