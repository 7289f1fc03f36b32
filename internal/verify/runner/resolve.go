package runner

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxResolveFiles bounds the walk Resolve makes; a larger project keeps
// the invocation as it reads.
const maxResolveFiles = 50000

// Resolve compares what a plain run of targets collects with what the
// whole suite in dir collects: when the targets hold every test file (or,
// for go test, every package with tests), the run is the whole suite
// (`pytest tests/` where all the tests live in tests/). Commands are
// compared by what they run, not by their words.
func Resolve(dir string, inv Invocation) Invocation {
	if !inv.Plain || inv.All || len(inv.Targets) == 0 {
		return inv
	}
	r := For(inv.Runner)
	b, ok := r.(interface{ kind() TargetKind })
	if !ok {
		return inv
	}
	kind := b.kind()
	if kind != Paths && kind != Packages {
		return inv
	}
	globs := r.Collects()
	if len(globs) == 0 {
		return inv
	}
	all, found, files := true, false, 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !all {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != dir && skipCollect(kind, p, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if files++; files > maxResolveFiles {
			all = false
			return filepath.SkipAll
		}
		if !collected(globs, rel) {
			return nil
		}
		found = true
		want := rel
		if kind == Packages {
			want = path.Dir(rel)
		}
		covered := false
		for _, t := range inv.Targets {
			if t == want || kind == Paths && t == rel || r.TargetCovers(t, want) {
				covered = true
				break
			}
		}
		if !covered {
			all = false
			return filepath.SkipAll
		}
		return nil
	})
	if all && found {
		inv.All, inv.Targets = true, nil
	}
	return inv
}

func (b base) kind() TargetKind { return b.targets }

// collected reports whether rel matches one of the runner's globs.
func collected(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		// "**/x" also matches at the top.
		if rest, cut := strings.CutPrefix(g, "**/"); cut {
			if ok, _ := doublestar.Match(rest, rel); ok {
				return true
			}
		}
	}
	return false
}

// skipCollect reports folders the runner does not collect from: hidden
// and dependency folders, and for go test the ones ./... leaves out
// (testdata, _x, nested modules).
func skipCollect(kind TargetKind, p, name string) bool {
	if strings.HasPrefix(name, ".") || name == "node_modules" || name == "venv" || name == "__pycache__" || name == "target" || name == "vendor" {
		return true
	}
	if kind == Packages {
		return name == "testdata" || strings.HasPrefix(name, "_") || fileExists(filepath.Join(p, "go.mod"))
	}
	return name == "build" || name == "dist" || strings.HasSuffix(name, ".egg")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
