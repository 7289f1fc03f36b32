package protect

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Default test file globs of the JavaScript runners, as their docs give them.
var (
	jestDefaultMatch   = []string{"**/__tests__/**/*.[jt]s?(x)", "**/?(*.)+(spec|test).[jt]s?(x)"}
	vitestDefaultMatch = []string{"**/*.{test,spec}.?(c|m)[jt]s?(x)"}
	nodeDefaultMatch   = []string{"**/*.test.?(c|m)js", "**/*-test.?(c|m)js", "**/*_test.?(c|m)js", "**/test-*.?(c|m)js", "**/test.?(c|m)js", "**/test/**/*.?(c|m)js"}
)

// Runner configuration file names, by runner.
var (
	jestConfigNames   = []string{"jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.mts", "jest.config.cts", "jest.config.json"}
	vitestConfigNames = []string{"vitest.config.ts", "vitest.config.mts", "vitest.config.cts", "vitest.config.js", "vitest.config.mjs", "vitest.config.cjs"}
	viteConfigNames   = []string{"vite.config.ts", "vite.config.mts", "vite.config.cts", "vite.config.js", "vite.config.mjs", "vite.config.cjs"}
	vitestWorkspace   = []string{"vitest.workspace.ts", "vitest.workspace.mts", "vitest.workspace.js", "vitest.workspace.mjs", "vitest.workspace.json", "vitest.projects.ts"}
	karmaConfigNames  = []string{"karma.conf.js", "karma.conf.cjs", "karma.conf.mjs", "karma.conf.ts"}
	mochaConfigNames  = []string{".mocharc.js", ".mocharc.cjs", ".mocharc.mjs", ".mocharc.json", ".mocharc.jsonc", ".mocharc.yml", ".mocharc.yaml"}
	jsConfigNames     = concat(jestConfigNames, vitestConfigNames, viteConfigNames, vitestWorkspace)
)

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// jsRules are the runners of one package folder and what each collects.
type jsRules struct {
	dir     string
	runners []*jsRunner
	broad   bool // an unknown runner or none: any file named like a test
}

// jsRunner is one runner's collection, with globs and regexes relative to
// the package folder.
type jsRunner struct {
	name     string
	globs    []string // doublestar
	regexes  []*regexp.Regexp
	ignore   []*regexp.Regexp // jest testPathIgnorePatterns, against "/"+path
	excludes []string         // vitest exclude globs
}

func (r *jsRules) collects(p string) (bool, string) {
	q := rel(r.dir, p)
	if r.broad && (looksLikeJSTest(q) || looksLikeJSTest(p)) {
		return true, ""
	}
	var why []string
	for _, run := range r.runners {
		if run.collects(q) {
			return true, ""
		}
		why = append(why, run.name+" collects "+strings.Join(run.describe(), ", "))
	}
	if len(why) == 0 {
		return false, "not named like a test"
	}
	return false, strings.Join(why, "; ")
}

func (r *jsRunner) collects(q string) bool {
	for _, re := range r.ignore {
		if re.MatchString("/" + q) {
			return false
		}
	}
	for _, g := range r.excludes {
		if m, _ := doublestar.Match(g, q); m {
			return false
		}
	}
	for _, g := range r.globs {
		if m, _ := doublestar.Match(g, q); m {
			return true
		}
		if m, _ := doublestar.Match(strings.TrimPrefix(g, "**/"), q); m {
			return true
		}
	}
	for _, re := range r.regexes {
		if re.MatchString("/" + q) {
			return true
		}
	}
	return false
}

func (r *jsRunner) describe() []string {
	out := append([]string{}, r.globs...)
	for _, re := range r.regexes {
		out = append(out, "/"+re.String()+"/")
	}
	return out
}

