package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
)

// The -chanto mode judges the whole gate, not only the selection: for each
// mutation it runs `chanto verify --json --sandbox off` (checks narrowed,
// the baseline when something fails) and the project's full checks, chanto
// first. A fault is caught by the full suite when the full checks show a
// failure HEAD did not have (or time out); it is caught by chanto only when
// chanto names a new failure (an exit 3 that repeats an old failure is no
// catch) or its check times out. Projects stay red at HEAD as they come:
// that is the case the gate must handle.
//
// The first -ratio-sample mutations of a project (all with -both) run the
// full checks whatever chanto said, for the time ratios and as a check on
// the inference below; after them the full checks run only when chanto
// named no new failure. A new failure chanto names is a failure of the
// project's own tests, which the full suite contains, so it would fail
// there too; the sample counts where that did not hold ("false new").

// suite is what the -chanto mode needs of one kind of project.
type suite struct {
	// full runs the project's whole checks and returns their failures as
	// comparable keys. timing is false when the run only judges (outside
	// the ratio sample): Go then replays the cached results of packages
	// the mutation cannot reach, which gives the same verdict sooner.
	full func(ctx context.Context, p *project, timing bool) (fullRun, error)
	// prepare runs after the mutation is written and before either side
	// is timed, in the ratio sample only (Go builds the test binaries).
	prepare func(ctx context.Context, p *project) error
	// cover runs the full suite once under coverage, for -covered.
	cover func(ctx context.Context, p *project) (coverage, error)
	// judge, when set, stands for full outside the ratio sample: it may
	// run only the part of the suite whose result the mutation can change.
	judge func(ctx context.Context, p *project, m mutation) (fullRun, error)
}

// fullRun is one run of a project's full checks.
type fullRun struct {
	failures map[string]bool
	secs     float64
	timedOut bool
	// scope says what part of the suite ran when not all of it.
	scope string
	// broken, when set, says why the run ran no test at all.
	broken string
}

