package protect

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRealWorld runs honest and tampering edits over real test files found
// on this machine (Go module cache, Python's own test suite, node
// packages). It is opt-in: PROTECT_REALWORLD=dir1:dir2 names where to look.
func TestRealWorld(t *testing.T) {
	dirs := os.Getenv("PROTECT_REALWORLD")
	if dirs == "" {
		t.Skip("set PROTECT_REALWORLD to directories holding real test files")
	}
	per := map[string]int{}
	max := 150
	if n, err := strconv.Atoi(os.Getenv("PROTECT_REALWORLD_MAX")); err == nil {
		max = n
	}
	for _, dir := range filepath.SplitList(dirs) {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel := strings.TrimPrefix(p, dir+"/")
			lang := langOf(p)
			if lang == "" || !(IsTestFile(rel) || lang == "rust" || lang == "java") || per[lang] >= max {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 400<<10 || isBinary(b) {
				return nil
			}
			m := analyze(lang, rel, b)
			if m.parseErr || len(m.tests) == 0 {
				return nil
			}
			per[lang]++
			realWorldFile(t, lang, rel, string(b), m)
			return nil
		})
	}
	t.Logf("files per language: %v", per)
}

var newTests = map[string]string{
	"go":         "\nfunc TestZZNew(t *testing.T) {\n\tif 1+1 != 2 {\n\t\tt.Fatal(\"math\")\n\t}\n}\n",
	"python":     "\n\ndef test_zz_new():\n    assert 1 + 1 == 2\n",
	"javascript": "\ntest(\"zz new\", () => {\n  expect(1 + 1).toBe(2);\n});\n",
	"typescript": "\ntest(\"zz new\", () => {\n  expect(1 + 1).toBe(2);\n});\n",
	"tsx":        "\ntest(\"zz new\", () => {\n  expect(1 + 1).toBe(2);\n});\n",
	"rust":       "\n#[test]\nfn zz_new() {\n    assert_eq!(1 + 1, 2);\n}\n",
	"java":       "\n// appended comment\n",
}

func realWorldFile(t *testing.T, lang, p, src string, m *fileModel) {
	t.Helper()
	check := func(what, cur string, want Kind) {
		vs, err := Compare(mapSource{p: src}, mapSource{p: cur}, []string{p}, Options{})
		if err != nil {
			t.Errorf("%s %s: %v", p, what, err)
			return
		}
		if want == "" && len(vs) > 0 {
			t.Errorf("%s: honest %s reported: %s", p, what, vs[0].String())
		}
		if want != "" {
			for _, v := range vs {
				if v.Kind == want {
					return
				}
			}
			t.Errorf("%s: %s not reported as %s: %v", p, what, want, vs)
		}
	}
	check("new test", src+newTests[lang], "")
	check("crlf", strings.ReplaceAll(src, "\n", "\r\n"), "")
	check("comment", commentFirstLine(lang, src), "")
	realWorldRemoveAndSkip(lang, src, m, check)
	// Tampering: rename the first test out of collection.
	first := m.tests[0]
	if first.isTable {
		return
	}
	name := first.name[strings.LastIndexAny(first.name, ":#/>. ")+1:]
	var re *regexp.Regexp
	switch lang {
	case "go":
		if strings.Contains(first.name, "/") || strings.Contains(first.name, ".") {
			return
		}
		re = regexp.MustCompile(`func ` + regexp.QuoteMeta(name) + `\(`)
	case "python":
		re = regexp.MustCompile(`def ` + regexp.QuoteMeta(name) + `\(`)
	default:
		return
	}
	if len(re.FindAllStringIndex(src, -1)) != 1 {
		return
	}
	check("rename out", re.ReplaceAllStringFunc(src, func(s string) string {
		return strings.Replace(s, name, "zz"+strings.ToLower(name[:1])+name[1:]+"Gone", 1)
	}), TestRemoved)
}

