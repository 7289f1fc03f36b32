package tool

import (
	"context"
	"strings"

	"github.com/chanto-dev/chanto/internal/event"
)

// EditChecker looks at a file that write or edit just changed: it runs
// the file's formatter, then asks the file's language server (app builds
// it from internal/format and internal/lsp).
type EditChecker interface {
	// AfterEdit is called with the bytes the tool wrote to abs.
	AfterEdit(ctx context.Context, abs string, written []byte) EditCheck
	// Diagnostics is the diagnostics tool's answer for abs ("" for the
	// whole project).
	Diagnostics(ctx context.Context, abs string) string
}

// EditCheck is what AfterEdit found.
type EditCheck struct {
	// Formatted is the file after its formatter rewrote it; nil when the
	// file is as written.
	Formatted []byte
	// Text is lines for the tool result: the formatter that ran, the
	// diagnostics, or a one-line note about a formatter or server.
	Text        string
	Diagnostics *event.Diagnostics
}

// afterEdit runs the checker on a file the tool wrote and adds what it
// found to res. A formatted file counts as read in its new form, so the
// next edit is not refused as stale; it returns the file's bytes now.
func (e *Env) afterEdit(ctx context.Context, abs string, written []byte, res *Result) []byte {
	if e.Checker == nil || ctx.Err() != nil {
		return written
	}
	c := e.Checker.AfterEdit(ctx, abs, written)
	now := written
	if c.Formatted != nil {
		e.noteRead(abs, c.Formatted)
		now = c.Formatted
	}
	if c.Text != "" {
		res.Output = strings.TrimRight(res.Output, "\n") + "\n" + c.Text
	}
	res.Diagnostics = c.Diagnostics
	return now
}