// verifyRow is one project's result in -chanto mode.
type verifyRow struct {
	name               string
	packages           int
	redVet, redTests   int // findings / failing tests at HEAD
	tried              int
	caughtFull, caught int
	inferred           int // caught by chanto outside the sample: full suite not run
	timeoutCatches     int // caught because chanto's check timed out
	falseNew           int
	narrowed           int // mutations where every check chanto ran was narrowed
	misses             []string
	passRatios         []float64
	failRatios         []float64
	passChanto         float64
	passFull           float64
	failChanto         float64
	failFull           float64
	oldSeen            int // mutations whose report carried an already-failing check
	sites, uncovered   int // mutation sites, and those -covered left out
	builds             map[build]int
	loadMin, loadMax   float64
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
	sc := bufio.NewScanner(bytes.NewReader(goTestText(out)))
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

// goTestText turns go test -json output back into the text go test
// prints (each event's Output in order); lines that are not events, such
// as a build error on a toolchain without build-output events, stay.
func goTestText(out []byte) []byte {
	var text bytes.Buffer
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		var ev struct{ Action, Output string }
		if json.Unmarshal(line, &ev) == nil && ev.Action != "" {
			text.WriteString(ev.Output)
		} else {
			text.Write(line)
		}
	}
	return text.Bytes()
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

// goSuite: go vet ./... and go test -json ./... in full. In the ratio
// sample every test binary is built, and go vet ./... run, before either
// side is timed, so neither pays for the other's compile or analysis
// (neither is forced: packages the mutation cannot reach keep their cached
// results), and both sides' tests run with -count=1. Go caches vet's
// output per package, so without that vet run the side timed first (chanto)
// analysed the changed packages and their importers cold and the full
// side replayed them: the same work a user's full vet would redo, charged
// to chanto alone. Outside the sample neither side forces
// a run: go test -json is the command chanto runs, so the full suite
// replays the result of a package chanto just ran whole with the same
// test binary, and of every package the mutation cannot reach, and runs
// the rest (go's test cache keys on the binary, the flags, the files and
// the environment the tests read: a replay is the result a run would give).
var goSuite = suite{
	full: func(ctx context.Context, p *project, timing bool) (fullRun, error) {
		b := p.bench
		run := b.cmdResult
		if timing {
			run = b.timed
		}
		vet, err := run(ctx, p, nil, "go", "vet", "./...")
		if err != nil {
			return fullRun{}, err
		}
		test, err := run(ctx, p, nil, "go", "test", "-json", "./...")
		if err != nil {
			return fullRun{}, err
		}
		failures := vetFindings(vet.output)
		for k := range testFailures(test.output) {
			failures[k] = true
		}
		return fullRun{failures: failures, secs: vet.secs + test.secs, timedOut: vet.timedOut || test.timedOut}, nil
	},
	prepare: func(ctx context.Context, p *project) error {
		if _, err := p.bench.cmdResult(ctx, p, nil, "go", "test", "-run", "^$", "./..."); err != nil {
			return err
		}
		_, err := p.bench.cmdResult(ctx, p, nil, "go", "vet", "./...")
		return err
	},
	cover: goCover,
}

// measureVerify runs the -chanto mode on one project.
func (b *bench) measureVerify(ctx context.Context, p *project, s suite, start time.Time) (verifyRow, error) {
	r := verifyRow{name: p.name, packages: p.packages}
	head, err := s.full(ctx, p, true)
	if err != nil {
		return r, err
	}
	if head.broken != "" {
		return r, fmt.Errorf("the full suite runs no test at HEAD: %s", head.broken)
	}
	for k := range head.failures {
		if strings.HasPrefix(k, "vet ") {
			r.redVet++
		} else {
			r.redTests++
		}
	}
	b.logf("%s: at HEAD %d vet findings, %d failing tests (%.1fs): %s", p.name, r.redVet, r.redTests, head.secs,
		strings.Join(newKeys(head.failures, nil), ", "))
	if p.headStatus, err = treeStatus(ctx, p.dir); err != nil {
		return r, err
	}
	sites := p.sites(b.rng)
	r.sites = len(sites)
	if b.opts.covered && s.cover != nil {
		cov, err := s.cover(ctx, p)
		if err != nil {
			return r, fmt.Errorf("coverage at HEAD: %v", err)
		}
		sites, r.uncovered = coveredSites(p, cov, sites)
		b.logf("%s: -covered: %d of %d mutation sites are on code the full suite never runs at HEAD, left out", p.name, r.uncovered, r.sites)
	}
	if b.jsonl != nil {
		line, _ := json.Marshal(outcome{Project: p.name, Head: true, Packages: r.packages, RedVet: r.redVet, RedTests: r.redTests,
			Sites: r.sites, Uncovered: r.uncovered, Build: b.build, Load: loadAverage()})
		b.jsonl.Write(append(line, '\n'))
	}
	b.runTimeout = min(b.opts.timeout, max(90*time.Second, time.Duration(5*head.secs)*time.Second))
	if err := b.writeChantoConfig(); err != nil {
		return r, err
	}
	limit := b.opts.mutations
	if n, ok := b.opts.perProject[p.key]; ok {
		limit = n
	}
	for _, m := range sites {
		if r.tried >= limit || ctx.Err() != nil {
			break
		}
		if b.opts.budget > 0 && time.Since(start) > b.opts.budget {
			b.logf("%s: -budget %s spent after %d mutations", p.name, b.opts.budget, r.tried)
			break
		}
		tried, err := b.verifyMutation(ctx, p, s, m, head.failures, &r)
		if err != nil {
			return r, err
		}
		if tried {
			r.tried++
		}
	}
	return r, nil
}

// writeChantoConfig gives chanto's checks a time limit below the
// benchmark's own, so a mutation that makes a test hang ends in chanto's
// "timed out" verdict rather than in a killed chanto with no report.
func (b *bench) writeChantoConfig() error {
	home := filepath.Join(b.work, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	secs := max(30, int(b.runTimeout.Seconds()*0.4))
	return os.WriteFile(filepath.Join(home, "config.toml"), []byte(fmt.Sprintf("[guardrails]\ntimeout_secs = %d\n", secs)), 0o644)
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
		Scope          string            `json:"scope"`
		TimedOut       bool              `json:"timed_out"`
		AlreadyFailing []json.RawMessage `json:"already_failing"`
	} `json:"checks"`
}

// mutate writes m into its file; restore puts the original back. ok is
// false when the mutation does not apply or changes nothing.
func (p *project) mutate(m mutation) (restore func(), ok bool, err error) {
	file := filepath.Join(p.dir, filepath.FromSlash(m.file))
	orig, err := os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	mutated := m.apply(orig)
	if mutated == nil || string(mutated) == string(orig) {
		return nil, false, nil
	}
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		return nil, false, err
	}
	return func() { os.WriteFile(file, orig, 0o644) }, true, nil
}

