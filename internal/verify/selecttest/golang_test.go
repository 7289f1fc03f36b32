package selecttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// goModule builds a module with every kind of dependency selection must
// see: plain, external _test package, test-only import, tests that run the
// module's programs, tests that read another package's folder, and enough
// independent test packages to pass the small-project rule.
func goModule(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.22\n",
		"a/a.go":            "package a\n\nfunc A() int { return 1 }\n",
		"a/a_test.go":       "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { _ = A() }\n",
		"b/b.go":            "package b\n\nimport \"example.com/m/a\"\n\nfunc B() int { return a.A() }\n",
		"b/b_test.go":       "package b_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/b\"\n)\n\nfunc TestB(t *testing.T) { _ = b.B() }\n",
		"c/c.go":            "package c\n\nfunc C() int { return 3 }\n",
		"c/c_test.go":       "package c\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/a\"\n)\n\nfunc TestC(t *testing.T) { _ = a.A() + C() }\n",
		"x/x.go":            "package x\n\nfunc X() {}\n",
		"x/x_test.go":       "package x_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/c\"\n)\n\nfunc TestX(t *testing.T) { _ = c.C() }\n",
		"cmd/tool/main.go":  "package main\n\nimport \"example.com/m/a\"\n\nfunc main() { println(a.A()) }\n",
		"e2e/e2e.go":        "package e2e\n",
		"e2e/e2e_test.go":   "package e2e\n\nimport (\n\t\"os/exec\"\n\t\"testing\"\n)\n\nfunc TestBuild(t *testing.T) { _ = exec.Command(\"go\", \"build\", \"../cmd/tool\") }\n",
		"d/d.go":            "package d\n\nfunc D() {}\n",
		"d/d_test.go":       "package d\n\nimport \"testing\"\n\nfunc TestD(t *testing.T) {}\n",
		"d/testdata/in.txt": "hello\n",
		"reader/r.go":       "package reader\n",
		"reader/r_test.go":  "package reader\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestR(t *testing.T) { _, _ = os.ReadFile(\"../d/testdata/in.txt\") }\n",
		"README.md":         "# m\n",
		"shell/sh.go":       "package shell\n",
		"shell/sh_test.go":  "package shell\n\nimport (\n\t\"os/exec\"\n\t\"testing\"\n)\n\nfunc TestSh(t *testing.T) { _ = exec.Command(\"bash\", \"-c\", \"true\") }\n",
		"harness/h.go":      "package harness\n",
		"harness/h_test.go": "package harness\n\nimport (\n\t\"testing\"\n\n\t\"github.com/rogpeppe/go-internal/testscript\"\n)\n\nfunc TestScripts(t *testing.T) { testscript.Run(t, testscript.Params{Dir: \"testdata\"}) }\n",
		"notest/n.go":       "package notest\n",
		"nested/go.mod":     "module example.com/nested\n\ngo 1.22\n",
		"nested/n.go":       "package nested\n",
	}
	for i := 0; i < 16; i++ {
		files[fmt.Sprintf("p%02d/p.go", i)] = fmt.Sprintf("package p%02d\n", i)
		files[fmt.Sprintf("p%02d/p_test.go", i)] = fmt.Sprintf("package p%02d\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) {}\n", i)
	}
	writeTree(t, dir, files)
	return dir
}

