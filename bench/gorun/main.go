// Command gorun measures Go test selection below the package on real
// modules: it injects single-point faults into function bodies, selects
// with and without the -run pattern, runs both, and reports whether the
// pattern caught every fault the whole packages caught, and the time each
// took. Results go to docs/benchmarks.md ("Go tests below the package").
//
//	go run ./bench/gorun -faults 20 /tmp/x/cobra /tmp/x/chi
//
// Each folder must be a clean git work tree of a Go module; it is
// restored after every fault. A fault without a pattern runs its packages
// whole either way, so its tests are run only with -all.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

func main() {
	faults := flag.Int("faults", 20, "faults per module")
	seed := flag.Int64("seed", 1, "random seed")
	flag.IntVar(&selecttest.MaxRunNames, "max-names", selecttest.MaxRunNames, "most test names a pattern may list")
	flag.BoolVar(&runAll, "all", false, "run the tests of faults without a pattern too (their narrowed run is the whole run, so they cannot be missed)")
	flag.BoolVar(&selectOnly, "select-only", false, "select only: report each fault's pattern or why there is none, run no tests")
	flag.Parse()
	// Every pattern is judged, however fast the tests; the report says
	// which ones the time rule would have kept.
	selecttest.MinRunPatternSecs = 0
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		restoreMu.Lock()
		if restore != nil {
			restore()
		}
		os.Exit(1)
	}()
	fmt.Println("| module | faults | with a pattern | tests run | caught by whole packages | missed by the pattern | median whole | median narrowed | Σ narrowed/whole | with tests ≥ 2s | their Σ ratio | median selection |")
	for _, dir := range flag.Args() {
		dir, _ = filepath.Abs(dir)
		if err := module(dir, *faults, *seed); err != nil {
			fmt.Fprintln(os.Stderr, dir+":", err)
		}
	}
}

// selectOnly skips the test runs, to see quickly why patterns do not
// apply; without runAll, only faults with a pattern run their tests.
var selectOnly, runAll bool

var (
	restoreMu sync.Mutex
	restore   func() // puts back the file being mutated
)

// result is one fault's outcome.
type result struct {
	file, mut           string
	whole, narrow       time.Duration
	wholeFail, narFail  bool
	pattern, why        string
	tests, names        int
	selectMS            float64
	testSecs            float64 // go test's own package times, summed
	parsed, filesParsed int
	notRun              bool // no tests were run for it
}

func module(dir string, n int, seed int64) error {
	sites, err := faultSites(dir)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewSource(seed))
	rng.Shuffle(len(sites), func(i, j int) { sites[i], sites[j] = sites[j], sites[i] })
	var rs []result
	tried := 0
	for _, s := range sites {
		if len(rs) >= n || tried > 20*n {
			break
		}
		tried++
		r, ok := runFault(dir, s)
		if !ok {
			continue
		}
		rs = append(rs, r)
		fmt.Fprintf(os.Stderr, "%s %s %s: names %d/%d whole %v (%s, tests %.1fs) narrow %v (%s) select %.0fms %s%s\n", filepath.Base(dir), r.file, r.mut, r.names, r.tests,
			r.whole.Round(time.Millisecond), failWord(r.wholeFail), r.testSecs, r.narrow.Round(time.Millisecond), failWord(r.narFail), r.selectMS, r.pattern, r.why)
	}
	report(dir, rs)
	return nil
}

func failWord(f bool) string {
	if f {
		return "FAIL"
	}
	return "ok"
}

// site is one mutation: replace src[off:off+len(old)] by new in file.
type site struct {
	file     string
	off      int
	old, new string
}

// faultSites lists operator and literal mutations inside function bodies
// of non-test, non-generated files of packages that have tests.
func faultSites(dir string) ([]site, error) {
	var out []site
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		tests, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "*_test.go"))
		if len(tests) == 0 {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || bytes.Contains(src, []byte("Code generated")) {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, sitesIn(filepath.ToSlash(rel), src)...)
		return nil
	})
	return out, err
}

var swaps = map[token.Token]string{
	token.ADD: "-", token.SUB: "+", token.EQL: "!=", token.NEQ: "==", token.LSS: "<=", token.GTR: ">=",
	token.LEQ: "<", token.GEQ: ">", token.LAND: "||", token.LOR: "&&",
}

func sitesIn(rel string, src []byte) []site {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, 0)
	if err != nil {
		return nil
	}
	var out []site
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || fn.Name.Name == "init" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if to, ok := swaps[x.Op]; ok {
					if x.Op == token.ADD && isString(x) {
						return true
					}
					out = append(out, site{rel, fset.Position(x.OpPos).Offset, x.Op.String(), to})
				}
			case *ast.BasicLit:
				if x.Kind == token.INT && (x.Value == "0" || x.Value == "1") {
					to := map[string]string{"0": "1", "1": "0"}[x.Value]
					out = append(out, site{rel, fset.Position(x.Pos()).Offset, x.Value, to})
				}
			case *ast.Ident:
				if x.Name == "true" || x.Name == "false" {
					to := map[string]string{"true": "false", "false": "true"}[x.Name]
					out = append(out, site{rel, fset.Position(x.Pos()).Offset, x.Name, to})
				}
			}
			return true
		})
	}
	return out
}