// runChanto runs chanto verify on the project and reads its report; a run
// that gave none (killed at the time limit, say) says so in the evidence.
//
// In the ratio sample chanto's go test runs with -count=1, as the full
// suite's does; outside it chanto runs as a user would, go's test cache on.
func (b *bench) runChanto(ctx context.Context, p *project, sample bool) (chantoReport, float64, error) {
	args := append([]string{b.opts.chanto, "verify", "--json", "--sandbox", "off"}, p.chantoArgs...)
	var env []string
	if sample {
		env = []string{"GOFLAGS=-count=1 -modcacherw"} // as timed
	}
	res, err := b.cmdResultWithin(ctx, p, b.chantoLimit(), env, args...)
	if err != nil {
		return chantoReport{}, 0, err
	}
	var rep chantoReport
	if err := json.Unmarshal(res.output, &rep); err != nil {
		rep.Evidence = fmt.Sprintf("no report (exit %d, timed out %v): %s", res.exit, res.timedOut, tail(res.output))
	}
	return rep, res.secs, nil
}

func (b *bench) verifyMutation(ctx context.Context, p *project, s suite, m mutation, head map[string]bool, r *verifyRow) (bool, error) {
	restore, ok, err := p.mutate(m)
	if !ok || err != nil {
		return false, err
	}
	defer restore()
	sample := b.opts.both || r.tried < b.opts.ratioSample
	if sample && s.prepare != nil {
		if err := s.prepare(ctx, p); err != nil {
			return false, err
		}
	}
	rep, chantoSecs, err := b.runChanto(ctx, p, sample)
	if err != nil {
		return false, err
	}
	o := outcome{Project: p.name, Mutation: m.String(), Evidence: rep.Evidence, ChantoSecs: chantoSecs,
		ChantoNew: len(rep.NewFailures) > 0, Sample: sample, Narrowed: len(rep.Checks) > 0,
		Build: b.build, Load: loadAverage()}
	for _, c := range rep.Checks {
		o.ChantoTimedOut = o.ChantoTimedOut || c.TimedOut
		o.OldFailure = o.OldFailure || len(c.AlreadyFailing) > 0
		o.Narrowed = o.Narrowed && c.Scope != "" && c.Scope != "full"
	}
	if o.Sample || !o.caught() {
		run := s.full
		if !o.Sample && s.judge != nil {
			run = func(ctx context.Context, p *project, _ bool) (fullRun, error) { return s.judge(ctx, p, m) }
		}
		full, err := run(ctx, p, o.Sample)
		if err != nil {
			return false, err
		}
		o.FullRan, o.FullSecs, o.FullTimedOut = true, full.secs, full.timedOut
		o.FullNew = newKeys(full.failures, head)
		o.FullScope = full.scope
		if !o.caught() && len(o.FullNew) > 0 && !o.FullTimedOut {
			// A miss only if it repeats: the full suite has flaky tests
			// too (gotest.tools' TestWaitOn_WithCompare polls with a 10ms
			// timeout and failed under load for a mutation in a package
			// it does not import).
			again, err := run(ctx, p, false)
			if err != nil {
				return false, err
			}
			repeated := newKeys(again.failures, head)
			var keep []string
			for _, k := range o.FullNew {
				if slices.Contains(repeated, k) {
					keep = append(keep, k)
				} else {
					o.FullFlaky = append(o.FullFlaky, k)
				}
			}
			o.FullNew = keep
		}
	}
	restore()
	if o.Repaired, err = repairTree(ctx, p); err != nil {
		return false, err
	}
	r.add(o)
	b.logOutcome(o)
	return true, nil
}