func TestGoSelection(t *testing.T) {
	setHome(t)
	dir := goModule(t)
	cases := []struct {
		name    string
		changed []string
		added   []string
		command string // empty: full suite
		reason  string
	}{
		{"plain, external and test-only importers; program runners widened",
			[]string{"a/a.go"}, nil, "go test ./a ./b ./c ./e2e ./harness", ""},
		{"external test package importing a test-only dependency",
			[]string{"c/c.go"}, nil, "go test ./c ./x", ""},
		{"changed test file selects its own package",
			[]string{"b/b_test.go"}, nil, "go test ./b", ""},
		{"program change reaches tests that run programs",
			[]string{"cmd/tool/main.go"}, nil, "go test ./e2e ./harness", ""},
		{"testdata read by another package through a relative path",
			[]string{"d/testdata/in.txt"}, nil, "go test ./d ./reader", ""},
		{"deleted file still maps to its package",
			[]string{"c/gone.go"}, nil, "go test ./c ./x", ""},
		{"new file in an existing package",
			[]string{"d/extra.go"}, []string{"d/extra.go"}, "go test ./d", ""},
		{"nested module files belong to that module",
			[]string{"d/d.go", "nested/n.go"}, nil, "go test ./d", ""},
		{"not Go code", []string{"a/a.go", "README.md"}, nil, "", "README.md is not Go code"},
		{"package without tests", []string{"notest/n.go"}, nil, "", "notest/n.go has no related tests"},
		{"new program nothing runs", []string{"repro/main.go"}, []string{"repro/main.go"}, "",
			"no related tests for the change"},
		{"go.mod", []string{"go.mod", "a/a.go"}, nil, "", "go.mod changed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range tc.added {
				writeTree(t, dir, map[string]string{f: "package " + filepath.Base(filepath.Dir(f)) + "\n"})
				defer os.Remove(filepath.Join(dir, f))
			}
			if strings.HasPrefix(tc.name, "new program") {
				writeTree(t, dir, map[string]string{"repro/main.go": "package main\n\nfunc main() {}\n"})
			}
			sel := mustSelect(t, Input{Check: goCheck(dir), Changed: tc.changed, Added: tc.added})
			if tc.command == "" {
				wantFull(t, sel, tc.reason)
				return
			}
			wantNarrow(t, sel, tc.command)
		})
	}
}

func TestGoWidenedReason(t *testing.T) {
	setHome(t)
	dir := goModule(t)
	sel := mustSelect(t, Input{Check: goCheck(dir), Changed: []string{"a/a.go"}})
	want := "related to your changes (including ./e2e: its tests run the project's programs; ./harness: its tests run the project's programs)"
	if sel.Scope.String() != want {
		t.Fatalf("reason = %q, want %q", sel.Reason, want)
	}
	sel = mustSelect(t, Input{Check: goCheck(dir), Changed: []string{"d/testdata/in.txt"}})
	if !equal(sel.Widened, []string{"./reader: its tests read d/testdata/in.txt"}) {
		t.Fatalf("widened = %q", sel.Widened)
	}
}

func TestGoSmallProjectRunsFull(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":      "module example.com/s\n\ngo 1.22\n",
		"a/a.go":      "package a\n",
		"a/a_test.go": "package a\n",
		"b/b.go":      "package b\n",
	})
	sel := mustSelect(t, Input{Check: goCheck(dir), Changed: []string{"a/a.go"}})
	wantFull(t, sel, "the project has 20 or fewer test files")
	if sel.Command != "go test ./..." {
		t.Fatalf("command = %q", sel.Command)
	}
	// The packages with tests it runs, for the hang guard.
	if !reflect.DeepEqual(sel.Packages, []string{"example.com/s/a"}) {
		t.Errorf("packages %q", sel.Packages)
	}
}

func TestGoEveryPackageIsFull(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/e\n\ngo 1.22\n", "base/base.go": "package base\n"}
	for i := 0; i < 21; i++ {
		files[fmt.Sprintf("p%02d/p_test.go", i)] = fmt.Sprintf("package p%02d\n\nimport _ \"example.com/e/base\"\n", i)
	}
	writeTree(t, dir, files)
	sel := mustSelect(t, Input{Check: goCheck(dir), Changed: []string{"base/base.go"}})
	wantFull(t, sel, "the change reaches every test package")
	if len(sel.Packages) != 21 {
		t.Errorf("packages %q", sel.Packages)
	}
}

