package baseline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gitcmd "github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
)

// CopyOptions refine CopyTree.
type CopyOptions struct {
	// Untracked are paths relative to root copied from the working tree on
	// top of a git base: files the base had that git does not track.
	Untracked []string
	// Share are paths relative to root (installed dependencies such as
	// node_modules or .venv, which no tree holds) linked into the copy as
	// symlinks to the originals instead of being copied.
	Share []string
	// TempDir is where the copy is made; empty means os.TempDir().
	TempDir string
}

// CopyTree makes a throwaway copy of the project at base for a full-scope
// baseline, so no edit can race it. base is a git revision, read straight
// from the object store (blobs as committed, no checkout, the user's
// repository untouched); empty base copies the working tree as it is now:
// tracked and untracked-not-ignored files in a git work tree, every file
// except .git folders elsewhere. It returns the copy's equivalent of root
// and a cleanup that removes the copy. A nil r means a zero run.Runner.
func CopyTree(ctx context.Context, r *run.Runner, root, base string, opts CopyOptions) (dir string, cleanup func() error, err error) {
	if r == nil {
		r = &run.Runner{}
	}
	root, err = filepath.Abs(root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return "", nil, fmt.Errorf("baseline copy: %w", err)
	}
	top, gitErr := gitTop(ctx, r, root)
	if base != "" && gitErr != nil {
		return "", nil, fmt.Errorf("baseline copy: --base %s needs a git repository: %w", base, gitErr)
	}
	if gitErr != nil {
		top = root
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "chanto-baseline-")
	if err != nil {
		return "", nil, fmt.Errorf("baseline copy: %w", err)
	}
	remove := func() error { return os.RemoveAll(tmp) }
	defer func() {
		if err != nil {
			_ = remove()
		}
	}()
	copyTop := filepath.Join(tmp, filepath.Base(top))
	rel, _ := filepath.Rel(top, root)
	dir = filepath.Join(copyTop, rel)
	switch {
	case base != "":
		err = copyRevision(ctx, r, top, base, copyTop)
	case gitErr == nil:
		err = copyWorkingTree(ctx, r, top, copyTop)
	default:
		err = copyFolder(root, copyTop, opts.Share)
	}
	if err != nil {
		return "", nil, fmt.Errorf("baseline copy: %w", err)
	}
	for _, u := range opts.Untracked {
		if err = copyPath(root, dir, u); err != nil {
			return "", nil, fmt.Errorf("baseline copy: untracked %s: %w", u, err)
		}
	}
	for _, s := range opts.Share {
		if err = share(root, dir, s); err != nil {
			return "", nil, fmt.Errorf("baseline copy: share %s: %w", s, err)
		}
	}
	return dir, remove, nil
}

// git runs one git command in dir, its output going to stdout.
func git(ctx context.Context, r *run.Runner, dir string, stdin io.Reader, stdout io.Writer, args ...string) error {
	return gitcmd.Run(ctx, r, gitcmd.Cmd{Dir: dir, Args: args, Stdin: stdin, Stdout: stdout})
}

func gitTop(ctx context.Context, r *run.Runner, root string) (string, error) {
	var out bytes.Buffer
	if err := git(ctx, r, root, nil, &out, "rev-parse", "--show-toplevel"); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(strings.TrimSpace(out.String()))
}

// treeEntry is one line of git ls-tree.
type treeEntry struct {
	mode, kind, oid, path string
}

