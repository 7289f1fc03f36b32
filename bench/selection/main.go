// Command selection measures related-test selection on real Go modules and
// generated Python and Node projects: it injects single-point mutations
// into non-test source, runs both the related selection and the full suite
// for each, and prints per project the mutations tried, safety (the share
// of mutations the full suite catches that the related run also catches),
// the median time ratio related/full, and the graph-build time cold and
// cached.
//
//	go run ./bench/selection -mutations 8
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

func main() {
	os.Exit(benchMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	mutations int
	seed      int64
	projects  []string
	keep      bool
	timeout   time.Duration
}

func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("selection", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts options
	var list string
	fs.IntVar(&opts.mutations, "mutations", 8, "mutations per project")
	fs.Int64Var(&opts.seed, "seed", 1, "random seed for choosing mutations")
	fs.StringVar(&list, "projects", "go:sh,go:synthetic-300,python,node",
		"comma-separated projects: go:sh, go:go-internal, go:MODULE@VERSION, go:synthetic-300, python, node")
	fs.BoolVar(&opts.keep, "keep", false, "keep the work folder")
	fs.DurationVar(&opts.timeout, "timeout", 10*time.Minute, "timeout of one test run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts.projects = strings.Split(list, ",")
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
	var rows []row
	for _, name := range opts.projects {
		start := time.Now()
		r, err := b.project(ctx, strings.TrimSpace(name))
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			continue
		}
		fmt.Fprintf(stderr, "%s: done in %s\n", name, time.Since(start).Round(time.Second))
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
	skipped          string
	noGraph          bool
}

func printTable(w io.Writer, rows []row, opts options) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "project\tpkgs\ttest files\tmutations\tcaught by full\tcaught by related\tsafety\tnarrowed\tmedian time related/full\tfull suite\tgraph cold\tgraph cached")
	for _, r := range rows {
		safety := "n/a"
		if r.caughtFull > 0 {
			safety = fmt.Sprintf("%.1f%%", 100*float64(r.caughtRelated)/float64(r.caughtFull))
		}
		ratio := "n/a"
		if len(r.ratios) > 0 {
			ratio = fmt.Sprintf("%.2f", median(r.ratios))
		}
		full := "n/a"
		if r.fullSecs > 0 {
			full = fmt.Sprintf("%.1fs", r.fullSecs)
		}
		cold, cached := fmt.Sprintf("%.0fms", r.coldMs), fmt.Sprintf("%.1fms", r.cachedMs)
		if r.noGraph {
			cold, cached = "- (runner's own)", "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d/%d\t%s\t%s\t%s\t%s\n", r.name, r.packages, r.testFiles,
			r.tried, r.caughtFull, r.caughtRelated, safety, r.narrowed, r.tried, ratio, full, cold, cached)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nseed %d, %d mutations per project; safety = caught by related / caught by full.\n", opts.seed, opts.mutations)
	for _, r := range rows {
		if r.skipped != "" {
			fmt.Fprintf(w, "%s: tests failing before any mutation were skipped in both runs: -skip '%s'\n", r.name, r.skipped)
		}
		for _, m := range r.misses {
			fmt.Fprintf(w, "missed in %s: %s\n", r.name, m)
		}
	}
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
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, format+"\n", args...)
}

// project prepares one project and measures it.
func (b *bench) project(ctx context.Context, name string) (row, error) {
	var p *project
	var err error
	switch name {
	case "go:sh":
		p, err = b.goModule(ctx, "mvdan.cc/sh/v3", "v3.14.1", "sh")
	case "go:go-internal":
		p, err = b.goModule(ctx, "github.com/rogpeppe/go-internal", "v1.14.1", "go-internal")
	case "go:synthetic-300":
		p, err = b.syntheticGo(300)
	case "python":
		p, err = b.pythonProject(12)
	case "node":
		p, err = b.nodeProject(ctx, 10)
	default:
		mod, version, ok := strings.Cut(strings.TrimPrefix(name, "go:"), "@")
		if !strings.HasPrefix(name, "go:") || !ok {
			return row{}, fmt.Errorf("unknown project (want go:sh, go:go-internal, go:MODULE@VERSION, go:synthetic-300, python, node)")
		}
		p, err = b.goModule(ctx, mod, version, filepath.Base(mod))
	}
	if err != nil {
		return row{}, err
	}
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
	if p.graphOnly || b.opts.mutations == 0 {
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
			p.check.Command = selecttest.QuoteArgs(p.check.Args)
			r.skipped = skip
		}
	}
	base, err := b.runTests(ctx, p.dir, p.check.Args)
	if err != nil {
		return r, err
	}
	if base.failed {
		return r, fmt.Errorf("the full suite fails before any mutation: %s", selecttest.QuoteArgs(p.check.Args))
	}
	r.fullSecs = base.secs
	// A mutation that makes a loop endless must not cost the whole
	// -timeout: both runs count it as caught when they time out.
	b.runTimeout = min(b.opts.timeout, max(90*time.Second, time.Duration(5*base.secs)*time.Second))
	sites := p.sites(b.rng)
	for _, m := range sites {
		if r.tried >= b.opts.mutations {
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

// tryMutation applies one mutation, runs full and related, and restores.
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
	sel, err := selecttest.Select(ctx, b.runner, selecttest.Input{Check: p.check, Changed: []string{m.file}})
	if err != nil {
		b.logf("%s: select: %v", m, err)
	}
	full, err := b.runTests(ctx, p.dir, p.check.Args)
	if err != nil {
		return false, err
	}
	related := full
	if !sel.Full {
		r.narrowed++
		if related, err = b.runTests(ctx, p.dir, sel.Args); err != nil {
			return false, err
		}
		// A narrowed run that could not run falls back to the full suite,
		// as the gate does; it then costs both runs.
		if why, fb := selecttest.FallbackReason(p.check.Runner, related.exit, related.output); fb {
			b.logf("%s: fallback: %s", m, why)
			related = cmdResult{failed: full.failed, secs: related.secs + full.secs}
		}
	}
	if full.failed {
		r.caughtFull++
		if related.failed {
			r.caughtRelated++
		} else {
			r.misses = append(r.misses, m.String()+" (selected: "+sel.Command+")")
		}
	}
	if full.secs > 0 {
		r.ratios = append(r.ratios, related.secs/full.secs)
	}
	b.logf("%s: %s | full %v %.1fs | related %v %.1fs | %s", p.name, m, full.failed, full.secs, related.failed, related.secs, sel.Reason)
	return true, nil
}
