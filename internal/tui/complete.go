package tui

import (
	"context"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chanto-dev/chanto/internal/run"
)

// The popup under the input: slash commands while a command name is
// typed, files while an @path is.

// maxPopup is how many suggestions the popup shows.
const maxPopup = 6

type filesMsg struct{ files []string }

// listFiles lists the project's files the way git sees them (tracked and
// untracked, .gitignore applied); outside git, a walk that skips dot
// folders.
func listFiles(r *run.Runner, root string) tea.Cmd {
	return func() tea.Msg {
		var out strings.Builder
		res, err := r.Run(context.Background(), run.Spec{Args: []string{"git", "ls-files", "-co", "--exclude-standard"}, Dir: root, Purpose: run.Internal, Stdout: &out, OutputCap: 8 << 20})
		if err == nil && res.ExitCode == 0 {
			return filesMsg{files: strings.Split(strings.TrimSpace(out.String()), "\n")}
		}
		var files []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // an unreadable folder is skipped, not fatal
			}
			if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				if rel, err := filepath.Rel(root, p); err == nil {
					files = append(files, rel)
				}
			}
			if len(files) > 20000 {
				return filepath.SkipAll
			}
			return nil
		})
		return filesMsg{files: files}
	}
}

// currentWord is the word the cursor ends (the input's last word when
// the cursor is at the end, which is where completion applies).
func (m *model) currentWord() string {
	v := m.input.Value()
	if v == "" || strings.HasSuffix(v, " ") || strings.HasSuffix(v, "\n") {
		return ""
	}
	f := strings.Fields(v)
	return f[len(f)-1]
}

// suggestions is what the popup offers now.
func (m *model) suggestions() []string {
	v := m.input.Value()
	if m.mode != modeInput {
		return nil
	}
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") {
		var out []string
		for _, c := range commands {
			if strings.HasPrefix(c.name, v) {
				out = append(out, c.name)
			}
		}
		if len(out) == 1 && out[0] == v {
			return nil
		}
		return out
	}
	w := m.currentWord()
	if q, ok := strings.CutPrefix(w, "@"); ok {
		return fuzzyFiles(m.files, q, maxPopup)
	}
	return nil
}

// completion is the suggestion Enter or Tab would take.
func (m *model) completion() string {
	s := m.suggestions()
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func (m *model) acceptCompletion(c string) {
	v := m.input.Value()
	if strings.HasPrefix(v, "/") && !strings.Contains(v, " ") {
		m.input.SetValue(c + " ")
		return
	}
	w := m.currentWord()
	m.input.SetValue(strings.TrimSuffix(v, w) + "@" + c + " ")
}

// fuzzyFiles ranks files whose path holds q's characters in order:
// a match in the base name first, then shorter paths.
func fuzzyFiles(files []string, q string, n int) []string {
	type hit struct {
		path  string
		score int
	}
	var hits []hit
	lq := strings.ToLower(q)
	for _, f := range files {
		if f == "" {
			continue
		}
		lf := strings.ToLower(f)
		if !subsequence(lf, lq) {
			continue
		}
		score := len(f)
		if strings.Contains(strings.ToLower(filepath.Base(f)), lq) {
			score -= 1000
		}
		if strings.HasPrefix(lf, lq) {
			score -= 500
		}
		hits = append(hits, hit{f, score})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score < hits[j].score })
	var out []string
	for i := 0; i < len(hits) && i < n; i++ {
		out = append(out, hits[i].path)
	}
	return out
}

func subsequence(s, q string) bool {
	for _, r := range q {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+len(string(r)):]
	}
	return true
}