// copyRevision writes every blob of rev into dst with its mode.
func copyRevision(ctx context.Context, r *run.Runner, top, rev, dst string) error {
	var out bytes.Buffer
	if err := git(ctx, r, top, nil, &out, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return fmt.Errorf("base %q is not a commit in %s", rev, top)
	}
	commit := strings.TrimSpace(out.String())
	out.Reset()
	if err := git(ctx, r, top, nil, &out, "ls-tree", "-r", "-z", "--full-tree", commit); err != nil {
		return err
	}
	var blobs []treeEntry
	var oids strings.Builder
	for _, rec := range strings.Split(out.String(), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || !filepath.IsLocal(path) {
			continue
		}
		e := treeEntry{mode: f[0], kind: f[1], oid: f[2], path: path}
		if e.kind == "commit" { // a submodule: an empty folder, as in a fresh clone
			if err := os.MkdirAll(filepath.Join(dst, path), 0o755); err != nil {
				return err
			}
			continue
		}
		if e.kind == "blob" {
			blobs = append(blobs, e)
			oids.WriteString(e.oid + "\n")
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- writeBlobs(pr, dst, blobs) }()
	err := git(ctx, r, top, strings.NewReader(oids.String()), pw, "cat-file", "--batch")
	pw.CloseWithError(err)
	if werr := <-done; err == nil {
		err = werr
	}
	return err
}

// writeBlobs reads git cat-file --batch output for blobs, in order, and
// writes each into dst. It always drains the stream, so git never blocks.
func writeBlobs(stream io.Reader, dst string, blobs []treeEntry) (err error) {
	defer func() { _, _ = io.Copy(io.Discard, stream) }()
	br := bufio.NewReaderSize(stream, 64<<10)
	for _, e := range blobs {
		header, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("read %s: %w", e.path, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[0] != e.oid {
			return fmt.Errorf("unexpected cat-file output for %s: %q", e.path, strings.TrimSpace(header))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("cat-file size for %s: %w", e.path, err)
		}
		if err := writeEntry(filepath.Join(dst, filepath.FromSlash(e.path)), e.mode, io.LimitReader(br, size)); err != nil {
			return fmt.Errorf("%s: %w", e.path, err)
		}
		if _, err := br.Discard(1); err != nil { // the newline after the content
			return err
		}
	}
	return nil
}

func writeEntry(abs, mode string, content io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	switch mode {
	case "120000":
		target, err := io.ReadAll(content)
		if err != nil {
			return err
		}
		return os.Symlink(string(target), abs)
	case "100755":
		return writeFast(abs, content, 0o755)
	default:
		return writeFast(abs, content, 0o644)
	}
}

// copyWorkingTree copies tracked and untracked-not-ignored files as they are.
func copyWorkingTree(ctx context.Context, r *run.Runner, top, dst string) error {
	var out bytes.Buffer
	if err := git(ctx, r, top, nil, &out, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name"); err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, p := range strings.Split(out.String(), "\x00") {
		if p == "" || seen[p] || !filepath.IsLocal(p) {
			continue
		}
		seen[p] = true
		if err := copyPath(top, dst, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// copyFolder copies a folder that is not a git work tree, leaving out .git
// folders and the shared paths.
func copyFolder(src, dst string, shared []string) error {
	skip := map[string]bool{}
	for _, s := range shared {
		skip[filepath.Clean(s)] = true
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".git" || skip[rel] {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return copyPath(src, dst, rel)
	})
}

// copyPath copies one file or symlink from srcRoot/rel to dstRoot/rel with
// its mode.
func copyPath(srcRoot, dstRoot, rel string) error {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return fmt.Errorf("%q is not a path inside %s", rel, srcRoot)
	}
	src := filepath.Join(srcRoot, filepath.FromSlash(rel))
	dst := filepath.Join(dstRoot, filepath.FromSlash(rel))
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	_ = os.Remove(dst)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case fi.Mode().IsRegular():
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		return writeFast(dst, f, permBits(fi.Mode()))
	default:
		return nil // sockets, fifos, folders listed as files: nothing to copy
	}
}

// share links root/rel into the copy, unless the copy already has it.
func share(root, dir, rel string) error {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return fmt.Errorf("%q is not a path inside %s", rel, root)
	}
	src := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Stat(src); err != nil {
		return nil // nothing installed there: nothing to share
	}
	dst := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Symlink(src, dst)
}

// DefaultShare lists the installed-dependency folders under root that a
// copy of the tree lacks and a test run needs: node_modules folders (not
// nested inside one another) and a Python virtualenv at the top.
func DefaultShare(root string) []string {
	var out []string
	for _, v := range []string{".venv", "venv"} {
		if fi, err := os.Stat(filepath.Join(root, v, "bin", "python")); err == nil && !fi.IsDir() {
			out = append(out, v)
		}
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		switch d.Name() {
		case "node_modules":
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
			return filepath.SkipDir
		case ".git", ".venv", "venv", "target", "__pycache__":
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// ShareInto links each folder rels (relative to root, as DefaultShare lists
// them) into a copy of the tree at dir, so a test run there finds installed
// dependencies. A folder root lacks is skipped.
func ShareInto(root, dir string, rels []string) error {
	for _, rel := range rels {
		if err := share(root, dir, rel); err != nil {
			return err
		}
	}
	return nil
}
