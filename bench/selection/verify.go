package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

// The -chanto mode judges the whole gate, not only the selection: for each
// mutation it runs `chanto verify --json` (vet and tests narrowed, the
// baseline when something fails) and then the project's full checks
// (`go vet ./...` and `go test ./...`), both with GOFLAGS=-count=1 after a
// build of every test binary, chanto first (so the full run is the one that
// may find vet's work cached). A fault is caught by the full suite when it
// gives a vet finding or a failing test that HEAD did not have; it is caught
// by chanto only when chanto names a new failure (an exit 3 that repeats an
// old failure is no catch). Projects stay red at HEAD as they come: that is
// the case the gate must handle.

// verifyRow is one project's result in -chanto mode.
type verifyRow struct {
	name               string
	packages           int
	redVet, redTests   int // findings / failing tests at HEAD
	tried              int
	caughtFull, caught int
	falseNew           int
	misses             []string
	passRatios         []float64
	failRatios         []float64
	passChanto         float64
	passFull           float64
	failChanto         float64
	failFull           float64
	oldSeen            int // mutations whose report carried an already-failing check
}

// goFindings reads vet's findings and go test's failures as comparable
// lines: "vet a/b.go: msg", "test pkg TestX", "build pkg".
var (
	vetLine   = regexp.MustCompile(`^(?:vet: )?(\S+\.go):\d+(?::\d+)?: (.+)$`)
	failLine  = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	pkgFail   = regexp.MustCompile(`^FAIL\s+(\S+)(?:\s+\[(build failed|setup failed)\])?`)
	panicLine = regexp.MustCompile(`^panic: `)
)

func vetFindings(out []byte) map[string]bool {
	set := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if m := vetLine.FindStringSubmatch(sc.Text()); m != nil {
			set["vet "+strings.TrimPrefix(m[1], "./")+": "+m[2]] = true
		}
	}
	return set
}

func testFailures(out []byte) map[string]bool {
	set := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := failLine.FindStringSubmatch(line); m != nil {
			set["test "+m[1]] = true
		} else if m := pkgFail.FindStringSubmatch(line); m != nil {
			set["pkg "+m[1]+" "+m[2]] = true
		} else if panicLine.MatchString(line) {
			set["panic"] = true
		}
	}
	return set
}

