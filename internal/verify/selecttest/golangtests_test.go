package selecttest

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// callModule is a module whose tests reach its code in every way the
// name graph must follow: direct calls, an importer's calls, an interface
// call, a value printed by fmt (String through the type), a package-level
// cache, and tests that reach nothing changed.
func callModule(t *testing.T) (dir string, base map[string]string) {
	dir = t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/c\n\ngo 1.22\n",
		"calc/calc.go": `package calc

import "strconv"

// Add adds.
func Add(a, b int) int { return a + b }

// Mul multiplies.
func Mul(a, b int) int { return a * b }

// Num prints itself.
type Num int

func (n Num) String() string { return "#" + strconv.Itoa(int(n)) }

var cache = map[int]int{}

// Square remembers squares.
func Square(x int) int {
	if v, ok := cache[x]; ok {
		return v
	}
	cache[x] = x * x
	return cache[x]
}

func init() { cache[0] = 0 }
`,
		"calc/calc_test.go": `package calc

import (
	"fmt"
	"testing"
)

func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Fatal(Add(2, 3))
	}
}

func TestMul(t *testing.T) {
	if Mul(2, 3) != 6 {
		t.Fatal(Mul(2, 3))
	}
}

func TestPrint(t *testing.T) {
	if s := fmt.Sprint(Num(3)); s != "#3" {
		t.Fatal(s)
	}
}

func TestSquare(t *testing.T) {
	if Square(3) != 9 {
		t.Fatal(Square(3))
	}
}

func TestCache(t *testing.T) {
	if len(cache) > 100 {
		t.Fatal("cache grew")
	}
}

func TestNothing(t *testing.T) {}
`,
		"shape/shape.go": `package shape

// Shape has an area.
type Shape interface{ Area() int }

// Square is a shape.
type Square struct{ Side int }

// Area is side squared.
func (s Square) Area() int { return s.Side * s.Side }

// Total adds areas through the interface.
func Total(ss ...Shape) int {
	n := 0
	for _, s := range ss {
		n += s.Area()
	}
	return n
}
`,
		"shape/shape_test.go": `package shape_test

import (
	"testing"

	"example.com/c/calc"
	"example.com/c/shape"
)

func TestTotal(t *testing.T) {
	if n := shape.Total(shape.Square{Side: 2}, shape.Square{Side: 3}); n != 13 {
		t.Fatal(n)
	}
}

func TestSum(t *testing.T) {
	if calc.Add(1, 1) != 2 {
		t.Fatal()
	}
}

func TestAlone(t *testing.T) {}
`,
		"reg/reg.go": `package reg

// Hook is set up by init.
var Hook func() int

var table = map[string]func() int{}

func compute() int { return 1 }

func other() int { return 2 }

func init() {
	h := func() int { return compute() }
	Hook = h
	t := table
	t["other"] = other
}

// Lookup calls what init registered.
func Lookup(k string) int { return table[k]() }
`,
		"reg/reg_test.go": `package reg

import "testing"

func TestHook(t *testing.T) {
	if Hook() != 1 {
		t.Fatal(Hook())
	}
}

func TestLookup(t *testing.T) {
	if Lookup("other") != 2 {
		t.Fatal(Lookup("other"))
	}
}

func TestNone(t *testing.T) {}
`,
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("p%02d/p.go", i)] = fmt.Sprintf("package p%02d\n", i)
		files[fmt.Sprintf("p%02d/p_test.go", i)] = fmt.Sprintf("package p%02d\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) {}\n", i)
	}
	writeTree(t, dir, files)
	return dir, files
}

