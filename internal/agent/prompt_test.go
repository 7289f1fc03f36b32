package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSystemPrompt(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "AGENTS.md"), "repo rule")
	write(t, filepath.Join(repo, "CLAUDE.md"), "ignored: AGENTS.md wins")
	write(t, filepath.Join(repo, "svc", "CLAUDE.md"), "svc rule")
	write(t, filepath.Join(filepath.Dir(repo), "AGENTS.md"), "outside the repo")
	root := filepath.Join(repo, "svc", "api")
	write(t, filepath.Join(root, "AGENTS.md"), "api rule")

	got, err := SystemPrompt(root, time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"You are chanto", "repo rule", "svc rule", "api rule", "Working directory: " + root, "Date: 2026-11-29", "Platform: "}
	pos := -1
	for _, s := range order {
		i := strings.Index(got, s)
		if i <= pos {
			t.Fatalf("%q missing or out of order in\n%s", s, got)
		}
		pos = i
	}
	for _, s := range []string{"ignored", "outside the repo"} {
		if strings.Contains(got, s) {
			t.Errorf("prompt contains %q", s)
		}
	}
}

func TestSystemPromptWithoutGit(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	write(t, filepath.Join(dir, "AGENTS.md"), "parent rule")
	write(t, filepath.Join(root, "CLAUDE.md"), "project rule")
	got, err := SystemPrompt(root, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "project rule") || strings.Contains(got, "parent rule") {
		t.Errorf("without a repository only the project folder counts:\n%s", got)
	}
}
