package snapshot

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
)

// indexEntry is what git's index knows of a clean tracked file.
type indexEntry struct {
	blob string
	mode string
}

// clean reports whether the file on disk can be trusted to hold the index
// entry's content: git found it clean, and it is still the same kind of file.
func (ie indexEntry) clean(fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return ie.mode == "120000"
	}
	return ie.mode == "100644" || ie.mode == "100755"
}

// gitIndex reads the blob ids of tracked files that git finds clean (its
// own stat cache decides, so no file is read). Dirty files are left out and
// get hashed by the caller.
func (s *Snapshot) gitIndex(ctx context.Context) (map[string]indexEntry, error) {
	out, err := s.git0(ctx, "ls-files", "-z", "--cached", "--stage")
	if err != nil {
		return nil, err
	}
	dirty, err := s.git0(ctx, "diff-files", "-z", "--name-only", "--relative")
	if err != nil {
		return nil, err
	}
	isDirty := map[string]bool{}
	for _, p := range split0(dirty) {
		isDirty[p] = true
	}
	index := map[string]indexEntry{}
	for _, rec := range split0(out) {
		// "<mode> <id> <stage>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[2] != "0" || isDirty[path] {
			continue
		}
		index[path] = indexEntry{blob: fields[1], mode: fields[0]}
	}
	return index, nil
}

// list returns the files of the tree: tracked and untracked-not-ignored in
// git, everything but .git and node_modules elsewhere.
func (s *Snapshot) list(ctx context.Context) ([]string, error) {
	if s.git {
		out, err := s.git0(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
		if err != nil {
			return nil, err
		}
		return split0(out), nil
	}
	var paths []string
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); p != s.root && (name == ".git" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(s.root, p)
		paths = append(paths, filepath.ToSlash(rel))
		return nil
	})
	return paths, err
}

func (s *Snapshot) git0(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	res, err := s.runner.Run(ctx, run.Spec{
		Args: append([]string{"git", "-c", "core.quotepath=off"}, args...), Dir: s.root,
		Purpose: run.Internal, Stdout: &out, OutputCap: 4096,
	})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 {
		return nil, errNotGit
	}
	return out.Bytes(), nil
}

func split0(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}
