package selecttest

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/verify/runner"
)

// MaxRunNames is the most test names a -run pattern lists; a change that
// reaches more runs its packages whole (the saving is small and the
// command unreadable).
var MaxRunNames = 40

// GoRunStats reports how the last Go selection chose its tests, for
// benchmarks and the notes.
type GoRunStats struct {
	// Pattern is the -run pattern used, or "".
	Pattern string
	// Why says why there is none ("" when there is).
	Why string
	// Tests counts the test functions of the selected packages; Names
	// those the pattern runs.
	Tests, Names int
	// Files are the Go files summarized; Parsed those parsed afresh
	// (the rest came from the memo).
	Files, Parsed int
	// Elapsed is the time the test-level selection took.
	Elapsed time.Duration
}

var (
	goRunMu    sync.Mutex
	lastGoRuns GoRunStats
)

// LastGoRunStats returns how the most recent Go selection narrowed tests.
func LastGoRunStats() GoRunStats {
	goRunMu.Lock()
	defer goRunMu.Unlock()
	return lastGoRuns
}

// goRunPattern returns the anchored -run pattern that runs, in the
// selected packages, only the tests that can reach the change, or "" when
// the whole packages must run.
func goRunPattern(in Input, g *goGraph, pl *goPlan) string {
	start := time.Now()
	st := GoRunStats{}
	st.Pattern, st.Why = goRunPatternStats(in, g, pl, &st)
	st.Elapsed = time.Since(start)
	goRunMu.Lock()
	lastGoRuns = st
	goRunMu.Unlock()
	return st.Pattern
}

func goRunPatternStats(in Input, g *goGraph, pl *goPlan, st *GoRunStats) (string, string) {
	if in.Base == nil {
		return "", "the base is unknown"
	}
	if hasTestFilter(in.Check.Args) {
		return "", "the check already filters tests"
	}
	if MinRunPatternSecs > 0 {
		times := GoTestTimes(in.Check)
		secs := 0.0
		for ip := range pl.selected {
			secs += times[ip]
		}
		if secs < MinRunPatternSecs {
			return "", "the selected packages' tests took " + secsText(secs) + " when last run whole (under " + secsText(MinRunPatternSecs) + ")"
		}
	}
	byDir := map[string]*goPkg{}
	for _, p := range g.Packages {
		byDir[p.Rel] = p
	}
	diff, why := diffGo(in, byDir)
	if why != "" {
		return "", why
	}
	for ip := range pl.changed {
		if p := pl.byPath[ip]; p != nil && slices.ContainsFunc(p.Files, isAsm) {
			return "", goTarget(p.Rel) + " has assembly"
		}
	}
	rg, why := loadRefGraph(in.Check.Dir, pl, st)
	if why != "" {
		return "", why
	}
	rc := rg.reach(diff.changes)
	hot := rc.hot
	for i, d := range rg.decls {
		if hot[i] && (d.Kind == 'i' || d.Kind == 'v' && d.Name == "_" && !d.Inert) {
			return "", "an init or a blank variable of " + d.pkg + " can reach the change (" + rc.path(i) + ")"
		}
	}
	// Tests that read a variable a changed function names may see what it
	// wrote there (an init runs before, so it cannot).
	var vars []goChange
	for _, n := range diff.mentions {
		for _, pkg := range rg.vars[n] {
			vars = append(vars, goChange{Pkg: pkg, Name: n})
		}
	}
	if len(vars) > 0 {
		hot = rg.hot(append(vars, diff.changes...))
	}
	set := map[string]bool{}
	var all [][]string
	for _, ip := range sortedKeys(pl.selected) {
		tests := rg.testNames(ip, nil)
		all = append(all, tests)
		st.Tests += len(tests)
		names := tests
		if !pl.whole[ip] && diff.whole[ip] == "" {
			names = append(rg.testNames(ip, hot), diff.direct[ip]...)
		}
		for _, n := range names {
			set[n] = true
		}
	}
	// The pattern applies to every package: a name runs wherever a test
	// has it.
	for _, tests := range all {
		for _, n := range tests {
			if set[n] {
				st.Names++
			}
		}
	}
	switch {
	case len(set) == 0:
		return "", "no test reaches the change by name"
	case (len(set) > MaxRunNames || st.Names >= st.Tests) && len(pl.buildsGo) > 0:
		return "", "the tests of " + strings.Join(pl.buildsGo, ", ") + " run the go command, so they all run"
	case len(set) > MaxRunNames:
		return "", "more than " + strconv.Itoa(MaxRunNames) + " tests reach the change"
	case st.Names >= st.Tests:
		return "", "every test of the selected packages reaches the change"
	}
	// Which packages hold a test the pattern runs: the others run
	// nothing, and a stage of those alone is not worth a command.
	pl.runs = map[string]bool{}
	for i, ip := range sortedKeys(pl.selected) {
		pl.runs[ip] = slices.ContainsFunc(all[i], func(n string) bool { return set[n] })
	}
	names := sortedKeys(set)
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(names, "|") + ")$", ""
}

