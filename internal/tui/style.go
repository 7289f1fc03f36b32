package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// styles are the few colours the UI uses. With NO_COLOR (or a terminal
// without colours) every style is plain: the text alone must carry the
// meaning, so marks like ✓ and ⚠ are never colour-only.
type styles struct {
	plain                                  bool
	dim, bold, ok, warn, bad, accent, user lipgloss.Style
	added, removed                         lipgloss.Style
	card                                   lipgloss.Style
}

func newStyles(plain bool) styles {
	s := styles{plain: plain}
	base := lipgloss.NewStyle()
	s.dim, s.bold, s.ok, s.warn, s.bad, s.accent, s.user = base, base, base, base, base, base, base
	s.added, s.removed, s.card = base, base, base
	if plain {
		return s
	}
	fg := func(c color.Color) lipgloss.Style { return base.Foreground(c) }
	s.dim = fg(lipgloss.BrightBlack)
	s.bold = base.Bold(true)
	s.ok = fg(lipgloss.Green)
	s.warn = fg(lipgloss.Yellow)
	s.bad = fg(lipgloss.Red)
	s.accent = fg(lipgloss.Cyan)
	s.user = fg(lipgloss.Blue).Bold(true)
	s.added = fg(lipgloss.Green)
	s.removed = fg(lipgloss.Red)
	s.card = fg(lipgloss.Yellow)
	return s
}
