// Command selection measures related-test selection on real Go modules and
// generated Python and Node projects: it injects single-point mutations
// into non-test source, runs the related selection for each and the full
// suite where the answer depends on it (see tryMutation), and prints per
// project the mutations tried, safety (the share of mutations the full
// suite catches that the related run also catches), the median time ratio
// related/full over a sample that runs both, and the graph-build time cold
// and cached.
//
// With -chanto BINARY it judges the whole gate instead: chanto verify on
// each mutation against the project's full checks, on real Go modules
// (go:NAME), Python work trees (py:DIR) and JavaScript ones (js:DIR); see
// verify.go.
//
//	go run ./bench/selection -mutations 8
//	go run ./bench/selection -chanto /tmp/chanto -projects go:orb=50,py:/tmp/boltons=50 -jsonl /tmp/out.jsonl
//	go run ./bench/selection -summarize /tmp/out.jsonl
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

func main() {
	// An interrupt or kill cancels the runs under way, so the mutated file
	// is put back before the program ends.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := benchMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	mutations int
	// perProject overrides mutations for one project (-projects NAME=N).
	perProject map[string]int
	// ratioSample is how many mutations per project run both the related
	// selection and the full suite whatever the first one shows, for the
	// time ratio; the others run the full suite only when the related run
	// passes (see tryMutation).
	ratioSample int
	both        bool
	seed        int64
	projects    []string
	keep        bool
	timeout     time.Duration
	// chanto, when set, is the chanto binary: each Go mutation is judged
	// end to end by chanto verify against the full checks (verify.go).
	chanto string
	// python runs the full suite of py:DIR projects in -chanto mode.
	python string
	// jsonl, when set, is a file each -chanto outcome is appended to.
	jsonl string
	// covered leaves out (-chanto) the mutations on code the full suite
	// never runs at HEAD (cover.go).
	covered bool
	// budget, when set, stops mutating a -chanto project this long after
	// its preparation began, so that a run covers every project asked for.
	budget time.Duration
}