// selectWith selects after replacing old by new in file, with the base
// read from the original files.
func selectWith(t *testing.T, dir string, base map[string]string, file, old, new string) Selection {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	src, err := os.ReadFile(p)
	if err != nil {
		src = nil
	}
	if old != "" && !strings.Contains(string(src), old) {
		t.Fatalf("%s has no %q", file, old)
	}
	changed := strings.Replace(string(src), old, new, 1)
	if old == "" {
		changed = new
	}
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, ok := base[file]; ok {
			_ = os.WriteFile(p, []byte(b), 0o644)
		} else {
			_ = os.Remove(p)
		}
	})
	in := Input{
		Check:   detect.Check{Dir: dir, Runner: detect.Go, Args: []string{"go", "test", "./..."}, Narrowable: true},
		Changed: []string{file},
		Base: func(rel string) ([]byte, error) {
			if b, ok := base[rel]; ok {
				return []byte(b), nil
			}
			return nil, &fs.PathError{Op: "read", Path: rel, Err: fs.ErrNotExist}
		},
	}
	if _, ok := base[file]; !ok {
		in.Added = []string{file}
	}
	return mustSelect(t, in)
}

// anyTestTime lets a pattern be used however fast the tests are.
func anyTestTime(t *testing.T) {
	old := MinRunPatternSecs
	MinRunPatternSecs = 0
	t.Cleanup(func() { MinRunPatternSecs = old })
}

func TestGoRunPattern(t *testing.T) {
	setHome(t)
	anyTestTime(t)
	dir, base := callModule(t)
	cases := []struct {
		name, file, old, new string
		command              string
		why                  string // why no pattern, when command has none
	}{
		{"a function body: its callers' tests in every package",
			"calc/calc.go", "return a + b", "return a - b",
			"go test -run '^(TestAdd|TestSum)$' ./calc ./shape", ""},
		{"an exported method: every test that mentions its type",
			"calc/calc.go", `"#" + strconv`, `"n" + strconv`,
			"go test -run '^(TestPrint)$' ./calc ./shape", ""},
		{"an interface method: the callers of the interface's name",
			"shape/shape.go", "s.Side * s.Side", "s.Side + s.Side",
			"go test -run '^(TestTotal)$' ./shape", ""},
		{"a function that writes a package-level variable: its readers too",
			"calc/calc.go", "cache[x] = x * x", "cache[x] = x * x + 1",
			"go test -run '^(TestCache|TestSquare)$' ./calc ./shape", ""}, // shape.Square is another package's
		{"a closure an init stores in a variable: the variable's readers",
			"reg/reg.go", "func compute() int { return 1 }", "func compute() int { return 3 }",
			"go test -run '^(TestHook)$' ./reg", ""},
		{"a function an init hands on (into a map): whole packages",
			"reg/reg.go", "func other() int { return 2 }", "func other() int { return 3 }",
			"go test ./reg", "an init or a blank variable of example.com/c/reg can reach the change (init → other)"},
		{"a comment only changes nothing a test sees",
			"calc/calc.go", "// Mul multiplies.", "// Mul multiplies two ints.",
			"go test ./calc ./shape", "no test reaches the change by name"},
		{"a package-level variable",
			"calc/calc.go", "var cache = map[int]int{}", "var cache = map[int]int{1: 1}",
			"go test ./calc ./shape", "a package-level variable changed in calc/calc.go"},
		{"an init function",
			"calc/calc.go", "cache[0] = 0", "cache[0] = 1",
			"go test ./calc ./shape", "an init function changed in calc/calc.go"},
		{"a new test in a test file runs alone",
			"calc/calc_test.go", "func TestNothing(t *testing.T) {}", "func TestNothing(t *testing.T) {}\n\nfunc TestNew(t *testing.T) {}",
			"go test -run '^(TestNew)$' ./calc", ""},
		{"a test file's imports: its package runs whole",
			"calc/calc_test.go", `"fmt"`, `"fmt"
	_ "strings"`,
			"go test ./calc", "every test of the selected packages reaches the change"},
		{"imports of a non-test file",
			"calc/calc.go", `import "strconv"`, `import (
	"strconv"
	_ "strings"
)`,
			"go test ./calc ./shape", "the imports, build constraints or directives of calc/calc.go changed"},
		{"a new file with a new function and type",
			"calc/more.go", "", "package calc\n\ntype Pair struct{ A, B int }\n\nfunc Sum3(a, b, c int) int { return Add(Add(a, b), c) }\n",
			"go test ./calc ./shape", "no test reaches the change by name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sel := selectWith(t, dir, base, c.file, c.old, c.new)
			wantNarrow(t, sel, c.command)
			st := LastGoRunStats()
			if st.Why != c.why {
				t.Errorf("why = %q, want %q", st.Why, c.why)
			}
			if (sel.RunPattern != "") != strings.Contains(c.command, "-run") {
				t.Errorf("RunPattern = %q", sel.RunPattern)
			}
		})
	}
}

