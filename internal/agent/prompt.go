package agent

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

//go:embed system.md
var baseSystem string

// instructionFiles are read per folder; the first one present wins.
var instructionFiles = []string{"AGENTS.md", "CLAUDE.md"}

// maxInstructionBytes bounds each instruction file in the prompt.
const maxInstructionBytes = 64 << 10

// SystemPrompt builds the system prompt for a session in root: chanto's own
// instructions, the project's AGENTS.md (CLAUDE.md when a folder has no
// AGENTS.md) from the repository root down to root, and the working
// directory, date and platform.
func SystemPrompt(root string, now time.Time) (string, error) {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(baseSystem))
	b.WriteString("\n")
	for _, dir := range instructionDirs(root) {
		for _, name := range instructionFiles {
			path := filepath.Join(dir, name)
			data, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				return "", fmt.Errorf("read %s: %w", path, err)
			}
			if len(data) > maxInstructionBytes {
				data = append(data[:maxInstructionBytes], "\n[truncated]"...)
			}
			fmt.Fprintf(&b, "\n# Project instructions from %s\n\n%s\n", path, strings.TrimSpace(string(data)))
			break
		}
	}
	fmt.Fprintf(&b, "\n# Environment\n\nWorking directory: %s\nDate: %s\nPlatform: %s/%s\n",
		root, now.Format("2006-01-02"), runtime.GOOS, runtime.GOARCH)
	return b.String(), nil
}

// instructionDirs lists root and its parents up to the repository root
// (the nearest folder holding .git), outermost first. Outside a repository
// only root itself is read.
func instructionDirs(root string) []string {
	dirs := []string{root}
	for dir := root; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			// No repository above root: only root counts.
			return []string{root}
		}
		dir = parent
		dirs = append(dirs, dir)
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}