// looksLikeJSTest is the rule for an unknown runner: jest's __tests__,
// mocha's and node --test's test/ directories, and test-like names.
func looksLikeJSTest(p string) bool {
	switch langOf(p) {
	case "javascript", "typescript", "tsx":
	default:
		return false
	}
	if strings.Contains("/"+p+"/", "/node_modules/") {
		return false
	}
	if strings.Contains("/"+p, "/__tests__/") || strings.Contains("/"+p, "/test/") || strings.Contains("/"+p, "/tests/") {
		return true
	}
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	return strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || strings.HasSuffix(stem, "-test") ||
		strings.HasSuffix(stem, "_test") || strings.HasPrefix(stem, "test-") || stem == "test" || stem == "spec"
}

func (d *Detector) jsRulesFor(p string) *jsRules {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dir := range ancestors(p) {
		if r, ok := d.js[dir]; ok {
			if r != nil {
				return r
			}
			continue
		}
		r := d.loadJSRules(dir)
		d.js[dir] = r
		if r != nil {
			return r
		}
	}
	return &jsRules{dir: ".", broad: true}
}

// Keeps reports whether the move of a test file from old to new keeps it
// in every collection that had it, and if not, which runner loses it. A
// file can be collected by more than its nearest package's runner: pinia's
// packages/pinia has a test script chanto does not know (so any test-like
// name counts there) while the root vitest config collects
// packages/**/*.spec.ts. Renaming __tests__/a.spec.ts to a.cases.ts keeps
// the first collection and loses the second: its tests no longer run.
func (d *Detector) Keeps(old, new string) (bool, string) {
	ok, why := d.Collects(new)
	if !ok {
		return false, why
	}
	switch langOf(old) {
	case "javascript", "typescript", "tsx":
	default:
		return true, ""
	}
	for _, r := range d.jsRuleChain(old) {
		for _, run := range r.runners {
			if run.collects(rel(r.dir, old)) && !run.collects(rel(r.dir, new)) {
				where := r.dir
				if where == "." {
					where = "the project root"
				}
				return false, fmt.Sprintf("%s in %s collects %s", run.name, where, strings.Join(run.describe(), ", "))
			}
		}
	}
	return true, ""
}