// hasTestFilter reports flags that already choose tests (or benchmarks,
// fuzzing), which a -run pattern would fight with.
func hasTestFilter(args []string) bool {
	return runner.HasGoFlag(args, "run", "skip", "bench", "fuzz", "list")
}

func isAsm(f string) bool { return strings.HasSuffix(f, ".s") || strings.HasSuffix(f, ".S") }

// callMemoFormat changes when goFileSum does, so old memo entries are not
// read.
const callMemoFormat = "calls-v8"

// loadRefGraph summarizes the Go files of the selected packages and of
// every module package their tests link (nothing else can be on a path a
// selected test runs), from the memo where the files are unchanged.
func loadRefGraph(dir string, pl *goPlan, st *GoRunStats) (*refGraph, string) {
	universe := map[string]bool{}
	for ip := range pl.selected {
		universe[ip] = true
		for _, d := range pl.byPath[ip].TestDeps {
			universe[d] = true
		}
	}
	type job struct {
		pkg, file string
		test      bool
	}
	var jobs []job
	for _, ip := range sortedKeys(universe) {
		p := pl.byPath[ip]
		if p == nil {
			continue
		}
		for _, f := range p.Files {
			if strings.HasSuffix(f, ".go") {
				jobs = append(jobs, job{ip, filepath.Join(dir, filepath.FromSlash(p.Rel), f), strings.HasSuffix(f, "_test.go")})
			}
		}
	}
	abs, _ := filepath.Abs(dir)
	sum := sha256.Sum256([]byte(abs))
	memoFile := filepath.Join(config.Home(), "cache", "selecttest", "calls-"+hex.EncodeToString(sum[:8])+".json")
	callMemo.load(memoFile)
	defer callMemo.save(memoFile)
	sums := make([]goFileSum, len(jobs))
	var parsed sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		parsed.Add(1)
		go func() {
			defer parsed.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(jobs) {
					return
				}
				sums[i] = callMemo.get(jobs[i].file, callMemoFormat, func() goFileSum {
					mu.Lock()
					st.Parsed++
					mu.Unlock()
					return summarizeGoFile(jobs[i].file)
				})
			}
		}()
	}
	parsed.Wait()
	st.Files = len(jobs)
	files := map[string][]fileOf{}
	for i, j := range jobs {
		s := sums[i]
		if s.Opaque != "" {
			return nil, filepath.Base(j.file) + " has " + s.Opaque
		}
		if s.Bad {
			return nil, filepath.Base(j.file) + " does not parse"
		}
		files[j.pkg] = append(files[j.pkg], fileOf{sum: s, test: j.test})
	}
	names := map[string]string{}
	for ip, p := range pl.byPath {
		if p != nil {
			names[ip] = p.Name
		}
	}
	return newRefGraph(files, names), ""
}

// secsText is "0.4s", "2s", "31s".
func secsText(s float64) string {
	if s < 10 {
		return strconv.FormatFloat(float64(int(s*10+0.5))/10, 'f', -1, 64) + "s"
	}
	return strconv.Itoa(int(s+0.5)) + "s"
}