// treeStatus is git status of the work tree, one entry per line.
func treeStatus(ctx context.Context, dir string) (map[string]bool, error) {
	cmd := exec.CommandContext(ctx, "git", "status", "--porcelain=v1", "-z", "--untracked-files=all")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git status in %s: %w", dir, err)
	}
	set := map[string]bool{}
	for _, e := range strings.Split(string(out), "\x00") {
		if e != "" {
			set[e] = true
		}
	}
	return set, nil
}

// repairTree puts back what a mutation's runs changed beyond the mutated
// file, which is already restored: a mutant can write into the tree (a
// gotest.tools mutant of its source-updating code truncated
// assert/assert_ext_test.go, and every later mutation was judged on a
// tree that did not build). Tracked files come back from HEAD, new
// files are removed; the paths are returned for the row.
func repairTree(ctx context.Context, p *project) ([]string, error) {
	now, err := treeStatus(ctx, p.dir)
	if err != nil {
		return nil, err
	}
	var repaired []string
	for e := range now {
		if p.headStatus[e] || len(e) < 4 || e[2] != ' ' {
			continue
		}
		code, file := e[:2], e[3:]
		if code == "??" {
			err = os.RemoveAll(filepath.Join(p.dir, filepath.FromSlash(file)))
		} else {
			cmd := exec.CommandContext(ctx, "git", "checkout", "HEAD", "--", file)
			cmd.Dir = p.dir
			if out, cerr := cmd.CombinedOutput(); cerr != nil {
				err = fmt.Errorf("git checkout HEAD -- %s: %v: %s", file, cerr, out)
			}
		}
		if err != nil {
			return nil, err
		}
		repaired = append(repaired, file)
	}
	sort.Strings(repaired)
	if len(repaired) > 0 {
		p.bench.logf("%s: the mutant's runs changed %s; put back", p.name, strings.Join(repaired, ", "))
	}
	return repaired, nil
}

// outcome is one mutation's result, as -jsonl writes it; a project's
// first line (Head) carries its size and what was red at HEAD instead.
type outcome struct {
	Project  string `json:"project"`
	Head     bool   `json:"head,omitempty"`
	Packages int    `json:"packages,omitempty"`
	RedVet   int    `json:"red_vet,omitempty"`
	RedTests int    `json:"red_tests,omitempty"`
	// Sites is how many mutations the project offered; Uncovered how many
	// of them -covered left out.
	Sites          int      `json:"sites,omitempty"`
	Uncovered      int      `json:"uncovered,omitempty"`
	Mutation       string   `json:"mutation"`
	Sample         bool     `json:"sample"`
	ChantoNew      bool     `json:"chanto_new"`
	ChantoTimedOut bool     `json:"chanto_timed_out,omitempty"`
	OldFailure     bool     `json:"old_failure,omitempty"`
	Narrowed       bool     `json:"narrowed"`
	ChantoSecs     float64  `json:"chanto_secs"`
	Evidence       string   `json:"evidence"`
	FullRan        bool     `json:"full_ran"`
	FullSecs       float64  `json:"full_secs,omitempty"`
	FullTimedOut   bool     `json:"full_timed_out,omitempty"`
	FullNew        []string `json:"full_new,omitempty"`
	FullScope      string   `json:"full_scope,omitempty"`
	// FullFlaky are new failures of the full checks that did not repeat
	// when they ran again (only checked where chanto caught nothing).
	FullFlaky []string `json:"full_flaky,omitempty"`
	// Repaired are files the mutant's runs changed in the tree besides
	// the mutated one, put back before the next mutation.
	Repaired []string `json:"repaired,omitempty"`
	// Build names the chanto and the harness the row was judged with.
	Build build `json:"build"`
	// Load is the one-minute load average when chanto's run ended.
	Load float64 `json:"load,omitempty"`
}

// caught: chanto named a new failure, or its check timed out (a hang is
// not an old failure: the gate does not say done).
func (o outcome) caught() bool { return o.ChantoNew || o.ChantoTimedOut }