// jsRuleChain is every folder's JavaScript runner rules from p's folder
// up to the root.
func (d *Detector) jsRuleChain(p string) []*jsRules {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*jsRules
	for _, dir := range ancestors(p) {
		r, ok := d.js[dir]
		if !ok {
			r = d.loadJSRules(dir)
			d.js[dir] = r
		}
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// packageJSON is the part of package.json that says how tests run.
type packageJSON struct {
	Scripts         map[string]any `json:"scripts"`
	Jest            map[string]any `json:"jest"`
	Mocha           map[string]any `json:"mocha"`
	DevDependencies map[string]any `json:"devDependencies"`
	Dependencies    map[string]any `json:"dependencies"`
}

// loadJSRules reads the runners of dir; nil when dir says nothing about
// tests (the search goes on upwards).
func (d *Detector) loadJSRules(dir string) *jsRules {
	var pkg packageJSON
	pkgBytes := d.readAt(dir, "package.json")
	if pkgBytes != nil && json.Unmarshal(pkgBytes, &pkg) != nil {
		d.doubt(path.Join(dir, "package.json"), "npm", "does not parse as JSON")
		pkgBytes = nil
	}
	calls := testScriptCalls(pkg.Scripts)
	names := map[string]bool{}
	for _, c := range calls {
		names[c.runner] = true
	}
	if len(names) == 0 {
		d.configRunners(dir, &pkg, names)
	}
	if len(names) == 0 {
		return nil
	}
	r := &jsRules{dir: dir}
	for _, name := range []string{"jest", "vitest", "mocha", "node", "karma"} {
		if !names[name] {
			continue
		}
		var args []scriptCall
		for _, c := range calls {
			if c.runner == name {
				args = append(args, c)
			}
		}
		switch name {
		case "jest":
			r.runners = append(r.runners, d.jestRunner(dir, &pkg, args))
		case "vitest":
			r.runners = append(r.runners, d.vitestRunner(dir, args))
		case "mocha":
			r.runners = append(r.runners, d.mochaRunner(dir, &pkg, args))
		case "node":
			r.runners = append(r.runners, nodeRunner(args))
		case "karma":
			if run := d.karmaRunner(dir, args); run != nil {
				r.runners = append(r.runners, run)
			} else {
				names["other"] = true
			}
		}
	}
	r.broad = names["other"] || len(r.runners) == 0
	return r
}

// configRunners fills names from the configuration files and dependencies
// of dir when no test script names a runner.
func (d *Detector) configRunners(dir string, pkg *packageJSON, names map[string]bool) {
	if pkg.Jest != nil || d.anyAt(dir, jestConfigNames) != "" {
		names["jest"] = true
	}
	if d.anyAt(dir, vitestConfigNames) != "" || d.anyAt(dir, vitestWorkspace) != "" {
		names["vitest"] = true
	}
	if pkg.Mocha != nil || d.anyAt(dir, mochaConfigNames) != "" {
		names["mocha"] = true
	}
	if len(names) > 0 {
		return
	}
	for _, deps := range []map[string]any{pkg.DevDependencies, pkg.Dependencies} {
		for _, n := range []string{"jest", "vitest", "mocha"} {
			if _, ok := deps[n]; ok {
				names[n] = true
			}
		}
	}
	if _, ok := pkg.Scripts["test"]; ok && len(names) == 0 {
		names["other"] = true
	}
}

// anyAt returns the first of names present in dir, "" for none.
func (d *Detector) anyAt(dir string, names []string) string {
	for _, n := range names {
		if d.has(dir, n) && d.readAt(dir, n) != nil {
			return n
		}
	}
	return ""
}

func compileGlobs(gs []string, prefix string) []string {
	var out []string
	for _, g := range gs {
		g = micromatchToDoublestar(g)
		if prefix != "" && prefix != "." && !strings.HasPrefix(g, "**/") {
			g = path.Join(prefix, g)
		}
		out = append(out, g)
	}
	return out
}

func compileRegexes(rs []string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, r := range rs {
		r = strings.ReplaceAll(r, "<rootDir>", "")
		if re, err := regexp.Compile(r); err == nil {
			out = append(out, re)
		}
	}
	return out
}

func (d *Detector) jestRunner(dir string, pkg *packageJSON, calls []scriptCall) *jsRunner {
	run := &jsRunner{name: "jest"}
	var cfg jsConfig
	file := ""
	if f := configFlag(calls); f != "" {
		file = f
	} else if pkg.Jest != nil {
		file = "package.json"
		cfg = jsonRunnerConfig(pkg.Jest)
	} else {
		file = d.anyAt(dir, jestConfigNames)
	}
	if file != "" && file != "package.json" {
		if b := d.readAt(dir, file); b != nil {
			cfg = readJSConfig(file, b)
		} else {
			cfg.doubt = "the config it names is not there"
		}
	}
	run.globs = compileGlobs(cfg.testMatch, "")
	run.regexes = compileRegexes(cfg.testRegex)
	if cfg.doubt != "" {
		d.doubt(path.Join(dir, file), "jest", cfg.doubt)
	} else {
		run.ignore = compileRegexes(cfg.ignore)
	}
	if len(run.globs)+len(run.regexes) == 0 || cfg.doubt != "" {
		run.globs = append(run.globs, compileGlobs(jestDefaultMatch, "")...)
	}
	return run
}

func (d *Detector) vitestRunner(dir string, calls []scriptCall) *jsRunner {
	run := &jsRunner{name: "vitest"}
	files := []string{}
	if f := configFlag(calls); f != "" {
		files = append(files, f)
	} else if f := d.anyAt(dir, vitestConfigNames); f != "" {
		files = append(files, f)
	} else if f := d.anyAt(dir, viteConfigNames); f != "" {
		files = append(files, f)
	}
	if f := d.anyAt(dir, vitestWorkspace); f != "" {
		files = append(files, f)
	}
	doubted := false
	var excludes []string
	for _, f := range files {
		b := d.readAt(dir, f)
		if b == nil {
			d.doubt(path.Join(dir, f), "vitest", "the config it names is not there")
			doubted = true
			continue
		}
		cfg := readJSConfig(f, b)
		if cfg.doubt != "" {
			d.doubt(path.Join(dir, f), "vitest", cfg.doubt)
			doubted = true
		}
		for _, g := range append(cfg.include, cfg.includeSource...) {
			if !strings.HasPrefix(g, "!") {
				run.globs = append(run.globs, compileGlobs([]string{g}, "")...)
			}
		}
		excludes = append(excludes, compileGlobs(cfg.exclude, "")...)
	}
	if !doubted {
		run.excludes = excludes
	}
	if len(run.globs) == 0 || doubted {
		run.globs = append(run.globs, compileGlobs(vitestDefaultMatch, "")...)
	}
	return run
}

func nodeRunner(calls []scriptCall) *jsRunner {
	run := &jsRunner{name: "node --test"}
	for _, c := range calls {
		for _, a := range c.args {
			if strings.ContainsAny(a, "*?{[") || langOf(a) != "" {
				run.globs = append(run.globs, compileGlobs([]string{a}, "")...)
			} else {
				run.globs = append(run.globs, compileGlobs([]string{path.Join(strings.TrimPrefix(a, "./"), "**", "*.?(c|m)[jt]s")}, "")...)
			}
		}
	}
	if len(run.globs) == 0 {
		run.globs = compileGlobs(nodeDefaultMatch, "")
	}
	return run
}

var extglob = regexp.MustCompile(`[?+*@!]\(([^()]*)\)`)

// micromatchToDoublestar rewrites the extglobs jest uses (?(x), +(a|b),
// @(a|b)) into doublestar alternations.
func micromatchToDoublestar(g string) string {
	g = strings.TrimPrefix(g, "<rootDir>/")
	g = strings.TrimPrefix(g, "./")
	g = extglob.ReplaceAllStringFunc(g, func(m string) string {
		if m[0] == '!' {
			// "anything but": doublestar has no negation; matching more
			// files only puts more of them under protection.
			return "*"
		}
		inner := m[2 : len(m)-1]
		alts := strings.Split(inner, "|")
		if m[0] == '?' || m[0] == '*' {
			alts = append(alts, "")
		}
		return "{" + strings.Join(alts, ",") + "}"
	})
	// A plain group, *.(spec|test).ts, is one of its alternatives.
	return plainGroup.ReplaceAllStringFunc(g, func(m string) string {
		return "{" + strings.ReplaceAll(m[1:len(m)-1], "|", ",") + "}"
	})
}

// plainGroup is a parenthesised list of alternatives with no extglob
// sign before it (those are rewritten first).
var plainGroup = regexp.MustCompile(`\([^()]*\|[^()]*\)`)

// karmaRunner reads the files patterns of a karma configuration (the
// object given to config.set); nil when they cannot be read with
// certainty, so the broad rule applies.
func (d *Detector) karmaRunner(dir string, calls []scriptCall) *jsRunner {
	file := ""
	for _, c := range calls {
		for _, a := range c.args {
			if langOf(a) != "" {
				file = strings.TrimPrefix(a, "./")
			}
		}
	}
	if file == "" {
		file = d.anyAt(dir, karmaConfigNames)
	}
	b := d.readAt(dir, file)
	if file == "" || b == nil {
		return nil
	}
	cfg := readJSConfig(file, b)
	if len(cfg.karmaFiles) == 0 || cfg.karmaDoubt {
		d.doubt(path.Join(dir, file), "karma", "its files patterns are not literal")
		return nil
	}
	run := &jsRunner{name: "karma"}
	for _, g := range cfg.karmaFiles {
		if strings.Contains(g, "*") || langOf(g) != "" {
			run.globs = append(run.globs, compileGlobs([]string{g}, "")...)
		}
	}
	return run
}