func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("selection", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts options
	var list string
	fs.IntVar(&opts.mutations, "mutations", 8, "mutations per project (NAME=N in -projects overrides it)")
	fs.IntVar(&opts.ratioSample, "ratio-sample", 15, "mutations per project that run both suites, for the time ratio")
	fs.BoolVar(&opts.both, "both", false, "run the full suite for every mutation, even when the related run already failed")
	fs.Int64Var(&opts.seed, "seed", 1, "random seed for choosing mutations")
	fs.StringVar(&list, "projects", defaultProjects,
		"comma-separated projects, each optionally NAME=MUTATIONS: "+strings.Join(knownProjects, ", ")+", go:MODULE@VERSION")
	fs.BoolVar(&opts.keep, "keep", false, "keep the work folder")
	fs.DurationVar(&opts.timeout, "timeout", 10*time.Minute, "timeout of one test run")
	fs.StringVar(&opts.python, "python", "/usr/bin/python3", "the interpreter that runs a py:DIR project's full suite (-chanto)")
	fs.StringVar(&opts.chanto, "chanto", "", "judge Go mutations end to end with this chanto binary (chanto verify against go vet and go test in full)")
	fs.BoolVar(&opts.covered, "covered", false, "-chanto: leave out mutations on code the full suite never runs at HEAD (one coverage run per project)")
	fs.DurationVar(&opts.budget, "budget", 0, "-chanto: stop mutating a project this long after it started (0: no limit)")
	fs.StringVar(&opts.jsonl, "jsonl", "", "append each -chanto mutation's outcome to this file, one JSON object a line")
	buildFlag := fs.String("build", "", "-chanto: the commit the chanto binary was built from (default: its VCS stamp or its name's suffix after chanto-)")
	summary := fs.Bool("summarize", false, "print the -chanto table of the -jsonl files named as arguments, run nothing")
	markdown := fs.Bool("markdown", false, "-summarize: print the table in Markdown")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *summary {
		if err := summarize(stdout, fs.Args(), *markdown); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	opts.perProject = map[string]int{}
	for _, item := range strings.Split(list, ",") {
		name, n, found := strings.Cut(strings.TrimSpace(item), "=")
		if found {
			count, err := strconv.Atoi(n)
			if err != nil || count < 0 {
				fmt.Fprintf(stderr, "-projects: %q: want NAME=MUTATIONS with a whole number\n", item)
				return 2
			}
			opts.perProject[name] = count
		}
		opts.projects = append(opts.projects, name)
	}
	work, err := os.MkdirTemp("", "chanto-bench-selection-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if !opts.keep {
		defer os.RemoveAll(work)
	}
	// Selection caches graphs under CHANTO_HOME; keep them out of the
	// user's folder.
	os.Setenv("CHANTO_HOME", filepath.Join(work, "home"))
	b := &bench{work: work, opts: opts, log: stderr, rng: rand.New(rand.NewSource(opts.seed))}
	b.env = append(os.Environ(), "GOMODCACHE="+filepath.Join(work, "modcache"), "GOFLAGS=-modcacherw",
		"GOTOOLCHAIN=local", "GOPATH="+filepath.Join(work, "gopath"))
	b.runner = &run.Runner{BaseEnv: b.env}
	if opts.chanto != "" {
		b.build = build{Chanto: chantoRevision(opts.chanto, *buildFlag), Harness: harnessRevision()}
		b.logf("chanto build %s, harness %s", b.build.Chanto, b.build.Harness)
		if opts.jsonl != "" {
			f, err := os.OpenFile(opts.jsonl, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			defer f.Close()
			b.jsonl = f
		}
		return b.verifyMain(ctx, stdout, stderr)
	}
	var rows []row
	for _, name := range opts.projects {
		start := time.Now()
		r, err := b.project(ctx, name)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			continue
		}
		fmt.Fprintf(stderr, "%s: done in %s\n", name, time.Since(start).Round(time.Second))
		printTable(stderr, []row{r}, opts) // each project's result as soon as it is known
		rows = append(rows, r)
	}
	printTable(stdout, rows, opts)
	return 0
}

// row is one project's result.
type row struct {
	name             string
	packages         int
	testFiles        int
	tried            int
	caughtFull       int
	caughtRelated    int
	narrowed         int
	ratios           []float64
	fullSecs         float64
	coldMs, cachedMs float64
	misses           []string
	inconsistent     []string
	fullRuns         int
	skipped          string
	noGraph          bool
}

func printTable(w io.Writer, rows []row, opts options) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "project\tpkgs\ttest files\tmutations\tcaught by full\tcaught by related\tsafety\tnarrowed\tfull runs\tmedian time related/full\tfull suite\tgraph cold\tgraph cached")
	var total row
	for _, r := range rows {
		total.tried += r.tried
		total.caughtFull += r.caughtFull
		total.caughtRelated += r.caughtRelated
		total.narrowed += r.narrowed
		total.fullRuns += r.fullRuns
		ratio := "n/a"
		if len(r.ratios) > 0 {
			ratio = fmt.Sprintf("%.2f (%d)", median(r.ratios), len(r.ratios))
		}
		full := "n/a"
		if r.fullSecs > 0 {
			full = fmt.Sprintf("%.1fs", r.fullSecs)
		}
		cold, cached := fmt.Sprintf("%.0fms", r.coldMs), fmt.Sprintf("%.1fms", r.cachedMs)
		if r.noGraph {
			cold, cached = "- (runner's own)", "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d/%d\t%d\t%s\t%s\t%s\t%s\n", r.name, r.packages, r.testFiles,
			r.tried, r.caughtFull, r.caughtRelated, safety(r.caughtRelated, r.caughtFull), r.narrowed, r.tried,
			r.fullRuns, ratio, full, cold, cached)
	}
	fmt.Fprintf(tw, "all\t\t\t%d\t%d\t%d\t%s\t%d/%d\t%d\t\t\t\t\n", total.tried, total.caughtFull, total.caughtRelated,
		safety(total.caughtRelated, total.caughtFull), total.narrowed, total.tried, total.fullRuns)
	tw.Flush()
	fmt.Fprintf(w, "\nseed %d; safety = caught by related / caught by full; ratio over the first %d mutations of each project.\n",
		opts.seed, opts.ratioSample)
	if total.caughtFull > 0 {
		fmt.Fprintf(w, "safety over all projects: %s, at least %.2f%% with 95%% confidence (one-sided Clopper-Pearson).\n",
			safety(total.caughtRelated, total.caughtFull), 100*lowerBound(total.caughtRelated, total.caughtFull, 0.05))
	}
	for _, r := range rows {
		if r.skipped != "" {
			fmt.Fprintf(w, "%s: tests failing before any mutation were skipped in both runs: -skip '%s'\n", r.name, r.skipped)
		}
		for _, m := range r.misses {
			fmt.Fprintf(w, "missed in %s: %s\n", r.name, m)
		}
		for _, m := range r.inconsistent {
			fmt.Fprintf(w, "inconsistent in %s (related failed, full passed): %s\n", r.name, m)
		}
	}
}