// TestGoRunPatternGoCommand: a package whose tests run the go command
// builds the module's code where no name shows it (zap runs its own tests
// again with the module vendored), so its tests all run.
func TestGoRunPatternGoCommand(t *testing.T) {
	setHome(t)
	anyTestTime(t)
	dir, base := callModule(t)
	again := `package shape_test

import (
	"os/exec"
	"testing"
)

func TestVendored(t *testing.T) {
	out, err := exec.Command("go", "test", "-run", "TestTotal", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}
`
	writeTree(t, dir, map[string]string{"shape/again_test.go": again})
	base["shape/again_test.go"] = again
	t.Run("every test of shape, the one of calc that reaches Add", func(t *testing.T) {
		sel := selectWith(t, dir, base, "calc/calc.go", "return a + b", "return a - b")
		wantNarrow(t, sel, "go test -run '^(TestAdd|TestAlone|TestSum|TestTotal|TestVendored)$' ./calc ./shape")
	})
	t.Run("more names than a pattern takes: the reason says why", func(t *testing.T) {
		old := MaxRunNames
		MaxRunNames = 4
		t.Cleanup(func() { MaxRunNames = old })
		sel := selectWith(t, dir, base, "calc/calc.go", "return a + b", "return a - b")
		wantNarrow(t, sel, "go test ./calc ./shape")
		if why, want := LastGoRunStats().Why, "the tests of ./shape run the go command, so they all run"; why != want {
			t.Errorf("why = %q, want %q", why, want)
		}
	})
}

// TestGoRunPatternCatches runs the narrowed command on real faults: every
// fault the whole packages catch, the pattern catches.
func TestGoRunPatternCatches(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	setHome(t)
	anyTestTime(t)
	dir, base := callModule(t)
	faults := []struct{ file, old, new string }{
		{"calc/calc.go", "return a + b", "return a - b"},
		{"calc/calc.go", "return a * b", "return a + b"},
		{"calc/calc.go", `"#" + strconv`, `"n" + strconv`},
		{"calc/calc.go", "cache[x] = x * x", "for i := 0; i < 200; i++ {\n\t\tcache[i] = i\n\t}\n\tcache[x] = x * x"},
		{"shape/shape.go", "s.Side * s.Side", "s.Side + s.Side + 1"},
		{"reg/reg.go", "func compute() int { return 1 }", "func compute() int { return 3 }"},
	}
	for _, f := range faults {
		t.Run(f.new, func(t *testing.T) {
			sel := selectWith(t, dir, base, f.file, f.old, f.new)
			if sel.RunPattern == "" {
				t.Fatalf("no pattern: %s", LastGoRunStats().Why)
			}
			cmd := exec.CommandContext(context.Background(), sel.Args[0], sel.Args[1:]...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("%s passed with the fault:\n%s", sel.Command, out)
			}
			if !strings.Contains(string(out), "--- FAIL") {
				t.Fatalf("%s failed without a failing test:\n%s", sel.Command, out)
			}
		})
	}
}

