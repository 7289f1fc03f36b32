package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Outside the ratio sample a js:DIR mutation that chanto did not catch is
// judged by the test files that ran its line at HEAD, not by the whole
// suite. jest runs every test file in a module registry of its own, so a
// test file that never ran the mutated line runs exactly as it did at HEAD
// and keeps its HEAD result. Which files ran which lines comes from the
// -covered coverage run: a small reporter of ours records each test
// file's own coverage (jest hands it to reporters per file, before they
// are merged). istanbul's instrumented module registers its coverage when
// it loads, so a test file whose coverage lacks a file that others'
// coverage has never loaded it; a file no test's coverage has (not
// instrumented) counts as run by every test file.

// perFileReporter is the jest reporter that writes {test file: {source
// file: {hit: lines, miss: lines}}} to $CHANTO_BENCH_PERFILE at the end.
const perFileReporter = `// written by chanto's bench/selection (-covered)
const fs = require("fs");
class PerFileCoverage {
  constructor() {
    this.files = {};
    // jest before 23 adds its coverage reporter first, and it deletes each
    // result's coverage once merged: record it on the way in.
    try {
      const path = require.resolve("jest-cli/build/reporters/coverage_reporter", { paths: [process.cwd()] });
      const proto = require(path).default.prototype, orig = proto.onTestResult, self = this;
      proto.onTestResult = function (test, result, agg) { self.record(result); return orig.call(this, test, result, agg); };
      this.patched = true;
    } catch (e) {}
  }
  record(result) {
    const out = {};
    for (const [file, cov] of Object.entries(result.coverage || {})) {
      const d = cov.data || cov, hit = new Set(), miss = new Set();
      for (const [id, loc] of Object.entries(d.statementMap || {})) {
        for (let l = loc.start.line; l <= loc.end.line; l++) (d.s[id] > 0 ? hit : miss).add(l);
      }
      out[file] = { hit: [...hit], miss: [...miss] };
    }
    if (!(result.testFilePath in this.files) || Object.keys(out).length) this.files[result.testFilePath] = out;
  }
  onTestResult(test, result) { this.record(result); }
  onRunComplete() { fs.writeFileSync(process.env.CHANTO_BENCH_PERFILE, JSON.stringify(this.files)); }
}
module.exports = PerFileCoverage;
`

// readPerFile reads the reporter's file: each test file's line coverage,
// names relative to the project.
func readPerFile(dir string, data []byte) (map[string]lineCoverage, error) {
	var raw map[string]map[string]struct{ Hit, Miss []int }
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("per-file coverage: %v", err)
	}
	out := map[string]lineCoverage{}
	for test, files := range raw {
		c := lineCoverage{}
		for name, f := range files {
			name = relTo(dir, name)
			for _, l := range f.Hit {
				c.mark(name, l, true)
			}
			for _, l := range f.Miss {
				c.mark(name, l, false)
			}
		}
		out[relTo(dir, test)] = c
	}
	return out, nil
}

// affectedTests lists the test files that may run line of file: all but
// those whose own coverage says they never ran it or never loaded file.
func affectedTests(perFile map[string]lineCoverage, file string, line int) []string {
	instrumented := false
	for _, c := range perFile {
		if _, ok := c[file]; ok {
			instrumented = true
			break
		}
	}
	var out []string
	for test, c := range perFile {
		_, loaded := c[file]
		if !instrumented || loaded && c.ran(file, line, 0) {
			out = append(out, test)
		}
	}
	sort.Strings(out)
	return out
}

// jsJudge runs the test files that ran the mutation's line at HEAD; the
// whole suite when that is all of them or per-file coverage is missing.
func jsJudge(ctx context.Context, p *project, m mutation) (fullRun, error) {
	if len(p.perFile) == 0 {
		return jsRun(ctx, p, nil)
	}
	src, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(m.file)))
	if err != nil {
		return fullRun{}, err
	}
	line, _ := position(src, m.offset)
	tests := affectedTests(p.perFile, m.file, line)
	if len(tests) == len(p.perFile) {
		return jsRun(ctx, p, nil)
	}
	scope := fmt.Sprintf("%d of %d test files (those that ran line %d at HEAD)", len(tests), len(p.perFile), line)
	if len(tests) == 0 {
		// Every file keeps its HEAD result: no new failure.
		return fullRun{failures: map[string]bool{}, scope: scope}, nil
	}
	run, err := jsRun(ctx, p, append([]string{"--runTestsByPath"}, tests...))
	run.scope = scope
	return run, err
}