// fullCaught: the full checks showed a new failure or timed out; when they
// did not run, chanto's catch stands for theirs (see the package comment).
func (o outcome) fullCaught() bool {
	if !o.FullRan {
		return o.caught()
	}
	return len(o.FullNew) > 0 || o.FullTimedOut
}

// add records one mutation's outcome in r.
func (r *verifyRow) add(o outcome) {
	r.note(o)
	if o.OldFailure {
		r.oldSeen++
	}
	if o.Narrowed {
		r.narrowed++
	}
	timed := o.Sample && o.FullRan && o.FullSecs > 0
	switch {
	case o.fullCaught():
		r.caughtFull++
		if !o.FullRan {
			r.inferred++
		}
		if timed {
			r.failRatios = append(r.failRatios, o.ChantoSecs/o.FullSecs)
			r.failChanto += o.ChantoSecs
			r.failFull += o.FullSecs
		}
		if o.caught() {
			r.caught++
			if !o.ChantoNew {
				r.timeoutCatches++
			}
		} else {
			r.misses = append(r.misses, fmt.Sprintf("%s: full suite: %s (timed out %v); chanto: %s", o.Mutation,
				strings.Join(o.FullNew, ", "), o.FullTimedOut, o.Evidence))
		}
	default:
		if timed {
			r.passRatios = append(r.passRatios, o.ChantoSecs/o.FullSecs)
			r.passChanto += o.ChantoSecs
			r.passFull += o.FullSecs
		}
		if o.caught() {
			r.falseNew++
		}
	}
}

// note records the build and the load of a row (a mutation or HEAD).
func (r *verifyRow) note(o outcome) {
	if r.builds == nil {
		r.builds = map[build]int{}
	}
	if !o.Head {
		r.builds[o.Build]++
	}
	if o.Load > 0 {
		if r.loadMin == 0 || o.Load < r.loadMin {
			r.loadMin = o.Load
		}
		r.loadMax = max(r.loadMax, o.Load)
	}
}

// buildCell lists a row's chanto builds with their mutation counts, and
// the harness builds when they are not all one.
func (r verifyRow) buildCell() string {
	var parts []string
	harness := map[string]bool{}
	for bd, n := range r.builds {
		parts = append(parts, fmt.Sprintf("%s (%d)", orUnknown(bd.Chanto), n))
		harness[orUnknown(bd.Harness)] = true
	}
	sort.Strings(parts)
	var hs []string
	for h := range harness {
		hs = append(hs, h)
	}
	sort.Strings(hs)
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ") + "; harness " + strings.Join(hs, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func (b *bench) logOutcome(o outcome) {
	full := "not run (chanto's catch stands)"
	if o.FullRan {
		full = fmt.Sprintf("%s %.1fs (%.2f)", map[bool]string{true: "failed", false: "passed"}[o.fullCaught()], o.FullSecs, o.ChantoSecs/max(o.FullSecs, 1e-9))
	}
	switch {
	case o.fullCaught() && !o.caught():
		b.logf("%s: MISS: full suite: %s; chanto: %s", o.Mutation, strings.Join(o.FullNew, ", "), o.Evidence)
	case o.FullRan && !o.fullCaught() && o.caught():
		b.logf("%s: chanto named a new failure the full suite did not show: %s", o.Mutation, o.Evidence)
	case len(o.FullFlaky) > 0:
		b.logf("%s: the full suite failed %s once, not when run again: flaky, no catch to make", o.Mutation, strings.Join(o.FullFlaky, ", "))
	}
	b.logf("%s: chanto %.1fs, full %s: %s", o.Mutation, o.ChantoSecs, full, o.Evidence)
	if b.jsonl != nil {
		line, _ := json.Marshal(o)
		b.jsonl.Write(append(line, '\n'))
	}
}

// timedResult is one timed command.
type timedResult struct {
	secs     float64
	exit     int
	timedOut bool
	output   []byte
}

// timed runs a command in the project with GOFLAGS=-count=1 (no cached
// test results on either side); a non-zero exit is a result, not an error.
func (b *bench) timed(ctx context.Context, p *project, env []string, args ...string) (timedResult, error) {
	return b.cmdResult(ctx, p, append([]string{"GOFLAGS=-count=1 -modcacherw"}, env...), args...)
}