// TestGoRunPatternPays: a pattern is used only once whole runs of the
// selected packages are known to take MinRunPatternSecs or more.
func TestGoRunPatternPays(t *testing.T) {
	setHome(t)
	dir, base := callModule(t)
	sel := selectWith(t, dir, base, "calc/calc.go", "return a + b", "return a - b")
	wantNarrow(t, sel, "go test ./calc ./shape")
	if why := LastGoRunStats().Why; why != "the selected packages' tests took 0s when last run whole (under 2s)" {
		t.Fatalf("why = %q", why)
	}
	RecordGoTestTimes(goCheck(dir), "ok  \texample.com/c/calc\t0.5s\nFAIL\texample.com/c/shape\t1.6s\nok  \texample.com/c/p01\t9.0s\n")
	sel = selectWith(t, dir, base, "calc/calc.go", "return a * b", "return a / b")
	wantNarrow(t, sel, "go test -run '^(TestAdd|TestMul|TestSum)$' ./calc ./shape")
}

// TestGoStages: a related go test run is split into the changed packages
// and their importers, each with the run's pattern, unless the pattern
// names no test of one side.
func TestGoStages(t *testing.T) {
	setHome(t)
	anyTestTime(t)
	dir, base := callModule(t)
	stages := func(sel Selection) []string {
		var out []string
		for _, s := range sel.Stages {
			out = append(out, s.Command)
		}
		return out
	}
	cases := []struct {
		name, file, old, new string
		want                 []string
	}{
		{"a pattern with tests on both sides", "calc/calc.go", "return a + b", "return a - b",
			[]string{"go test -run '^(TestAdd|TestSum)$' ./calc", "go test -run '^(TestAdd|TestSum)$' ./shape"}},
		{"a pattern naming no test of the importer", "calc/calc.go", "return a * b", "return a + b", nil},
		{"whole packages", "calc/calc.go", "// Mul multiplies.", "// Mul multiplies two ints.",
			[]string{"go test ./calc", "go test ./shape"}},
		{"a test file alone", "calc/calc_test.go", "func TestNothing(t *testing.T) {}", "func TestNothing(t *testing.T) {}\n\nfunc TestNew(t *testing.T) {}", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sel := selectWith(t, dir, base, c.file, c.old, c.new)
			if got := stages(sel); !slices.Equal(got, c.want) {
				t.Errorf("%s: stages %q, want %q", sel.Command, got, c.want)
			}
		})
	}
}

// A run that go test's -timeout stopped records no failed package's time:
// the limit's time would widen the next run's limit.
func TestRecordGoTestTimesLeavesOutATimeout(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	RecordGoTestTimes(goCheck(dir), "ok  \tm/a\t0.5s\nFAIL\tm/b\t0.2s\n")
	RecordGoTestTimes(goCheck(dir), "panic: test timed out after 1m0s\n\trunning tests:\n\t\tTestB (1m0s)\nFAIL\tm/b\t60.012s\nok  \tm/c\t0.1s\n")
	RecordGoTestTimes(goCheck(dir), "*** Test killed with quit: ran too long (2m0s).\nFAIL\tm/a\t120.016s\n")
	if got, want := GoTestTimes(goCheck(dir)), map[string]float64{"m/a": 0.5, "m/b": 0.2, "m/c": 0.1}; !maps.Equal(got, want) {
		t.Errorf("times %v, want %v", got, want)
	}
}

