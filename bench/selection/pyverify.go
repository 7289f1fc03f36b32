package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// -chanto on a Python project: py:DIR names a git work tree you prepared
// (a clone of a public project, its dependencies importable by -python),
// so nothing is downloaded here. Each mutation of a non-test source file
// is judged by `chanto verify --json --sandbox off` and by the full suite,
// `PYTHON -m pytest -q -rfE -p no:cacheprovider` and what chanto's detected
// check adds to it (pytestExtra); a fault is caught by the
// full suite when a test fails (or errors) that did not at HEAD, and by
// chanto only when it names a new failure. A src/ layout gets
// PYTHONPATH=DIR/src on both sides, as an editable install would.

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

// notPySource are the tracked Python files that are not the library:
// tests, docs, examples, benchmarks, maintenance scripts.
func notPySource(f string) bool {
	base := filepath.Base(f)
	for _, dir := range []string{"tests/", "test/", "testing/", "docs/", "doc/", "examples/", "bench/", "benchmarks/", "misc/", "scripts/", "tools/"} {
		if strings.HasPrefix(f, dir) || strings.Contains(f, "/"+dir) {
			return true
		}
	}
	return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" ||
		base == "setup.py" || base == "noxfile.py"
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
	if st, err := os.Stat(filepath.Join(dir, "src")); err == nil && st.IsDir() {
		p.env = []string{"PYTHONPATH=" + filepath.Join(dir, "src")}
	}
	for _, f := range strings.Fields(string(out)) {
		if !notPySource(f) {
			p.sources = append(p.sources, f)
		}
	}
	p.packages = len(p.sources)
	if len(p.sources) == 0 {
		return nil, fmt.Errorf("%s: no Python sources outside the tests", dir)
	}
	return p, nil
}

// pySuite runs the project's whole pytest suite with -python, with the
// arguments chanto's detected check adds to plain pytest (the doctests
// tox.ini's command collects: boltons' --doctest-modules boltons tests),
// so that the full suite runs what chanto runs in full.
func (b *bench) pySuite() suite {
	extra := map[string][]string{} // by project folder: detected once
	return suite{full: func(ctx context.Context, p *project, _ bool) (fullRun, error) {
		if _, ok := extra[p.dir]; !ok {
			extra[p.dir] = pytestExtra(p.dir)
		}
		args := append([]string{"-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider"}, extra[p.dir]...)
		res, err := b.timed(ctx, p, nil, append([]string{b.opts.python}, args...)...)
		if err != nil {
			return fullRun{}, err
		}
		run := fullRun{failures: pytestFailures(res.output), secs: res.secs, timedOut: res.timedOut}
		if notRun := pytestNotRun(res.exit); notRun != "" {
			// No FAILED line to read, and yet no test ran: a mutation
			// that gets here fails the suite; HEAD that does is no base.
			run.failures["pytest "+notRun] = true
			run.broken = fmt.Sprintf("pytest exit %d (%s): %s", res.exit, notRun, tail(res.output))
		}
		return run, nil
	}, cover: b.pyCover}
}

// pytestNotRun names the pytest exit codes that mean the tests did not
// run (internal error, usage error, nothing collected); "" for passed,
// failed and interrupted (collection errors have their ERROR lines).
func pytestNotRun(exit int) string {
	switch exit {
	case 3:
		return "internal error"
	case 4:
		return "usage error"
	case 5:
		return "no tests collected"
	}
	return ""
}

// pytestExtra is what the pytest check chanto detects in dir runs beyond
// `python -m pytest`; nil when it detects none.
func pytestExtra(dir string) []string {
	ps, err := detect.Projects(dir, nil, nil)
	if err != nil {
		return nil
	}
	for _, pr := range ps {
		for _, c := range pr.Checks {
			if c.Runner != detect.Pytest || c.Dir != dir {
				continue
			}
			if i := slices.Index(c.Args, "pytest"); i >= 0 {
				return slices.Clone(c.Args[i+1:])
			}
		}
	}
	return nil
}
