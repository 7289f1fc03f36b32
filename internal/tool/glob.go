package tool

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed glob.md
var globDoc string

const globMaxResults = 200

// Glob finds files by name pattern.
type Glob struct{}

var _ Tool = Glob{}

type globInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

func (Glob) Name() string        { return "glob" }
func (Glob) Description() string { return globDoc }
func (Glob) ReadOnly() bool      { return true }
func (Glob) Schema() json.RawMessage {
	return schema(`{
"pattern":{"type":"string","description":"Glob pattern such as **/*.go or src/**/test_*.py, relative to path."},
"path":{"type":"string","description":"Folder to search (default: the project root)."}}`, "pattern")
}

// Run lists the non-ignored files under path matching pattern, newest
// first.
func (Glob) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	var in globInput
	if r := decode("glob", input, &in); r != nil {
		return *r, nil
	}
	if in.Pattern == "" {
		return errorf("pattern is empty"), nil
	}
	pattern := strings.TrimPrefix(in.Pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return errorf("invalid glob pattern %q", in.Pattern), nil
	}
	base := env.Root
	if in.Path != "" {
		base = env.resolve(in.Path)
	}
	// An absolute pattern under the folder becomes relative to it.
	if filepath.IsAbs(pattern) {
		if rel, err := filepath.Rel(base, pattern); err == nil && !strings.HasPrefix(rel, "..") {
			pattern = filepath.ToSlash(rel)
		}
	}
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		return errorf("%s is not a folder", env.display(base)), nil
	}
	files, err := listFiles(ctx, env, base)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return errorf("list %s: %v", env.display(base), err), nil
	}
	type hit struct {
		path  string
		mtime time.Time
	}
	var hits []hit
	for _, f := range files {
		if ok, _ := doublestar.Match(pattern, f); !ok {
			continue
		}
		abs := filepath.Join(base, filepath.FromSlash(f))
		fi, err := os.Stat(abs)
		if err != nil {
			continue
		}
		hits = append(hits, hit{env.display(abs), fi.ModTime()})
	}
	if len(hits) == 0 {
		return Result{Output: fmt.Sprintf("no files match %s under %s", in.Pattern, env.display(base))}, nil
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if !hits[i].mtime.Equal(hits[j].mtime) {
			return hits[i].mtime.After(hits[j].mtime)
		}
		return hits[i].path < hits[j].path
	})
	var b strings.Builder
	for _, h := range hits[:min(len(hits), globMaxResults)] {
		b.WriteString(h.path + "\n")
	}
	if len(hits) > globMaxResults {
		fmt.Fprintf(&b, "(showing %d of %d matches, newest first; narrow the pattern or path)\n", globMaxResults, len(hits))
	}
	return Result{Output: strings.TrimSuffix(b.String(), "\n")}, nil
}