func safety(related, full int) string {
	if full == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(related)/float64(full))
}

// lowerBound is the one-sided Clopper-Pearson lower confidence bound of a
// proportion with k successes in n trials: the p at which k or more
// successes have probability alpha.
func lowerBound(k, n int, alpha float64) float64 {
	if k == 0 {
		return 0
	}
	lo, hi := 0.0, 1.0
	for i := 0; i < 60; i++ {
		mid := (lo + hi) / 2
		if tailAtLeast(k, n, mid) < alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// tailAtLeast is P(X >= k) for X ~ Binomial(n, p).
func tailAtLeast(k, n int, p float64) float64 {
	sum := 0.0
	for i := k; i <= n; i++ {
		lg := lgamma(n+1) - lgamma(i+1) - lgamma(n-i+1)
		sum += math.Exp(lg + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return sum
}

func lgamma(x int) float64 {
	v, _ := math.Lgamma(float64(x))
	return v
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// bench holds the shared state of a run.
type bench struct {
	work   string
	opts   options
	log    io.Writer
	rng    *rand.Rand
	env    []string
	runner *run.Runner
	// runTimeout bounds one test run of the current project.
	runTimeout time.Duration
	// jsonl receives the -chanto outcomes (-jsonl), or nil.
	jsonl io.Writer
	// build names the chanto and harness builds of a -chanto run.
	build build
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, format+"\n", args...)
}

// goModules are the real Go modules the benchmark knows by a short name.
var goModules = map[string]struct{ path, version string }{
	"go:sh":          {"mvdan.cc/sh/v3", "v3.14.1"},
	"go:x-mod":       {"golang.org/x/mod", "v0.29.0"},
	"go:go-cmp":      {"github.com/google/go-cmp", "v0.7.0"},
	"go:go-internal": {"github.com/rogpeppe/go-internal", "v1.14.1"},
	"go:go-toml":     {"github.com/pelletier/go-toml/v2", "v2.2.4"},
	"go:hcl":         {"github.com/hashicorp/hcl/v2", "v2.25.0"},
	"go:expr":        {"github.com/expr-lang/expr", "v1.17.8"},
	"go:goldmark":    {"github.com/yuin/goldmark", "v1.8.7"},
	"go:gin":         {"github.com/gin-gonic/gin", "v1.12.0"},
	"go:toml":        {"github.com/BurntSushi/toml", "v1.6.0"},
	"go:chi":         {"github.com/go-chi/chi/v5", "v5.5.0"},
	"go:echo":        {"github.com/labstack/echo/v4", "v4.16.5"},
	// 15–60 packages each, with quick suites (issue 13's benchmark).
	"go:orb":          {"github.com/paulmach/orb", "v0.14.0"},
	"go:gotest.tools": {"gotest.tools/v3", "v3.5.2"},
	"go:go-testdeep":  {"github.com/maxatome/go-testdeep", "v1.16.0"},
	"go:zap":          {"go.uber.org/zap", "v1.28.0"},
	"go:smithy-go":    {"github.com/aws/smithy-go", "v1.28.9"},
	"go:graphql-go":   {"github.com/graph-gophers/graphql-go", "v1.11.1"},
}

var knownProjects = []string{"go:sh", "go:go-internal", "go:go-toml", "go:hcl", "go:expr", "go:x-mod", "go:go-cmp",
	"go:goldmark", "go:gin", "go:toml", "go:chi", "go:echo",
	"go:orb", "go:gotest.tools", "go:go-testdeep", "go:zap", "go:smithy-go", "go:graphql-go",
	"go:synthetic-300", "python", "python:networkx", "node"}

// defaultProjects leaves out x/mod and go-cmp: with 20 or fewer test files
// they always run in full, which tells nothing about selection.
const defaultProjects = "go:sh,go:go-internal,go:go-toml,go:hcl,go:expr,go:synthetic-300,python,python:networkx,node"

// project prepares one project and measures it.
func (b *bench) project(ctx context.Context, name string) (row, error) {
	var p *project
	var err error
	if mod, ok := goModules[name]; ok {
		p, err = b.goModule(ctx, mod.path, mod.version, strings.TrimPrefix(name, "go:"))
	} else {
		switch name {
		case "go:synthetic-300":
			p, err = b.syntheticGo(300)
		case "python":
			p, err = b.pythonProject(20)
		case "python:networkx":
			p, err = b.debianPython(ctx, "python3-networkx", "networkx")
		case "node":
			p, err = b.nodeProject(ctx, 20)
		default:
			mod, version, ok := strings.Cut(strings.TrimPrefix(name, "go:"), "@")
			if !strings.HasPrefix(name, "go:") || !ok {
				return row{}, fmt.Errorf("unknown project (want %s or go:MODULE@VERSION)", strings.Join(knownProjects, ", "))
			}
			p, err = b.goModule(ctx, mod, version, moduleName(mod))
		}
	}
	if err != nil {
		return row{}, err
	}
	p.key = name
	return b.measure(ctx, p)
}

// cmdResult is how a test run ended.
type cmdResult struct {
	failed bool
	secs   float64
	exit   int
	output []byte
}

func (b *bench) runTests(ctx context.Context, dir string, args []string) (cmdResult, error) {
	timeout := b.opts.timeout
	if b.runTimeout > 0 {
		timeout = b.runTimeout
	}
	res, err := b.runner.Run(ctx, run.Spec{Args: args, Dir: dir, Purpose: run.Check, Timeout: timeout})
	if err != nil {
		return cmdResult{}, err
	}
	return cmdResult{failed: res.ExitCode != 0 || res.TimedOut, secs: res.Duration.Seconds(),
		exit: res.ExitCode, output: res.Output}, nil
}

// measure times the graph, checks the suite passes, then tries mutations.
func (b *bench) measure(ctx context.Context, p *project) (row, error) {
	r := row{name: p.name, packages: p.packages, testFiles: p.testFiles, noGraph: p.js}
	b.runTimeout = 0
	cold, cached, err := b.graphTimes(ctx, p)
	if err != nil {
		return r, err
	}
	r.coldMs, r.cachedMs = cold, cached
	if p.graphOnly || b.opts.mutations == 0 && b.opts.perProject[p.key] == 0 {
		return r, nil
	}
	if p.goCode {
		skip, err := b.goSkipFailing(ctx, p)
		if err != nil {
			return r, err
		}
		if skip != "" {
			b.logf("%s: skipping tests that fail before any mutation: -skip %s", p.name, skip)
			p.check.Args = append([]string{"go", "test", "-count=1", "-skip", skip}, "./...")
			p.check.Command = shell.Join(p.check.Args)
			r.skipped = skip
		}
	}
	base, err := b.runTests(ctx, p.dir, p.check.Args)
	if err != nil {
		return r, err
	}
	if base.failed {
		return r, fmt.Errorf("the full suite fails before any mutation: %s", shell.Join(p.check.Args))
	}
	r.fullSecs = base.secs
	// A mutation that makes a loop endless must not cost the whole
	// -timeout: both runs count it as caught when they time out.
	b.runTimeout = min(b.opts.timeout, max(90*time.Second, time.Duration(5*base.secs)*time.Second))
	limit := b.opts.mutations
	if n, ok := b.opts.perProject[p.key]; ok {
		limit = n
	}
	sites := p.sites(b.rng)
	for _, m := range sites {
		if r.tried >= limit {
			break
		}
		tried, err := b.tryMutation(ctx, p, m, &r)
		if err != nil {
			return r, err
		}
		if tried {
			r.tried++
		}
	}
	return r, nil
}

// graphTimes measures Select with nothing cached, then again.
func (b *bench) graphTimes(ctx context.Context, p *project) (float64, float64, error) {
	in := selecttest.Input{Check: p.check, Changed: []string{p.anyFile}}
	selecttest.ResetGoCache()
	os.RemoveAll(filepath.Join(b.work, "home"))
	start := time.Now()
	if _, err := selecttest.Select(ctx, b.runner, in); err != nil {
		return 0, 0, err
	}
	cold := time.Since(start)
	start = time.Now()
	if _, err := selecttest.Select(ctx, b.runner, in); err != nil {
		return 0, 0, err
	}
	return float64(cold.Microseconds()) / 1000, float64(time.Since(start).Microseconds()) / 1000, nil
}

// tryMutation applies one mutation, runs the related selection, runs the
// full suite when the answer depends on it, and restores the file.
//
// A related run that fails settles the mutation as caught by both: the
// full suite contains the related tests and runs them the same way, so it
// fails too. Only a passing related run leaves the question open, and the
// full suite answers it: failing there is a miss. The first -ratio-sample
// mutations of a project (every one with -both) run both suites whatever
// happens, for the time ratio and as a check on that inference: a related
// failure the full suite does not repeat is reported as inconsistent.
func (b *bench) tryMutation(ctx context.Context, p *project, m mutation, r *row) (bool, error) {
	file := filepath.Join(p.dir, filepath.FromSlash(m.file))
	orig, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	mutated := m.apply(orig)
	if mutated == nil || string(mutated) == string(orig) {
		return false, nil
	}
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		return false, err
	}
	defer os.WriteFile(file, orig, 0o644)
	sample := b.opts.both || r.tried < b.opts.ratioSample
	sel, err := selecttest.Select(ctx, b.runner, selecttest.Input{Check: p.check, Changed: []string{m.file}})
	if err != nil {
		b.logf("%s: select: %v", m, err)
	}
	t, err := b.runSuites(ctx, p, sel, sample, r)
	if err != nil {
		return false, err
	}
	r.record(m, sel, t, sample)
	fullTxt := "inferred"
	if t.full != nil {
		fullTxt = fmt.Sprintf("%v %.1fs", t.full.failed, t.full.secs)
	}
	if t.compile > 0 {
		fullTxt += fmt.Sprintf(" | build first %.1fs", t.compile)
	}
	b.logf("%s: %s | related %v %.1fs | full %s | %s", p.name, m, t.related.failed, t.related.secs, fullTxt, sel.Reason)
	return true, nil
}

// trial is how one mutation's runs ended.
type trial struct {
	related cmdResult
	full    *cmdResult // nil when the related failure settled it
	compile float64    // Go build time shared by both suites (sample only)
}

// runSuites runs the related selection, and the full suite when the
// answer depends on it or the mutation is in the ratio sample.
func (b *bench) runSuites(ctx context.Context, p *project, sel selecttest.Selection, sample bool, r *row) (trial, error) {
	var t trial
	runFull := func() error {
		res, err := b.runTests(ctx, p.dir, p.check.Args)
		if err == nil {
			t.full = &res
			r.fullRuns++
		}
		return err
	}
	if sel.Full {
		if err := runFull(); err != nil {
			return t, err
		}
		t.related = *t.full
		return t, nil
	}
	r.narrowed++
	// Go compiles before it tests. Whichever suite runs first pays to
	// rebuild the mutated package and its dependents, and the other finds
	// them cached. For a fair ratio the sample builds them first (the same
	// set for both suites: what imports the mutated package) and adds that
	// time to both.
	if sample && p.goCode {
		build := append([]string{sel.Args[0], sel.Args[1], "-run", "^$"}, sel.Args[2:]...)
		res, err := b.runTests(ctx, p.dir, build)
		if err != nil {
			return t, err
		}
		t.compile = res.secs
	}
	related, err := b.runTests(ctx, p.dir, sel.Args)
	if err != nil {
		return t, err
	}
	t.related = related
	// A narrowed run that could not run falls back to the full suite, as
	// the gate does; it then costs both runs.
	if why, fb := selecttest.FallbackReason(p.check.Runner, related.exit, related.output); fb {
		b.logf("%s: %s: fallback: %s", p.name, sel.Command, why)
		if err := runFull(); err != nil {
			return t, err
		}
		t.related = cmdResult{failed: t.full.failed, secs: related.secs + t.full.secs}
	}
	if t.full == nil && (sample || !t.related.failed) {
		if err := runFull(); err != nil {
			return t, err
		}
	}
	return t, nil
}

// record counts one mutation's outcome.
func (r *row) record(m mutation, sel selecttest.Selection, t trial, sample bool) {
	caughtFull := t.related.failed // inferred when the full suite did not run
	if t.full != nil {
		caughtFull = t.full.failed
		if t.related.failed && !t.full.failed {
			r.inconsistent = append(r.inconsistent, m.String())
		}
		if sample && t.full.secs > 0 {
			r.ratios = append(r.ratios, (t.compile+t.related.secs)/(t.compile+t.full.secs))
		}
	}
	if caughtFull {
		r.caughtFull++
		if t.related.failed {
			r.caughtRelated++
		} else {
			r.misses = append(r.misses, m.String()+" (selected: "+sel.Command+")")
		}
	}
}

// moduleName names a module by its last path element that is not a major
// version suffix: hcl for github.com/hashicorp/hcl/v2.
func moduleName(mod string) string {
	base := path.Base(mod)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" && path.Dir(mod) != "." {
		return path.Base(path.Dir(mod))
	}
	return base
}