// newKeys lists what now has that before had not, sorted.
func newKeys(now, before map[string]bool) []string {
	var out []string
	for k := range now {
		if !before[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// measureVerify runs the -chanto mode on one Go project.
func (b *bench) measureVerify(ctx context.Context, p *project) (verifyRow, error) {
	r := verifyRow{name: p.name, packages: p.packages}
	vet, err := b.timed(ctx, p.dir, "go", "vet", "./...")
	if err != nil {
		return r, err
	}
	test, err := b.timed(ctx, p.dir, "go", "test", "./...")
	if err != nil {
		return r, err
	}
	headVet, headTests := vetFindings(vet.output), testFailures(test.output)
	r.redVet, r.redTests = len(headVet), len(headTests)
	b.logf("%s: at HEAD go vet has %d findings, go test %d failures (%.1fs + %.1fs)", p.name, r.redVet, r.redTests, vet.secs, test.secs)
	b.runTimeout = min(b.opts.timeout, max(90*time.Second, time.Duration(5*(vet.secs+test.secs))*time.Second))
	limit := b.opts.mutations
	if n, ok := b.opts.perProject[p.key]; ok {
		limit = n
	}
	for _, m := range p.sites(b.rng) {
		if r.tried >= limit {
			break
		}
		tried, err := b.verifyMutation(ctx, p, m, headVet, headTests, &r)
		if err != nil {
			return r, err
		}
		if tried {
			r.tried++
		}
	}
	return r, nil
}

// chantoReport is the part of chanto verify --json the benchmark reads.
type chantoReport struct {
	Verdict     string `json:"verdict"`
	Evidence    string `json:"evidence"`
	NewFailures []struct {
		ID string `json:"id"`
	} `json:"new_failures"`
	Checks []struct {
		Command        string            `json:"command"`
		AlreadyFailing []json.RawMessage `json:"already_failing"`
	} `json:"checks"`
}

func (b *bench) verifyMutation(ctx context.Context, p *project, m mutation, headVet, headTests map[string]bool, r *verifyRow) (bool, error) {
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
	// Every test binary built before either side is timed.
	if _, err := b.timed(ctx, p.dir, "go", "test", "-run", "^$", "./..."); err != nil {
		return false, err
	}
	cres, err := b.timed(ctx, p.dir, b.opts.chanto, "verify", "--json", "--sandbox", "off")
	if err != nil {
		return false, err
	}
	var rep chantoReport
	if err := json.Unmarshal(cres.output, &rep); err != nil {
		// A run that gave no report (killed at the time limit, say) is
		// counted as no catch, and said.
		rep.Evidence = fmt.Sprintf("no report (exit %d, timed out %v): %s", cres.exit, cres.timedOut, tail(cres.output))
	}
	vet, err := b.timed(ctx, p.dir, "go", "vet", "./...")
	if err != nil {
		return false, err
	}
	test, err := b.timed(ctx, p.dir, "go", "test", "./...")
	if err != nil {
		return false, err
	}
	newFull := append(newKeys(vetFindings(vet.output), headVet), newKeys(testFailures(test.output), headTests)...)
	b.judge(r, m, rep, cres.secs, vet.secs+test.secs, newFull, test.timedOut)
	return true, nil
}

// timedResult is one timed command.
type timedResult struct {
	secs     float64
	exit     int
	timedOut bool
	output   []byte
}

// timed runs a command with GOFLAGS=-count=1 (no cached test results on
// either side); a non-zero exit is a result, not an error.
func (b *bench) timed(ctx context.Context, dir string, args ...string) (timedResult, error) {
	timeout := b.opts.timeout
	if b.runTimeout > 0 {
		timeout = b.runTimeout
	}
	var out bytes.Buffer
	res, err := b.runner.Run(ctx, run.Spec{Args: args, Dir: dir, Purpose: run.Check, Timeout: timeout,
		Stdout: &out, Env: []string{"GOFLAGS=-count=1 -modcacherw"}, OutputCap: 64 << 20})
	if err != nil {
		return timedResult{}, err
	}
	o := out.Bytes()
	if len(o) == 0 {
		o = res.Output
	}
	return timedResult{secs: res.Duration.Seconds(), exit: res.ExitCode, timedOut: res.TimedOut, output: o}, nil
}

func printVerifyTable(w io.Writer, rows []verifyRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "project\tpkgs\tred at HEAD (vet/tests)\tmutations\tcaught by full\tnew failure named by chanto\tsafety\tpassing: median / Σ chanto/full (n)\tfailing: median / Σ (n)\told failure in report\tfalse new")
	var tf, tc, tried int
	for _, r := range rows {
		tf += r.caughtFull
		tc += r.caught
		tried += r.tried
		fmt.Fprintf(tw, "%s\t%d\t%d / %d\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%d\n", r.name, r.packages, r.redVet, r.redTests, r.tried,
			r.caughtFull, r.caught, safety(r.caught, r.caughtFull),
			ratioCell(r.passRatios, r.passChanto, r.passFull), ratioCell(r.failRatios, r.failChanto, r.failFull), r.oldSeen, r.falseNew)
	}
	fmt.Fprintf(tw, "all\t\t\t%d\t%d\t%d\t%s\t\t\t\t\n", tried, tf, tc, safety(tc, tf))
	tw.Flush()
	if tf > 0 && tc == tf {
		fmt.Fprintf(w, "safety lower bound (one-sided 95%% Clopper-Pearson): %.2f%%\n", 100*lowerBound(tc, tf, 0.05))
	}
	for _, r := range rows {
		for _, m := range r.misses {
			fmt.Fprintf(w, "miss: %s: %s\n", r.name, m)
		}
	}
}

func ratioCell(rs []float64, chanto, full float64) string {
	if len(rs) == 0 {
		return "–"
	}
	s := append([]float64(nil), rs...)
	sort.Float64s(s)
	return fmt.Sprintf("%.2f / %.2f (%d)", median(s), chanto/full, len(rs))
}

// verifyMain is the -chanto mode over the Go projects asked for.
func (b *bench) verifyMain(ctx context.Context, stdout, stderr io.Writer) int {
	if abs, err := filepath.Abs(b.opts.chanto); err == nil {
		b.opts.chanto = abs
	}
	var rows []verifyRow
	for _, name := range b.opts.projects {
		start := time.Now()
		measure, prepare := b.measureVerify, b.goProject
		if strings.HasPrefix(name, "py:") {
			measure, prepare = b.measurePyVerify, b.pyProject
		}
		p, err := prepare(ctx, name)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			continue
		}
		p.key = name
		r, err := measure(ctx, p)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			continue
		}
		fmt.Fprintf(stderr, "%s: done in %s\n", name, time.Since(start).Round(time.Second))
		printVerifyTable(stderr, []verifyRow{r})
		rows = append(rows, r)
	}
	printVerifyTable(stdout, rows)
	return 0
}

// goProject prepares a real Go module by short name or go:MODULE@VERSION.
func (b *bench) goProject(ctx context.Context, name string) (*project, error) {
	if mod, ok := goModules[name]; ok {
		return b.goModule(ctx, mod.path, mod.version, strings.TrimPrefix(name, "go:"))
	}
	mod, version, ok := strings.Cut(strings.TrimPrefix(name, "go:"), "@")
	if !strings.HasPrefix(name, "go:") || !ok {
		return nil, fmt.Errorf("-chanto takes Go modules (go:NAME or go:MODULE@VERSION) and Python work trees (py:DIR)")
	}
	return b.goModule(ctx, mod, version, filepath.Base(mod))
}