func TestGoBrokenModuleIsAnError(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\nrequire (\n", "a.go": "package x\n"})
	sel, err := Select(t.Context(), nil, Input{Check: goCheck(dir), Changed: []string{"a.go"}})
	if err == nil || !strings.Contains(err.Error(), "go.mod") {
		t.Fatalf("err = %v, want one naming go.mod", err)
	}
	if !sel.Full || sel.Command != "go test ./..." {
		t.Fatalf("selection on error = %+v, want the full command", sel)
	}
}

func TestGoGraphCache(t *testing.T) {
	setHome(t)
	ResetGoCache()
	dir := goModule(t)
	in := Input{Check: goCheck(dir), Changed: []string{"d/d.go"}}
	mustSelect(t, in)
	if s := LastGoGraphStats().Source; s != "go list" {
		t.Fatalf("first build from %q", s)
	}
	// A body edit keeps the graph.
	writeTree(t, dir, map[string]string{"d/d.go": "package d\n\nfunc D() { println() }\n"})
	mustSelect(t, in)
	if s := LastGoGraphStats().Source; s != "memory" {
		t.Fatalf("after a body edit: %q, want memory", s)
	}
	ResetGoCache()
	mustSelect(t, in)
	if s := LastGoGraphStats().Source; s != "disk" {
		t.Fatalf("after reset: %q, want disk", s)
	}
	// A new import changes the graph: d now imports a, so a's change reaches d.
	writeTree(t, dir, map[string]string{"d/d.go": "package d\n\nimport \"example.com/m/a\"\n\nfunc D() int { return a.A() }\n"})
	sel := mustSelect(t, Input{Check: goCheck(dir), Changed: []string{"a/a.go"}})
	if s := LastGoGraphStats().Source; s != "go list" {
		t.Fatalf("after an import edit: %q, want go list", s)
	}
	wantNarrow(t, sel, "go test ./a ./b ./c ./d ./e2e ./harness")
}

// The narrowed command is one go test accepts and it runs the selected
// packages' tests.
func TestGoNarrowedCommandRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	setHome(t)
	dir := goModule(t)
	sel := mustSelect(t, Input{Check: goCheck(dir), Changed: []string{"c/c.go"}})
	res, err := (&run.Runner{}).Run(t.Context(), run.Spec{Args: sel.Args, Dir: dir, Purpose: run.Check})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output)
	if res.ExitCode != 0 || !strings.Contains(out, "ok  \texample.com/m/c") || !strings.Contains(out, "ok  \texample.com/m/x") ||
		strings.Contains(out, "example.com/m/a\t") {
		t.Fatalf("%s: exit %d\n%s", sel.Command, res.ExitCode, out)
	}
	if why, fb := FallbackReason(detect.Go, res.ExitCode, res.Output); fb {
		t.Fatalf("a run that ran tests taken for one that could not: %s", why)
	}
}

// In a go.work every used module is a main module; the graph is the one
// of the module the check runs in, even when go list meets the other
// first (it lists dependencies before their importers).
func TestGoGraphInWorkspace(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.work":       "go 1.22\n\nuse (\n\t./a\n\t./b\n)\n",
		"a/go.mod":      "module example.com/a\n\ngo 1.22\n",
		"a/a.go":        "package a\n\nfunc A() int { return 1 }\n",
		"b/go.mod":      "module example.com/b\n\ngo 1.22\n",
		"b/b.go":        "package b\n\nimport \"example.com/a\"\n\nfunc B() int { return a.A() }\n",
		"b/b_test.go":   "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { _ = B() }\n",
		"b/c/c.go":      "package c\n",
		"b/c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {}\n",
	})
	t.Setenv("GOFLAGS", "")
	g, err := loadGoGraph(context.Background(), &run.Runner{}, filepath.Join(root, "b"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Module != "example.com/b" || len(g.Packages) != 2 {
		t.Fatalf("module %q with %d packages, want example.com/b with 2", g.Module, len(g.Packages))
	}
}

// A full run that every test package is in names those no import reaches.
func TestGoEveryPackageNamesTheWidened(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/e\n\ngo 1.22\n", "base/base.go": "package base\n",
		"e2e/e2e.go":      "package e2e\n",
		"e2e/e2e_test.go": "package e2e\n\nimport (\n\t\"os/exec\"\n\t\"testing\"\n)\n\nfunc TestBuild(t *testing.T) { _ = exec.Command(\"go\", \"build\", \"../base\") }\n"}
	for i := 0; i < 21; i++ {
		files[fmt.Sprintf("p%02d/p_test.go", i)] = fmt.Sprintf("package p%02d\n\nimport _ \"example.com/e/base\"\n", i)
	}
	writeTree(t, dir, files)
	sel := mustSelect(t, Input{Check: goCheck(dir), Changed: []string{"base/base.go"}})
	if want := "the change reaches every test package (including ./e2e: its tests read base/base.go)"; !sel.Full || sel.Scope.String() != want {
		t.Errorf("full %v, reason %q, want %q", sel.Full, sel.Scope.String(), want)
	}
}