// commentFirstLine adds a comment line before the first line of the first
// test, which must never be reported.
func commentFirstLine(lang, src string) string {
	c := "// a comment"
	if lang == "python" {
		c = "# a comment"
	}
	return c + "\n" + src
}

// realWorldRemoveAndSkip deletes the first one-line assertion of the first
// test that has one, then inserts a skip before it.
func realWorldRemoveAndSkip(lang, src string, m *fileModel, check func(what, cur string, want Kind)) {
	lines := strings.Split(src, "\n")
	for _, tc := range m.tests {
		if len(tc.asserts) == 0 || tc.isTable {
			continue
		}
		a := tc.asserts[0]
		if a.line <= tc.line || a.line >= tc.end {
			break // a one-line test: removing the line removes the test
		}
		line := lines[a.line-1]
		trim := strings.TrimSpace(line)
		if strings.Count(trim, "(") != strings.Count(trim, ")") || !(strings.HasSuffix(trim, ")") || strings.HasSuffix(trim, ");")) || strings.HasPrefix(trim, "}") {
			break
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		removed := strings.Join(append(append([]string{}, lines[:a.line-1]...), lines[a.line:]...), "\n")
		check("assertion removed", removed, AssertionRemoved)
		ins := ""
		want := SkipAdded
		switch lang {
		case "go":
			recv := a.fn[:strings.IndexByte(a.fn, '.')]
			if recv == "assert" || recv == "require" {
				recv = "t"
			}
			ins = indent + recv + ".Skip(\"later\")"
		case "python":
			ins = indent + "pytest.skip(\"later\")"
		case "javascript", "typescript", "tsx":
			ins, want = indent+"process.exit(0);", EarlyExit
		default:
			break
		}
		if ins != "" {
			skipped := strings.Join(append(append(append([]string{}, lines[:a.line-1]...), ins), lines[a.line-1:]...), "\n")
			check("skip inserted", skipped, want)
		}
		break
	}
}

// TestRealWorldRepos checks whole repositories: for each runner folder
// with files named like tests by the runner's defaults, protection must
// guard at least one. PROTECT_REALWORLD_REPOS=dir1:dir2 names folders that
// are repositories or hold them (a Go module cache: every module@version
// with a go.mod, pyproject.toml, package.json, Cargo.toml or pom.xml).
func TestRealWorldRepos(t *testing.T) {
	dirs := os.Getenv("PROTECT_REALWORLD_REPOS")
	if dirs == "" {
		t.Skip("set PROTECT_REALWORLD_REPOS to folders of real repositories")
	}
	var repos []string
	for _, dir := range filepath.SplitList(dirs) {
		repos = append(repos, findRepos(dir, 3)...)
	}
	checked := 0
	for _, repo := range repos {
		d := NewDetector(DirSource(repo))
		gs := Guards(repo, d)
		for _, g := range gs {
			if g.Tests > 0 {
				checked++
			}
		}
		for _, g := range Unguarded(gs) {
			t.Errorf("%s: %s in %s: %d files named like tests, none guarded (e.g. %s)", repo, g.Runner, g.Dir, g.Tests, g.Example)
		}
		for _, c := range d.Doubts() {
			t.Logf("%s: %s (%s) not understood: %s", repo, c.File, c.Runner, c.Reason)
		}
	}
	t.Logf("%d repositories, %d runner folders with tests", len(repos), checked)
}

var manifests = []string{"go.mod", "pyproject.toml", "setup.py", "package.json", "Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts"}

// findRepos returns dir if it is a project root, else the project roots
// below it, depth levels down at most.
func findRepos(dir string, depth int) []string {
	for _, m := range manifests {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return []string{dir}
		}
	}
	if depth == 0 {
		return nil
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "cache" {
			out = append(out, findRepos(filepath.Join(dir, e.Name()), depth-1)...)
		}
	}
	return out
}
