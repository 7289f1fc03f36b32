package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/git"
	"github.com/chanto-dev/chanto/internal/run"
)

// indexEntry is what git's index knows of a clean tracked file.
type indexEntry struct {
	blob string
	mode string
	// own is set for an entry of the index chanto read itself: the file
	// is clean only when its lstat is the one the index recorded.
	own *git.IndexEntry
}

// clean reports whether the file on disk can be trusted to hold the index
// entry's content: git found it clean, and it is still the same kind of file.
func (ie indexEntry) clean(fi fs.FileInfo) bool {
	if ie.own != nil && !ie.own.CleanFor(fi) {
		return false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return ie.mode == "120000"
	}
	return ie.mode == "100644" || ie.mode == "100755"
}

// gitIndex reads the blob ids of tracked files that git finds clean (its
// own stat cache decides, so no file is read). Dirty files are left out and
// get hashed by the caller, and so are files git converts between the
// work tree and the object store (see converted): the snapshot holds a
// file's bytes on disk, never the form git stores.
func (s *Snapshot) gitIndex(ctx context.Context) (map[string]indexEntry, error) {
	if repo, ok := s.ownIndex(); ok {
		if entries, _, err := git.ReadIndex(repo); err == nil {
			// Each entry's stat data is checked against the lstat Take
			// makes of every file anyway (indexEntry.clean).
			index := map[string]indexEntry{}
			for i, e := range entries {
				if e.Checkable {
					index[e.Path] = indexEntry{blob: e.ID, mode: strconv.FormatUint(uint64(e.Mode), 8), own: &entries[i]}
				}
			}
			index, err := s.dropConverted(ctx, index)
			var ge *git.Error
			var nf *run.NotFoundError
			if errors.As(err, &ge) || errors.As(err, &nf) {
				return nil, errNotGit
			}
			return index, err
		}
	}
	out, err := s.git0(ctx, "ls-files", "-z", "--cached", "--stage")
	if err != nil {
		return nil, err
	}
	dirty, err := s.git0(ctx, "diff-files", "-z", "--name-only", "--relative")
	if err != nil {
		return nil, err
	}
	isDirty := map[string]bool{}
	for _, p := range git.Split0(dirty) {
		isDirty[p] = true
	}
	index := map[string]indexEntry{}
	for _, rec := range git.Split0(out) {
		// "<mode> <id> <stage>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[2] != "0" || isDirty[path] {
			continue
		}
		index[path] = indexEntry{blob: fields[1], mode: fields[0]}
	}
	return s.dropConverted(ctx, index)
}

// dropConverted leaves out the files git converts on checkout.
func (s *Snapshot) dropConverted(ctx context.Context, index map[string]indexEntry) (map[string]indexEntry, error) {
	conv, err := s.converted(ctx, index)
	if err != nil {
		return nil, err
	}
	for p := range conv {
		delete(index, p)
	}
	return index, nil
}

// convertingAttrs are the attributes under which a checked-out file's bytes
// differ from its blob: a content filter (git-lfs), keyword expansion, a
// work-tree encoding, CRLF endings on checkout.
var convertingAttrs = []string{"filter", "ident", "working-tree-encoding", "eol"}

// converted lists the tracked paths whose work-tree bytes git converts on
// checkout, so the index's blob id is not the id of what is on disk. It
// asks only when the repository has attribute files at all.
func (s *Snapshot) converted(ctx context.Context, index map[string]indexEntry) (map[string]bool, error) {
	if len(index) == 0 || !s.hasAttributes(index) {
		return nil, nil
	}
	var in strings.Builder
	for p := range index {
		in.WriteString(p)
		in.WriteByte(0)
	}
	var out strings.Builder
	err := git.Run(ctx, s.runner, git.Cmd{Dir: s.root, Args: append([]string{"check-attr", "-z", "--stdin"}, convertingAttrs...),
		Stdin: strings.NewReader(in.String()), Stdout: &out})
	if err != nil {
		return nil, err
	}
	conv := map[string]bool{}
	f := strings.Split(out.String(), "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		path, attr, value := f[i], f[i+1], f[i+2]
		switch {
		case value == "unspecified" || value == "unset":
		case attr == "eol" && value != "crlf":
		default:
			conv[path] = true
		}
	}
	return conv, nil
}

// hasAttributes reports whether any attribute file may apply: a
// .gitattributes in the tree, the repository's info/attributes, or the
// user's global one.
func (s *Snapshot) hasAttributes(index map[string]indexEntry) bool {
	for p := range index {
		if p == ".gitattributes" || strings.HasSuffix(p, "/.gitattributes") {
			return true
		}
	}
	return git.HasAttributeFiles(s.root)
}

// ownIndex is the repository whose index chanto reads itself (no git
// call): the snapshot's root is the top of a work tree Discover is sure
// of. Reading it is git's own stat test (git.ReadIndex); anything it does
// not read fully (a split or sparse index) is left to git.
func (s *Snapshot) ownIndex() (git.Repo, bool) {
	repo, ok := git.Discover(s.runner, s.root)
	if !ok || repo.Top != s.physicalRoot() {
		return git.Repo{}, false
	}
	return repo, true
}

func (s *Snapshot) physicalRoot() string {
	if real, err := filepath.EvalSymlinks(s.root); err == nil {
		return real
	}
	return s.root
}

// list returns the files of the tree: tracked and untracked-not-ignored in
// git, everything but .git and node_modules elsewhere. The tracked ones
// come from the index read in-process when ownIndex allows, the others
// from one git call.
func (s *Snapshot) list(ctx context.Context) ([]string, error) {
	if s.git {
		if repo, ok := s.ownIndex(); ok {
			if entries, unmerged, err := git.ReadIndex(repo); err == nil {
				out, err := s.git0(ctx, "ls-files", "-z", "--others", "--exclude-standard")
				if err != nil {
					return nil, err
				}
				paths := make([]string, 0, len(entries)+len(unmerged))
				for _, e := range entries {
					paths = append(paths, e.Path)
				}
				paths = append(paths, unmerged...)
				return append(paths, git.Split0(out)...), nil
			}
		}
		out, err := s.git0(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
		if err != nil {
			return nil, err
		}
		return git.Split0(out), nil
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

// git0 runs git in the snapshot's root; any git failure means "not a git
// work tree", other errors (a cancelled context) pass through.
func (s *Snapshot) git0(ctx context.Context, args ...string) ([]byte, error) {
	out, err := git.Output(ctx, s.runner, s.root, args...)
	var ge *git.Error
	var nf *run.NotFoundError
	if errors.As(err, &ge) || errors.As(err, &nf) {
		return nil, errNotGit
	}
	return out, err
}

func split0(b []byte) []string { return git.Split0(b) }
