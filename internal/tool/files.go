package tool

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/git"
)

// skipDirs are never listed: version-control internals and dependency trees.
var skipDirs = []string{".git", "node_modules"}

// listFiles returns the files under base (relative to it, slash-separated)
// that git would not ignore: git ls-files inside a work tree, a walk that
// skips .git and node_modules elsewhere.
func listFiles(ctx context.Context, env *Env, base string) ([]string, error) {
	if files, ok := gitFiles(ctx, env, base); ok {
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == base {
				return err
			}
			return nil
		}
		if d.IsDir() {
			if p != base && slices.Contains(skipDirs, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(base, p)
		files = append(files, filepath.ToSlash(rel))
		return ctx.Err()
	})
	return files, err
}

// gitFiles lists tracked and untracked-not-ignored files through git; ok
// is false when base is not in a work tree or git is missing.
func gitFiles(ctx context.Context, env *Env, base string) ([]string, bool) {
	if env.Runner == nil {
		return nil, false
	}
	out, err := git.Output(ctx, env.Runner, base, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, false
	}
	var files []string
	seen := map[string]bool{}
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" || seen[f] || hasSkipDir(f) {
			continue
		}
		seen[f] = true
		// Deleted-but-tracked files, submodules and symlinks are not files to read.
		if fi, err := os.Lstat(filepath.Join(base, f)); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		files = append(files, f)
	}
	return files, true
}

func hasSkipDir(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if slices.Contains(skipDirs, part) {
			return true
		}
	}
	return false
}

// comparePaths orders slash paths the way a sorted directory walk visits
// them: component by component.
func comparePaths(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}