// TestGoFullStages: a full run of a small module, or of a change that
// reaches every test package, is split into the changed packages' tests
// and the rest of the module, packages without tests included (go test
// ./... builds them); not when the check names other packages, nor when
// the rest's recorded tests are quick.
func TestGoFullStages(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":           "module example.com/f\n\ngo 1.22\n",
		"f.go":             "package f\n",
		"f_test.go":        "package f\n\nimport \"testing\"\n\nfunc TestRoot(t *testing.T) {}\n",
		"a/a.go":           "package a\n\nfunc A() int { return 1 }\n",
		"a/a_test.go":      "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { _ = A() }\n",
		"a/testdata/x":     "x\n",
		"b/b.go":           "package b\n\nimport \"example.com/f/a\"\n\nfunc B() int { return a.A() }\n",
		"b/b_test.go":      "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { _ = B() }\n",
		"notest/n.go":      "package notest\n",
		"nested/go.mod":    "module example.com/nested\n\ngo 1.22\n",
		"nested/n.go":      "package nested\n",
		"nested/n_test.go": "package nested\n\nimport \"testing\"\n\nfunc TestN(t *testing.T) {}\n",
	})
	stages := func(sel Selection) []string {
		var out []string
		for _, s := range sel.Stages {
			out = append(out, s.Command+" ("+s.Reason.String()+")")
		}
		return out
	}
	in := func(check detect.Check, changed ...string) Input { return Input{Check: check, Changed: changed} }
	RecordGoTestTimes(goCheck(dir), "ok  \texample.com/f\t0.1s\nok  \texample.com/f/a\t0.5s\nok  \texample.com/f/b\t2.5s\n")
	rest := "go test . ./b ./notest (the rest of the full suite (the project has 20 or fewer test files))"
	for _, c := range []struct {
		name string
		in   Input
		want []string
	}{
		{"a change in a", in(goCheck(dir), "a/a.go"), []string{"go test ./a (related to your changes)", rest}},
		{"a's test data", in(goCheck(dir), "a/testdata/x"), []string{"go test ./a (related to your changes)", rest}},
		{"the nested module is not the module's", in(goCheck(dir), "nested/n.go"), nil},
		{"a package without tests", in(goCheck(dir), "notest/n.go"), nil},
		{"the check names its packages", in(detect.Check{Args: []string{"go", "test", "./a/...", "./b/..."}, Dir: dir, Runner: detect.Go, Narrowable: true}, "a/a.go"), nil},
		{"the rest's tests are quick", in(goCheck(dir), "b/b.go"), nil},
		{"build tags the graph was listed without", in(detect.Check{Args: []string{"go", "test", "-tags", "integration", "./..."}, Dir: dir, Runner: detect.Go, Narrowable: true}, "a/a.go"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sel := mustSelect(t, c.in)
			if !sel.Full {
				t.Fatalf("related %q, want a full run", sel.Command)
			}
			if got := stages(sel); !slices.Equal(got, c.want) {
				t.Errorf("stages %q, want %q", got, c.want)
			}
		})
	}
}

// In a go.work, a package of another module the module imports is in the
// graph, but go test ./... leaves it out, and so does the split.
func TestGoFullStagesLeaveOutTheWorkspace(t *testing.T) {
	setHome(t)
	old := MinRunPatternSecs
	MinRunPatternSecs = 0
	t.Cleanup(func() { MinRunPatternSecs = old })
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.work":         "go 1.22\n\nuse (\n\t.\n\t./tools\n)\n",
		"go.mod":          "module example.com/w\n\ngo 1.22\n",
		"a/a.go":          "package a\n\nimport \"example.com/w/tools\"\n\nfunc A() int { return tools.T() }\n",
		"a/a_test.go":     "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { _ = A() }\n",
		"b/b.go":          "package b\n",
		"b/b_test.go":     "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {}\n",
		"tools/go.mod":    "module example.com/w/tools\n\ngo 1.22\n",
		"tools/t.go":      "package tools\n\nfunc T() int { return 1 }\n",
		"tools/t_test.go": "package tools\n\nimport \"testing\"\n\nfunc TestT(t *testing.T) {}\n",
	})
	sel := mustSelect(t, Input{Check: goCheck(dir), Changed: []string{"a/a.go"}})
	var got []string
	for _, s := range sel.Stages {
		got = append(got, s.Command)
	}
	if want := []string{"go test ./a", "go test ./b"}; !slices.Equal(got, want) {
		t.Errorf("stages %q, want %q", got, want)
	}
}
