package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// -chanto on a Python project: py:DIR names a git work tree you prepared
// (a clone of a public project, its dependencies importable by -python),
// so nothing is downloaded here. Each mutation of a non-test source file
// is judged by `chanto verify --json --sandbox off` and by the full suite,
// `PYTHON -m pytest -q -rfE -p no:cacheprovider`; a fault is caught by the
// full suite when a test fails (or errors) that did not at HEAD, and by
// chanto only when it names a new failure.

// pytestSummary is a line of pytest's -rfE short summary.
var pytestSummary = regexp.MustCompile(`^(FAILED|ERROR) (\S+)`)

func pytestFailures(out []byte) map[string]bool {
	set := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if m := pytestSummary.FindStringSubmatch(sc.Text()); m != nil {
			set["test "+m[2]] = true
		}
	}
	return set
}

// pyProject prepares py:DIR: its tracked non-test Python sources.
func (b *bench) pyProject(ctx context.Context, name string) (*project, error) {
	dir, err := filepath.Abs(strings.TrimPrefix(name, "py:"))
	if err != nil {
		return nil, err
	}
	out, err := b.cmd(ctx, dir, "git", "ls-files", "*.py")
	if err != nil {
		return nil, err
	}
	p := &project{name: name, dir: dir}
	for _, f := range strings.Fields(string(out)) {
		base := filepath.Base(f)
		if strings.HasPrefix(f, "tests/") || strings.Contains(f, "/tests/") || strings.HasPrefix(base, "test_") ||
			strings.HasSuffix(base, "_test.py") || base == "conftest.py" || strings.HasPrefix(f, "docs/") || strings.HasPrefix(f, "examples/") {
			continue
		}
		p.sources = append(p.sources, f)
	}
	if len(p.sources) == 0 {
		return nil, fmt.Errorf("%s: no Python sources outside the tests", dir)
	}
	return p, nil
}

// fullPytest runs the project's whole suite.
func (b *bench) fullPytest(ctx context.Context, dir string) (timedResult, error) {
	return b.timed(ctx, dir, b.opts.python, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider")
}

// measurePyVerify is measureVerify for a Python project.
func (b *bench) measurePyVerify(ctx context.Context, p *project) (verifyRow, error) {
	r := verifyRow{name: p.name, packages: len(p.sources)}
	head, err := b.fullPytest(ctx, p.dir)
	if err != nil {
		return r, err
	}
	headFails := pytestFailures(head.output)
	r.redTests = len(headFails)
	b.logf("%s: at HEAD pytest has %d failures (%.1fs, exit %d)", p.name, r.redTests, head.secs, head.exit)
	limit := b.opts.mutations
	if n, ok := b.opts.perProject[p.key]; ok {
		limit = n
	}
	for _, m := range p.sites(b.rng) {
		if r.tried >= limit {
			break
		}
		tried, err := b.pyMutation(ctx, p, m, headFails, &r)
		if err != nil {
			return r, err
		}
		if tried {
			r.tried++
		}
	}
	return r, nil
}

func (b *bench) pyMutation(ctx context.Context, p *project, m mutation, headFails map[string]bool, r *verifyRow) (bool, error) {
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
	cres, err := b.timed(ctx, p.dir, b.opts.chanto, "verify", "--json", "--sandbox", "off")
	if err != nil {
		return false, err
	}
	var rep chantoReport
	if err := json.Unmarshal(cres.output, &rep); err != nil {
		rep.Evidence = fmt.Sprintf("no report (exit %d, timed out %v): %s", cres.exit, cres.timedOut, tail(cres.output))
	}
	full, err := b.fullPytest(ctx, p.dir)
	if err != nil {
		return false, err
	}
	newFull := newKeys(pytestFailures(full.output), headFails)
	b.judge(r, m, rep, cres.secs, full.secs, newFull, full.timedOut)
	return true, nil
}

// judge records one mutation's outcome in r: the full suite's new
// failures against what chanto named, and the time ratio.
func (b *bench) judge(r *verifyRow, m mutation, rep chantoReport, chanto, full float64, newFull []string, fullTimedOut bool) {
	fullCaught := len(newFull) > 0 || fullTimedOut
	caught := len(rep.NewFailures) > 0
	for _, c := range rep.Checks {
		if len(c.AlreadyFailing) > 0 {
			r.oldSeen++
			break
		}
	}
	ratio := chanto / full
	switch {
	case fullCaught:
		r.caughtFull++
		r.failRatios = append(r.failRatios, ratio)
		r.failChanto += chanto
		r.failFull += full
		if caught {
			r.caught++
		} else {
			r.misses = append(r.misses, fmt.Sprintf("%s: full suite: %s; chanto: %s", m, strings.Join(newFull, ", "), rep.Evidence))
			b.logf("%s: MISS: full suite: %s; chanto: %s", m, strings.Join(newFull, ", "), rep.Evidence)
		}
	default:
		r.passRatios = append(r.passRatios, ratio)
		r.passChanto += chanto
		r.passFull += full
		if caught {
			r.falseNew++
			b.logf("%s: chanto named a new failure the full suite did not show: %s", m, rep.Evidence)
		}
	}
	b.logf("%s: full %s %.1fs, chanto %.1fs (%.2f): %s", m, map[bool]string{true: "failed", false: "passed"}[fullCaught], full, chanto, ratio, rep.Evidence)
}