func (b *bench) cmdResult(ctx context.Context, p *project, env []string, args ...string) (timedResult, error) {
	return b.cmdResultWithin(ctx, p, b.limit(), env, args...)
}

// limit is the time one run of a suite gets.
func (b *bench) limit() time.Duration {
	if b.runTimeout > 0 {
		return b.runTimeout
	}
	return b.opts.timeout
}

// chantoLimit is the time one chanto verify gets: its check and its
// baseline may each take the check limit writeChantoConfig sets (0.4 of
// a suite's), and detection, putback and its own start come on top. A
// kill at the suite's limit left python-semver's src/semver/version.py:4478
// without a report at load 39 (160 s), counted as a miss, though the
// same build named the failure in 6 s on a quiet machine.
func (b *bench) chantoLimit() time.Duration {
	return 3 * b.limit()
}

func (b *bench) cmdResultWithin(ctx context.Context, p *project, timeout time.Duration, env []string, args ...string) (timedResult, error) {
	var out bytes.Buffer
	res, err := b.runner.Run(ctx, run.Spec{Args: args, Dir: p.dir, Purpose: run.Check, Timeout: timeout,
		Stdout: &out, Env: append(env, p.env...), OutputCap: 64 << 20})
	if err != nil {
		return timedResult{}, err
	}
	o := out.Bytes()
	if len(o) == 0 {
		o = res.Output
	}
	return timedResult{secs: res.Duration.Seconds(), exit: res.ExitCode, timedOut: res.TimedOut, output: o}, nil
}

func printVerifyTable(w io.Writer, rows []verifyRow, markdown bool) {
	t := newTable(w, markdown)
	t.row("project", "pkgs", "red at HEAD (vet/tests)", "mutations", "narrowed", "caught by full (inferred)", "new failure named by chanto",
		"safety", "95% lower bound", "passing: median / Σ chanto/full (n)", "failing: median / Σ (n)", "old failure in report", "false new",
		"load", "chanto build (mutations)")
	var all verifyRow
	for _, r := range rows {
		all.caughtFull += r.caughtFull
		all.caught += r.caught
		all.tried += r.tried
		all.inferred += r.inferred
		all.narrowed += r.narrowed
		all.oldSeen += r.oldSeen
		all.falseNew += r.falseNew
		t.row(r.name, strconv.Itoa(r.packages), fmt.Sprintf("%d / %d", r.redVet, r.redTests), strconv.Itoa(r.tried), strconv.Itoa(r.narrowed),
			fmt.Sprintf("%d (%d)", r.caughtFull, r.inferred), strconv.Itoa(r.caught), safety(r.caught, r.caughtFull), bound(r.caught, r.caughtFull),
			ratioCell(r.passRatios, r.passChanto, r.passFull), ratioCell(r.failRatios, r.failChanto, r.failFull), strconv.Itoa(r.oldSeen),
			strconv.Itoa(r.falseNew), fmt.Sprintf("%.0f–%.0f", r.loadMin, r.loadMax), r.buildCell())
	}
	t.row("all", "", "", strconv.Itoa(all.tried), strconv.Itoa(all.narrowed), fmt.Sprintf("%d (%d)", all.caughtFull, all.inferred),
		strconv.Itoa(all.caught), safety(all.caught, all.caughtFull), bound(all.caught, all.caughtFull), "", "", strconv.Itoa(all.oldSeen),
		strconv.Itoa(all.falseNew), "", "")
	t.flush()
	fmt.Fprintln(w, "\nlower bound: one-sided 95% Clopper-Pearson over the faults the full suite caught.")
	for _, r := range rows {
		if r.uncovered > 0 {
			fmt.Fprintf(w, "%s: %d of %d mutation sites left out (-covered: code the full suite never runs at HEAD)\n", r.name, r.uncovered, r.sites)
		}
	}
	for _, r := range rows {
		for _, m := range r.misses {
			fmt.Fprintf(w, "miss: %s: %s\n", r.name, m)
		}
	}
}