// isString guesses string concatenation (a string literal on either side).
func isString(b *ast.BinaryExpr) bool {
	for _, e := range []ast.Expr{b.X, b.Y} {
		if l, ok := e.(*ast.BasicLit); ok && l.Kind == token.STRING {
			return true
		}
	}
	return false
}

// runFault applies s, selects, runs the whole packages and the narrowed
// command, and restores the file. ok is false when the fault does not
// build or selection runs the full suite.
func runFault(dir string, s site) (result, bool) {
	r := result{file: s.file, mut: s.old + "→" + s.new}
	file := filepath.Join(dir, filepath.FromSlash(s.file))
	orig, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(orig[s.off:s.off+len(s.old)], []byte(s.old)) {
		return r, false
	}
	mutated := append(append(append([]byte{}, orig[:s.off]...), s.new...), orig[s.off+len(s.old):]...)
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		return r, false
	}
	restoreMu.Lock()
	restore = func() { _ = os.WriteFile(file, orig, 0o644) }
	restoreMu.Unlock()
	defer func() {
		restoreMu.Lock()
		restore()
		restore = nil
		restoreMu.Unlock()
	}()
	// Selection trusts memo entries only for files older than 2s.
	time.Sleep(10 * time.Millisecond)
	if !builds(dir, s.file) {
		fmt.Fprintf(os.Stderr, "skip %s %s→%s: does not build\n", s.file, s.old, s.new)
		return r, false
	}
	in := selecttest.Input{
		Check:   detect.Check{Dir: dir, Runner: detect.Go, Args: []string{"go", "test", "./..."}, Narrowable: true},
		Changed: []string{s.file},
		Base: func(rel string) ([]byte, error) {
			if rel == s.file {
				return orig, nil
			}
			return os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		},
	}
	start := time.Now()
	sel, err := selecttest.Select(context.Background(), nil, in)
	r.selectMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil || sel.Full {
		fmt.Fprintf(os.Stderr, "skip %s: full suite (%s) %v\n", s.file, sel.Reason, err)
		return r, false
	}
	st := selecttest.LastGoRunStats()
	r.pattern, r.why, r.tests, r.names, r.parsed, r.filesParsed = sel.RunPattern, st.Why, st.Tests, st.Names, st.Parsed, st.Files
	if selectOnly || sel.RunPattern == "" && !runAll {
		r.notRun = true
		return r, true
	}
	wholeArgs := sel.Args
	if sel.RunPattern != "" {
		wholeArgs = append([]string{"go", "test"}, sel.Args[4:]...)
	}
	// Warm the build cache so both runs pay the same (link and run).
	warm := append([]string{"go", "test", "-count=1", "-run", "^$"}, wholeArgs[2:]...)
	_ = goTest(dir, warm)
	var wholeOK, narOK bool
	var out string
	r.whole, wholeOK, out = timed(dir, withCount(wholeArgs))
	r.wholeFail = !wholeOK
	for _, m := range packageLine.FindAllStringSubmatch(out, -1) {
		secs, _ := strconv.ParseFloat(m[1], 64)
		r.testSecs += secs
	}
	if sel.RunPattern == "" {
		r.narrow, r.narFail = r.whole, r.wholeFail
		return r, true
	}
	r.narrow, narOK, _ = timed(dir, withCount(sel.Args))
	r.narFail = !narOK
	return r, true
}

func builds(dir, file string) bool {
	cmd := exec.Command("go", "build", "./"+filepath.ToSlash(filepath.Dir(file)))
	cmd.Dir = dir
	return cmd.Run() == nil
}

func withCount(args []string) []string {
	return append([]string{"go", "test", "-count=1"}, args[2:]...)
}

func goTest(dir string, args []string) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	return cmd.Run()
}

var packageLine = regexp.MustCompile(`(?m)^(?:ok|FAIL)\s+\S+\s+([0-9.]+)s`)

func timed(dir string, args []string) (time.Duration, bool, string) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return time.Since(start), err == nil, string(out)
}

func report(dir string, rs []result) {
	var whole, narrow []float64
	var sumW, sumN, gW, gN float64
	gated := 0
	caught, missed, narrowedN, ran := 0, 0, 0, 0
	whys := map[string]int{}
	var sel []float64
	for _, r := range rs {
		sel = append(sel, r.selectMS)
		if !r.notRun {
			ran++
		}
		if r.wholeFail {
			caught++
			if !r.narFail {
				missed++
				fmt.Printf("MISS %s %s %s\n", r.file, r.mut, r.pattern)
			}
		}
		if r.pattern == "" {
			whys[r.why]++
			continue
		}
		narrowedN++
		whole = append(whole, r.whole.Seconds())
		narrow = append(narrow, r.narrow.Seconds())
		sumW += r.whole.Seconds()
		sumN += r.narrow.Seconds()
		if r.testSecs >= 2 {
			gated++
			gW += r.whole.Seconds()
			gN += r.narrow.Seconds()
		}
	}
	fmt.Printf("| %s | %d | %d | %d | %d | %d | %.2fs | %.2fs | %.2f | %d | %.2f | %.0f ms |\n", filepath.Base(dir), len(rs), narrowedN, ran, caught, missed,
		median(whole), median(narrow), ratio(sumN, sumW), gated, ratio(gN, gW), median(sel))
	var keys []string
	for k := range whys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("  no pattern (%d): %s\n", whys[k], k)
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
