package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// -chanto on a JavaScript project: js:DIR names a git work tree you
// prepared with its node_modules installed (npm ci), whose package.json
// "test" script runs jest or vitest alone ("jest --coverage=false",
// "vitest run"). chanto checks it as npm test, narrowed by the runner's own
// related-test mode; the full suite is the same command with the runner's
// JSON report. A script that chains more (builds, linters, several time
// zones, coverage thresholds) is opaque to chanto, which then runs it
// whole, and a coverage threshold fails a harmless change that drops a
// line: rewrite such a script in the clone first, and say so. A --check
// command would not do: chanto runs configured checks whole, unnamed.

// jsProject prepares js:DIR: its runner and its tracked non-test sources.
func (b *bench) jsProject(ctx context.Context, name string) (*project, error) {
	dir, err := filepath.Abs(strings.TrimPrefix(name, "js:"))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, err
	}
	var pkg struct{ Scripts map[string]string }
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, fmt.Errorf("%s: package.json: %v", dir, err)
	}
	words := strings.Fields(pkg.Scripts["test"])
	if len(words) == 0 || words[0] != "jest" && words[0] != "vitest" {
		return nil, fmt.Errorf("%s: the test script %q does not run jest or vitest alone", dir, pkg.Scripts["test"])
	}
	p := &project{name: name, dir: dir, js: true, jsRunner: append([]string{"npx"}, words...)}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		return nil, fmt.Errorf("%s: no node_modules: run npm ci there first", dir)
	}
	out, err := b.cmd(ctx, dir, "git", "ls-files", "*.js", "*.ts", "*.mjs", "*.cjs", "*.jsx", "*.tsx")
	if err != nil {
		return nil, err
	}
	for _, f := range strings.Fields(string(out)) {
		if !notJSSource(f) {
			p.sources = append(p.sources, f)
		}
	}
	p.packages = len(p.sources)
	if len(p.sources) == 0 {
		return nil, fmt.Errorf("%s: no JavaScript sources outside the tests", dir)
	}
	return p, nil
}

// notJSSource are the tracked script files that are not the library:
// tests, type declarations, configuration, build scripts, docs.
func notJSSource(f string) bool {
	base := filepath.Base(f)
	if jsTestFile(f) || strings.HasSuffix(f, ".d.ts") || strings.Contains(base, ".config.") || strings.HasPrefix(base, ".") {
		return true
	}
	for _, dir := range []string{"test/", "tests/", "__tests__/", "__mocks__/", "docs/", "build/", "scripts/", "dist/", "types/", "bench/", "examples/"} {
		if strings.HasPrefix(f, dir) || strings.Contains(f, "/"+dir) {
			return true
		}
	}
	return !strings.Contains(f, "/") // top-level files: configs, build entry points
}

func jsTestFile(f string) bool {
	for _, s := range []string{".test.", ".spec."} {
		if strings.Contains(filepath.Base(f), s) {
			return true
		}
	}
	return false
}

// jestReport is the part of jest's --json report (and vitest's json
// reporter, which follows it) the benchmark reads.
type jestReport struct {
	TestResults []struct {
		Name             string `json:"name"`
		Status           string `json:"status"`
		Message          string `json:"message"`
		AssertionResults []struct {
			FullName string `json:"fullName"`
			Status   string `json:"status"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// jsFailures reads a JSON report: a failed test is "test FILE NAME", a
// test file that failed with no failed test (it did not load) "file FILE".
func jsFailures(dir string, data []byte) (map[string]bool, error) {
	var rep jestReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, f := range rep.TestResults {
		name, err := filepath.Rel(dir, f.Name)
		if err != nil {
			name = f.Name
		}
		failed := false
		for _, a := range f.AssertionResults {
			if a.Status == "failed" {
				set["test "+name+" "+a.FullName] = true
				failed = true
			}
		}
		if f.Status == "failed" && !failed {
			set["file "+name] = true
		}
	}
	return set, nil
}

// jsSuite runs the whole suite with the runner's JSON report.
var jsSuite = suite{full: func(ctx context.Context, p *project, _ bool) (fullRun, error) {
	return jsRun(ctx, p, nil)
}, cover: jsCover, judge: jsJudge}

// jsRun runs the project's runner with the JSON report, extra arguments
// (test files) after the runner's own.
func jsRun(ctx context.Context, p *project, extra []string) (fullRun, error) {
	b := p.bench
	report := filepath.Join(b.work, "js-report.json")
	os.Remove(report)
	args := append([]string{}, p.jsRunner...)
	if p.jsRunner[1] == "vitest" {
		args = append(args, "--reporter=json", "--outputFile="+report)
	} else {
		args = append(args, "--ci", "--json", "--outputFile="+report)
	}
	res, err := b.timed(ctx, p, nil, append(args, extra...)...)
	if err != nil {
		return fullRun{}, err
	}
	run := fullRun{secs: res.secs, timedOut: res.timedOut, failures: map[string]bool{}}
	data, err := os.ReadFile(report)
	if err == nil {
		run.failures, err = jsFailures(p.dir, data)
	}
	if err != nil && !res.timedOut {
		// No report: the runner itself failed (a config that no longer
		// loads, say); one key stands for it.
		run.failures = map[string]bool{fmt.Sprintf("runner exit %d", res.exit): true}
		b.logf("%s: no JSON report (%v): %s", p.name, err, tail(res.output))
	}
	return run, nil
}