func bound(k, n int) string {
	if n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f%%", 100*lowerBound(k, n, 0.05))
}

func ratioCell(rs []float64, chanto, full float64) string {
	if len(rs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f / %.2f (%d)", median(rs), chanto/full, len(rs))
}

// verifyMain is the -chanto mode over the projects asked for.
func (b *bench) verifyMain(ctx context.Context, stdout, stderr io.Writer) int {
	if abs, err := filepath.Abs(b.opts.chanto); err == nil {
		b.opts.chanto = abs
	}
	var rows []verifyRow
	for _, name := range b.opts.projects {
		start := time.Now()
		prepare, s := b.goProject, goSuite
		switch {
		case strings.HasPrefix(name, "py:"):
			prepare, s = b.pyProject, b.pySuite()
		case strings.HasPrefix(name, "js:"):
			prepare, s = b.jsProject, jsSuite
		}
		b.runTimeout = 0
		p, err := prepare(ctx, name)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			continue
		}
		p.key, p.bench = name, b
		r, err := b.measureVerify(ctx, p, s, start)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			continue
		}
		fmt.Fprintf(stderr, "%s: done in %s\n", name, time.Since(start).Round(time.Second))
		printVerifyTable(stderr, []verifyRow{r}, false)
		rows = append(rows, r)
	}
	printVerifyTable(stdout, rows, false)
	return 0
}

// goProject prepares a real Go module by short name or go:MODULE@VERSION.
func (b *bench) goProject(ctx context.Context, name string) (*project, error) {
	if mod, ok := goModules[name]; ok {
		return b.goModule(ctx, mod.path, mod.version, strings.TrimPrefix(name, "go:"))
	}
	mod, version, ok := strings.Cut(strings.TrimPrefix(name, "go:"), "@")
	if !strings.HasPrefix(name, "go:") || !ok {
		return nil, fmt.Errorf("-chanto takes Go modules (go:NAME or go:MODULE@VERSION), Python work trees (py:DIR) and JavaScript ones (js:DIR)")
	}
	return b.goModule(ctx, mod, version, filepath.Base(mod))
}

// summarize reads -jsonl files of earlier runs and prints their table.
func summarize(w io.Writer, files []string, markdown bool) error {
	rows := map[string]*verifyRow{}
	var order []string
	// A mutation judged twice (runs of different seeds can draw the same
	// site) counts once, as first judged.
	seen := map[[2]string]bool{}
	dups := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var o outcome
			if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &o) != nil {
				continue
			}
			r := rows[o.Project]
			if r == nil {
				r = &verifyRow{name: o.Project}
				rows[o.Project] = r
				order = append(order, o.Project)
			}
			if o.Head {
				r.packages, r.redVet, r.redTests = o.Packages, o.RedVet, o.RedTests
				r.sites, r.uncovered = o.Sites, o.Uncovered
				r.note(o)
				continue
			}
			if key := [2]string{o.Project, o.Mutation}; seen[key] {
				dups++
				continue
			} else {
				seen[key] = true
			}
			r.tried++
			r.add(o)
		}
	}
	var list []verifyRow
	for _, name := range order {
		list = append(list, *rows[name])
	}
	printVerifyTable(w, list, markdown)
	if dups > 0 {
		fmt.Fprintf(w, "%d mutations judged again in a later run were counted once, as first judged.\n", dups)
	}
	return nil
}

// table prints rows aligned in columns, or as a Markdown table.
type table struct {
	w        io.Writer
	tw       *tabwriter.Writer
	markdown bool
	rows     int
}

func newTable(w io.Writer, markdown bool) *table {
	return &table{w: w, tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0), markdown: markdown}
}

func (t *table) row(cells ...string) {
	if !t.markdown {
		fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
		return
	}
	fmt.Fprintf(t.w, "| %s |\n", strings.Join(cells, " | "))
	if t.rows == 0 {
		fmt.Fprintf(t.w, "|%s\n", strings.Repeat("---|", len(cells)))
	}
	t.rows++
}

func (t *table) flush() {
	if !t.markdown {
		t.tw.Flush()
	}
}
