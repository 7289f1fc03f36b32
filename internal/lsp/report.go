package lsp

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Caps on what a tool result lists.
const (
	maxFileDiags      = 20
	maxElsewhereDiags = 10
	maxProjectDiags   = 50
)

// Diag is one diagnostic, with a 1-based line and column.
type Diag struct {
	File     string // absolute path
	Line     int
	Col      int
	Severity string // "error" or "warning"
	Message  string
	Source   string
}

// Report is what a server said after an edit.
type Report struct {
	// Server names the server; "" when none took the file.
	Server string
	// Path is the edited file as shown (relative to the project root).
	Path string
	// Checked is set when the server's diagnostics for the edit arrived.
	Checked bool
	// File holds the edited file's errors (and warnings when configured).
	File []Diag
	// Elsewhere holds errors in other files that were not there before.
	Elsewhere []Diag
	// Note is one line about a server that is missing, starting or broken.
	Note string
}

// Counts are the numbers a tool.completed event carries.
func (r Report) Counts() (errors, warnings, elsewhere int) {
	for _, d := range r.File {
		if d.Severity == "error" {
			errors++
		} else {
			warnings++
		}
	}
	return errors, warnings, len(r.Elsewhere)
}

// convert keeps errors, and warnings when configured, ordered by position.
func (m *Manager) convert(abs string, ds []protocol.Diagnostic) []Diag {
	var out []Diag
	for _, d := range ds {
		sev := ""
		switch d.Severity {
		case protocol.DiagnosticSeverityError, 0: // no severity: the client decides; an error
			sev = "error"
		case protocol.DiagnosticSeverityWarning:
			if !m.opts.Config.Warnings {
				continue
			}
			sev = "warning"
		default:
			continue
		}
		out = append(out, Diag{File: abs, Line: int(d.Range.Start.Line) + 1, Col: int(d.Range.Start.Character) + 1,
			Severity: sev, Message: oneLine(d.Message), Source: d.Source})
	}
	sortDiags(out)
	return out
}

func sortDiags(ds []Diag) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// oneLine joins a multi-line message (pyright's, rustc's) with "; ".
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	s := strings.Join(parts, "; ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Text is the report as lines for the tool result; "" when there is
// nothing to say.
func (r Report) Text(display func(string) string) string {
	var b strings.Builder
	if r.Note != "" {
		b.WriteString(r.Note + "\n")
	}
	if r.Checked {
		errs, warns, _ := r.Counts()
		switch {
		case len(r.File) == 0:
			fmt.Fprintf(&b, "%s: no errors in %s\n", r.Server, r.Path)
		default:
			fmt.Fprintf(&b, "%s: %s in %s:\n", r.Server, countWords(errs, warns), r.Path)
			writeDiags(&b, r.File, maxFileDiags, display)
		}
		if len(r.Elsewhere) > 0 {
			fmt.Fprintf(&b, "%s: %s elsewhere after this edit:\n", r.Server, plural(len(r.Elsewhere), "new error"))
			writeDiags(&b, r.Elsewhere, maxElsewhereDiags, display)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func countWords(errs, warns int) string {
	switch {
	case warns == 0:
		return plural(errs, "error")
	case errs == 0:
		return plural(warns, "warning")
	}
	return plural(errs, "error") + " and " + plural(warns, "warning")
}

func writeDiags(b *strings.Builder, ds []Diag, limit int, display func(string) string) {
	for i, d := range ds {
		if i == limit {
			fmt.Fprintf(b, "  … and %d more\n", len(ds)-limit)
			return
		}
		fmt.Fprintf(b, "  %s:%d:%d: %s: %s\n", display(d.File), d.Line, d.Col, d.Severity, d.Message)
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Display shows a path relative to the project root when inside it.
func (m *Manager) Display(abs string) string { return m.display(abs) }

// Diagnostics is what the diagnostics tool shows: for a file, what its
// server says of it now (started and synced as after an edit); for the
// whole project (abs ""), every diagnostic the running servers have
// published, capped.
func (m *Manager) Diagnostics(ctx context.Context, abs string) string {
	if m == nil || !m.opts.Config.Enabled {
		return "language servers are turned off ([lsp] enabled = false)"
	}
	if abs != "" {
		data, err := os.ReadFile(abs)
		if err != nil {
			return fmt.Sprintf("%s: %v", m.display(abs), err)
		}
		r := m.Touch(ctx, abs, data)
		if t := r.Text(m.display); t != "" {
			return t
		}
		return fmt.Sprintf("no language server takes %s (its language has none, none is installed, or no root marker such as go.mod is above it)", m.display(abs))
	}
	m.mu.Lock()
	var servers []*server
	var names []string
	for _, sl := range m.slots {
		if sl.srv != nil && sl.srv.alive() {
			servers = append(servers, sl.srv)
			names = append(names, sl.def.name)
		}
	}
	m.mu.Unlock()
	if len(servers) == 0 {
		return "no language server is running yet: one starts when a file of its language is edited, or named here"
	}
	var all []Diag
	for _, s := range servers {
		for u, ds := range s.snapshot() {
			all = append(all, m.convert(uri.URI(u).Filename(), ds)...)
		}
	}
	sortDiags(all)
	sort.Strings(names)
	if len(all) == 0 {
		return fmt.Sprintf("no errors reported by %s (servers report the files they were given and, gopls, the whole workspace)", strings.Join(names, ", "))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s reported by %s:\n", plural(len(all), "diagnostic"), strings.Join(names, ", "))
	writeDiags(&b, all, maxProjectDiags, m.display)
	return strings.TrimSuffix(b.String(), "\n")
}
