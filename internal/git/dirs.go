package git

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// Folders lists the folders git reads for the work tree at or above dir,
// found by reading files only (no git runs): the work tree's top, its git
// folder, the common folder a linked worktree or submodule shares, and the
// object stores named in objects/info/alternates. The git sandbox binds
// them read-only, and the workspace sandbox keeps them read-only to the
// model's commands. Nil outside a repository.
func Folders(dir string) []string {
	top, gitPath := findGit(dir)
	if top == "" {
		return nil
	}
	out := []string{top}
	gitDir := gitPath
	if fi, err := os.Lstat(gitPath); err == nil && !fi.IsDir() {
		gitDir = gitdirOfFile(gitPath)
		if gitDir == "" {
			return out
		}
	}
	out = append(out, gitDir)
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = resolve(gitDir, strings.TrimSpace(string(b)))
		if common != gitDir {
			out = append(out, common)
		}
	}
	return append(out, alternates(filepath.Join(common, "objects"), 0)...)
}

// GitDirs is Folders without the work tree: the folders holding git's own
// state (configuration, hooks, objects, refs) for the work tree at dir.
func GitDirs(dir string) []string {
	top, gitPath := findGit(dir)
	if top == "" {
		return nil
	}
	var out []string
	for _, f := range Folders(dir) {
		if f != top {
			out = append(out, f)
		}
	}
	if fi, err := os.Lstat(gitPath); err == nil && !fi.IsDir() {
		out = append(out, gitPath) // the .git file naming the folder
	}
	return out
}

// HasAttributeFiles reports whether the repository at dir has an
// info/attributes file or the user a global attributes file: the
// attribute sources outside the work tree.
func HasAttributeFiles(dir string) bool {
	for _, f := range GitDirs(dir) {
		if _, err := os.Stat(filepath.Join(f, "info", "attributes")); err == nil {
			return true
		}
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		home, _ := os.UserHomeDir()
		cfg = filepath.Join(home, ".config")
	}
	_, err := os.Stat(filepath.Join(cfg, "git", "attributes"))
	return err == nil
}

// findGit walks up from dir to the first folder holding .git.
func findGit(dir string) (top, gitPath string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if _, err := os.Lstat(p); err == nil {
			return d, p
		}
		if d == filepath.Dir(d) {
			return "", ""
		}
	}
}

// gitdirOfFile reads a .git file's "gitdir: PATH" line.
func gitdirOfFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	return resolve(filepath.Dir(path), strings.TrimSpace(v))
}

func resolve(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// maxAlternateDepth is git's own limit on chained alternates.
const maxAlternateDepth = 5

// alternates lists the object folders objects/info/alternates names, and
// theirs in turn.
func alternates(objects string, depth int) []string {
	if depth >= maxAlternateDepth {
		return nil
	}
	f, err := os.Open(filepath.Join(objects, "info", "alternates"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		alt := resolve(objects, strings.Trim(line, `"`))
		out = append(out, alt)
		out = append(out, alternates(alt, depth+1)...)
	}
	return out
}
