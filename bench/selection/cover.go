package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// -covered leaves out the mutations on code the full suite never runs at
// HEAD. Such a mutation cannot make the full suite fail (the tests run
// exactly what they ran before; only a test that reads the file's source
// text could tell), so it can never count for safety; judging it costs a
// whole chanto run and a whole full suite for nothing. The coverage run is
// one extra full run per project, and the test is conservative: a site is
// dropped only when coverage names the statement it is in and says that
// statement never ran; a site coverage knows nothing of (a declaration, a
// line inside a multi-line statement, a docstring) stays.

// coverage says whether the full suite ran a place of a source file at
// HEAD; false only when it surely did not.
type coverage interface {
	ran(file string, line, col int) bool
}

// position is the 1-based line and byte column of offset in src.
func position(src []byte, offset int) (line, col int) {
	before := src[:min(offset, len(src))]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, offset - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// coveredSites keeps the mutations coverage does not rule out.
func coveredSites(p *project, cov coverage, sites []mutation) (kept []mutation, dropped int) {
	srcs := map[string][]byte{}
	for _, m := range sites {
		src, ok := srcs[m.file]
		if !ok {
			src, _ = os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(m.file)))
			srcs[m.file] = src
		}
		line, col := position(src, m.offset)
		if cov.ran(m.file, line, col) {
			kept = append(kept, m)
		} else {
			dropped++
		}
	}
	return kept, dropped
}

// lineCoverage is per-line coverage (coverage.py, istanbul): for each file
// the lines of statements that ran and of those that never did.
type lineCoverage map[string]struct{ hit, miss map[int]bool }

func (c lineCoverage) ran(file string, line, _ int) bool {
	f, ok := c[file]
	return !ok || f.hit[line] || !f.miss[line]
}

func (c lineCoverage) mark(file string, line int, hit bool) {
	f, ok := c[file]
	if !ok {
		f.hit, f.miss = map[int]bool{}, map[int]bool{}
		c[file] = f
	}
	if hit {
		f.hit[line] = true
	} else {
		f.miss[line] = true
	}
}

// relTo makes a report's file name relative to the project, slashed.
func relTo(dir, name string) string {
	if rel, err := filepath.Rel(dir, name); err == nil && filepath.IsAbs(name) {
		name = rel
	}
	return filepath.ToSlash(name)
}

// pyCoverage reads `coverage json`: executed_lines and missing_lines.
func pyCoverage(dir string, data []byte) (lineCoverage, error) {
	var rep struct {
		Files map[string]struct {
			Executed []int `json:"executed_lines"`
			Missing  []int `json:"missing_lines"`
		} `json:"files"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("coverage json: %v", err)
	}
	c := lineCoverage{}
	for name, f := range rep.Files {
		name = relTo(dir, name)
		for _, l := range f.Executed {
			c.mark(name, l, true)
		}
		for _, l := range f.Missing {
			c.mark(name, l, false)
		}
	}
	return c, nil
}

// jsCoverage reads istanbul's coverage-final.json (jest, vitest): a line
// ran when a statement spanning it ran, and never ran when every
// statement spanning it has a zero count.
func jsCoverage(dir string, data []byte) (lineCoverage, error) {
	var rep map[string]struct {
		StatementMap map[string]struct {
			Start struct{ Line int } `json:"start"`
			End   struct{ Line int } `json:"end"`
		} `json:"statementMap"`
		S map[string]int `json:"s"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("coverage-final.json: %v", err)
	}
	c := lineCoverage{}
	for name, f := range rep {
		name = relTo(dir, name)
		for id, st := range f.StatementMap {
			for l := st.Start.Line; l <= st.End.Line; l++ {
				c.mark(name, l, f.S[id] > 0)
			}
		}
	}
	return c, nil
}

// goBlock is one block of a Go cover profile.
type goBlock struct {
	startLine, startCol, endLine, endCol, count int
}

// goCoverage is a Go cover profile by file (module-relative).
type goCoverage map[string][]goBlock

func (c goCoverage) ran(file string, line, col int) bool {
	in := false
	for _, b := range c[file] {
		after := line > b.startLine || line == b.startLine && col >= b.startCol
		before := line < b.endLine || line == b.endLine && col < b.endCol
		if after && before {
			if b.count > 0 {
				return true
			}
			in = true
		}
	}
	return !in
}

