package protect

import (
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Guard counts, for one runner of one folder, the files that look like
// tests by the runner's default rules and those protection guards.
type Guard struct {
	Dir     string `json:"dir"`
	Runner  string `json:"runner"`
	Tests   int    `json:"tests"`   // files named like tests by the defaults
	Guarded int    `json:"guarded"` // files protection compares
	Example string `json:"example,omitempty"`
}

// maxGuardFiles bounds the walk of Guards on huge trees.
const maxGuardFiles = 100000

// Guards walks root and returns, per runner home (the folder whose
// configuration decides), how many files look like tests and how many of
// them protection guards. A home with tests and none guarded means a
// configuration was misread: protection would pass any tampering there.
func Guards(root string, d *Detector) []Guard {
	if d == nil {
		d = NewDetector(DirSource(root))
	}
	groups := map[string]*Guard{}
	n := 0
	_ = filepath.WalkDir(root, func(full string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := e.Name()
		if e.IsDir() {
			if full != root && (skipDirs[name] || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if n++; n > maxGuardFiles {
			return filepath.SkipAll
		}
		p, err := filepath.Rel(root, full)
		if err != nil {
			return nil
		}
		p = filepath.ToSlash(p)
		runner, home, ok := d.defaultTest(p)
		if !ok {
			return nil
		}
		key := home + "\x00" + runner
		g := groups[key]
		if g == nil {
			g = &Guard{Dir: home, Runner: runner}
			groups[key] = g
		}
		g.Tests++
		if d.IsTestFile(p) {
			g.Guarded++
		} else if g.Example == "" {
			g.Example = p
		}
		return nil
	})
	out := make([]Guard, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Dir != out[j].Dir {
			return out[i].Dir < out[j].Dir
		}
		return out[i].Runner < out[j].Runner
	})
	return out
}

// Unguarded returns the guards with tests and none guarded.
func Unguarded(gs []Guard) []Guard {
	var out []Guard
	for _, g := range gs {
		if g.Tests > 0 && g.Guarded == 0 {
			out = append(out, g)
		}
	}
	return out
}

// defaultTest says whether p looks like a test by its language's default
// rules, and which runner home it belongs to.
func (d *Detector) defaultTest(p string) (runner, home string, ok bool) {
	base := path.Base(p)
	switch langOf(p) {
	case "go":
		return "go", ".", strings.HasSuffix(base, "_test.go")
	case "python":
		r := d.pyRulesFor(p)
		return "pytest", r.dir, matchAnyPy([]string{"test_*.py", "*_test.py"}, p)
	case "javascript", "typescript", "tsx":
		if strings.HasSuffix(base, ".d.ts") || !looksLikeJSTest(p) {
			return "", "", false
		}
		r := d.jsRulesFor(p)
		var names []string
		for _, run := range r.runners {
			names = append(names, run.name)
		}
		if r.broad || len(names) == 0 {
			names = append(names, "js")
		}
		return strings.Join(names, "+"), r.dir, true
	case "rust":
		return "cargo", d.cargoRulesFor(p).dir, strings.HasPrefix(p, "tests/") || strings.Contains(p, "/tests/")
	case "java":
		return "junit", d.jvmRulesFor(p).dir, strings.Contains("/"+p, "/src/test/") && strings.HasSuffix(strings.TrimSuffix(base, ".java"), "Test")
	}
	return "", "", false
}