// readGoCoverage reads a -coverprofile of module mod ("mode:" line, then
// "importpath/file.go:L.C,L.C stmts count"), blocks of every test binary.
func readGoCoverage(mod string, data []byte) (goCoverage, error) {
	c := goCoverage{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		name, rest, ok := strings.Cut(line, ":")
		f := strings.Fields(strings.NewReplacer(",", " ", ".", " ").Replace(rest))
		if !ok || len(f) != 6 {
			return nil, fmt.Errorf("cover profile: %q", line)
		}
		var n [6]int
		for i, s := range f {
			v, err := strconv.Atoi(s)
			if err != nil {
				return nil, fmt.Errorf("cover profile: %q", line)
			}
			n[i] = v
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(name, mod), "/")
		c[rel] = append(c[rel], goBlock{n[0], n[1], n[2], n[3], n[5]})
	}
	return c, sc.Err()
}

// goCover runs the module's tests once with coverage of every package.
func goCover(ctx context.Context, p *project) (coverage, error) {
	b := p.bench
	profile := filepath.Join(b.work, "go-cover.out")
	if _, err := b.cmdResult(ctx, p, nil, "go", "test", "-coverpkg=./...", "-coverprofile="+profile, "./..."); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(profile)
	if err != nil {
		return nil, fmt.Errorf("go test -coverprofile wrote nothing: %v", err)
	}
	mod, err := b.cmd(ctx, p.dir, "go", "list", "-m")
	if err != nil {
		return nil, err
	}
	return readGoCoverage(strings.TrimSpace(string(mod)), data)
}

// pyCover runs the full pytest suite once under coverage.py.
func (b *bench) pyCover(ctx context.Context, p *project) (coverage, error) {
	data := filepath.Join(b.work, "py-coverage")
	report := data + ".json"
	os.Remove(data)
	if _, err := b.cmdResult(ctx, p, nil, b.opts.python, "-m", "coverage", "run", "--data-file="+data,
		"-m", "pytest", "-q", "-p", "no:cacheprovider"); err != nil {
		return nil, err
	}
	if _, err := b.cmd(ctx, p.dir, b.opts.python, "-m", "coverage", "json", "--data-file="+data, "-o", report); err != nil {
		return nil, err
	}
	out, err := os.ReadFile(report)
	if err != nil {
		return nil, err
	}
	return pyCoverage(p.dir, out)
}

// jsCover runs the whole suite once with istanbul's JSON coverage; jest
// also records each test file's own coverage for jsJudge.
func jsCover(ctx context.Context, p *project) (coverage, error) {
	b := p.bench
	out := filepath.Join(b.work, "js-coverage")
	os.RemoveAll(out)
	args := append([]string{}, p.jsRunner...)
	var env []string
	perFile := filepath.Join(b.work, "js-perfile.json")
	if p.jsRunner[1] == "vitest" {
		args = append(args, "--coverage.enabled", "--coverage.reporter=json", "--coverage.reportsDirectory="+out)
	} else {
		reporter := filepath.Join(b.work, "perfile-reporter.js")
		if err := os.WriteFile(reporter, []byte(perFileReporter), 0o644); err != nil {
			return nil, err
		}
		os.Remove(perFile)
		env = []string{"CHANTO_BENCH_PERFILE=" + perFile}
		args = append(args, "--ci", "--coverage", "--coverageReporters=json", "--coverageDirectory="+out,
			"--reporters=default", "--reporters="+reporter)
	}
	if _, err := b.cmdResult(ctx, p, env, args...); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(out, "coverage-final.json"))
	if err != nil {
		return nil, fmt.Errorf("no coverage-final.json: %v", err)
	}
	if pf, err := os.ReadFile(perFile); err == nil {
		if p.perFile, err = readPerFile(p.dir, pf); err != nil {
			return nil, err
		}
		b.logf("%s: per-file coverage of %d test files: a mutation chanto does not catch is judged by those that ran its line", p.name, len(p.perFile))
	}
	return jsCoverage(p.dir, data)
}
