package protect

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// harnessKind names the kind of runner configuration p is, "" for none.
func harnessKind(p string) string {
	if k := ciKind(p); k != "" {
		return "ci-" + k
	}
	base := path.Base(p)
	switch base {
	case ".coveragerc":
		return "coverage"
	case "conftest.py":
		return "conftest"
	case "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "setup.cfg", "pyproject.toml":
		return "pytest"
	case "package.json":
		return "package"
	case "Makefile", "makefile", "GNUmakefile":
		return "make"
	case "Cargo.toml":
		return "cargo"
	case "pom.xml", "build.gradle", "build.gradle.kts":
		return "jvm"
	}
	for _, n := range jsConfigNames {
		if base == n {
			return "jsconfig"
		}
	}
	for _, n := range mochaConfigNames {
		if base == n {
			return "mocharc"
		}
	}
	return ""
}

func harnessViolation(p, what string, line int, before, after string) Violation {
	return Violation{File: p, Line: line, Kind: HarnessWeakened, Before: before, After: after,
		Message: "harness weakened: " + what + "; restore the test setup; fix the code, not the tests"}
}

// checkHarness compares one runner configuration file; b or a is nil when
// the file is missing on that side.
func checkHarness(kind, p string, b, a []byte) []Violation {
	if strings.HasPrefix(kind, "ci-") {
		return checkTestRuns(strings.TrimPrefix(kind, "ci-"), p, b, a)
	}
	if a == nil && kind != "package" && kind != "cargo" && kind != "make" {
		return nil
	}
	switch kind {
	case "coverage":
		return checkCoverage(p, b, a)
	case "mocharc":
		return compareMocharc(p, b, a)
	case "conftest":
		return checkConftest(p, b, a)
	case "pytest":
		out := append(checkPytestConfig(p, b, a), checkCoverage(p, b, a)...)
		if path.Base(p) == "tox.ini" {
			out = append(out, checkTestRuns("tox", p, b, a)...)
		}
		return out
	case "package":
		return checkPackageJSON(p, b, a)
	case "jsconfig":
		return append(compareJSConfig(p, jsConfigValues(p, b), jsConfigValues(p, a), a), checkJSThresholds(p, b, a)...)
	case "make":
		return checkTestRuns("make", p, b, a)
	case "cargo":
		return checkCargo(p, b, a)
	case "jvm":
		return checkJVMBuild(p, b, a)
	}
	return nil
}

// checkConftest reports new or changed pytest hooks, collect_ignore
// changes, and fixtures that newly skip or exit.
func checkConftest(p string, b, a []byte) []Violation {
	bf, af := conftestDefs(b), conftestDefs(a)
	var out []Violation
	for _, name := range sortedDefNames(af) {
		cur := af[name]
		old, had := bf[name]
		if had && old.body == cur.body {
			continue
		}
		switch {
		case strings.HasPrefix(name, "pytest_") || name == "collect_ignore" || name == "collect_ignore_glob":
			verb := "changed"
			if !had {
				verb = "added"
			}
			out = append(out, harnessViolation(p, fmt.Sprintf("conftest %s %s (it can skip, deselect or force-pass tests)", name, verb), cur.line, firstLineOf(old.text), firstLineOf(cur.text)))
		case cur.skips > old.skips:
			out = append(out, harnessViolation(p, fmt.Sprintf("conftest fixture %s now skips or exits", name), cur.line, "", firstLineOf(cur.text)))
		case had:
			out = append(out, fixtureValueChanged(p, name, old, cur)...)
		}
	}
	if b != nil {
		// Fixtures that assert or carry params are checked like helpers.
		sup := &pyNaming{support: true} // every function, in any class
		bm, am := analyzeNamed("python", p, b, sup), analyzeNamed("python", p, a, sup)
		for _, v := range compareModels(p, bm, am, b, a) {
			switch v.Kind {
			case TableRowsChanged, AssertionRemoved, AssertionLoosened, ExpectedChanged, EarlyExit, SkipAdded, ExpectationInverted:
				out = append(out, v)
			}
		}
	}
	return out
}

type pyDef struct {
	body  string
	text  string
	line  int
	skips int
	value string // the literal a fixture returns
}

func sortedDefNames(m map[string]pyDef) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// conftestDefs returns module-level functions and assignments of a
// conftest file by name.
func conftestDefs(src []byte) map[string]pyDef {
	out := map[string]pyDef{}
	if src == nil {
		return out
	}
	src = normalizeNewlines(src)
	root, _ := parseTS("python", src)
	if root == nil {
		return out
	}
	tk := &tokenizer{src: src, unifyQuotes: true}
	for _, st := range root.children {
		def := st
		if st.kind == "decorated_definition" {
			def = st.child("definition")
		}
		if def == nil {
			continue
		}
		name := ""
		switch def.kind {
		case "function_definition":
			if n := def.child("name"); n != nil {
				name = n.text(src)
			}
		case "expression_statement":
			if as := def.firstOf("assignment"); as != nil {
				if l := as.child("left"); l != nil {
					name = l.text(src)
				}
			}
		}
		if name == "" {
			continue
		}
		d := pyDef{body: tk.norm(st), text: st.text(src), line: st.line, value: fixtureValue(st, src)}
		st.walk(func(n *node) bool {
			if n.kind == "call" {
				if f := n.child("function"); f != nil {
					t := f.text(src)
					if strings.HasSuffix(t, "skip") || strings.HasSuffix(t, "xfail") || isPyExit(t) || strings.HasSuffix(t, "deselect") {
						d.skips++
					}
				}
			}
			return true
		})
		out[name] = d
	}
	return out
}

// Risky pytest options: they narrow collection or stop early.
var pytestRiskyOpts = []string{"-k", "--deselect", "--ignore", "--ignore-glob", "-p", "-m", "--co", "--collect-only",
	"--lf", "--last-failed", "-x", "--exitfirst", "--maxfail", "--sw", "--stepwise", "--continue-on-collection-errors", "--noconftest", "--runxfail"}

// pytestValuedOpts are the risky options whose value is the next word.
var pytestValuedOpts = []string{"-k", "--deselect", "--ignore", "--ignore-glob", "-p", "-m", "--maxfail"}

// addoptItems splits addopts into options, each with its value when that
// is the next word ("--deselect tests/t.py::test_a"), so a second
// --deselect of another test counts as gained.
func addoptItems(s string) []string {
	w := strings.Fields(s)
	var out []string
	for i := 0; i < len(w); i++ {
		if slices.Contains(pytestValuedOpts, w[i]) && i+1 < len(w) && !strings.HasPrefix(w[i+1], "-") {
			out = append(out, w[i]+" "+w[i+1])
			i++
			continue
		}
		out = append(out, w[i])
	}
	return out
}

// riskyPytestOpt reports an addopts item that narrows collection or stops
// early (pytestRiskyOpts); -p only when it turns a plugin off.
func riskyPytestOpt(item string) bool {
	flag, value, _ := strings.Cut(item, " ")
	for _, r := range pytestRiskyOpts {
		switch {
		case r == "-p":
			if flag == "-p" && strings.HasPrefix(value, "no:") || strings.HasPrefix(flag, "-pno:") || strings.HasPrefix(flag, "-p=no:") || strings.HasPrefix(flag, "no:") {
				return true
			}
		case flag == r || strings.HasPrefix(flag, r+"="):
			return true
		case len(r) == 2 && strings.HasPrefix(flag, r):
			return true // -kfoo, -xv
		}
	}
	return false
}

func checkPytestConfig(p string, b, a []byte) []Violation {
	bo, ao := pytestOptions(p, b), pytestOptions(p, a)
	if ao == nil {
		return nil
	}
	if bo == nil {
		bo = map[string]string{}
	}
	var out []Violation
	have := map[string]int{}
	for _, t := range addoptItems(bo["addopts"]) {
		have[t]++
	}
	for _, t := range addoptItems(ao["addopts"]) {
		if have[t] > 0 {
			have[t]--
			continue
		}
		if riskyPytestOpt(t) {
			out = append(out, harnessViolation(p, "pytest addopts gained "+t, lineOf(a, "addopts"), bo["addopts"], ao["addopts"]))
		}
	}
	for _, k := range []string{"testpaths", "python_files", "python_classes", "python_functions"} {
		if gone := missing(strings.Fields(bo[k]), strings.Fields(ao[k])); len(gone) > 0 || (bo[k] == "" && ao[k] != "" && k != "testpaths") {
			out = append(out, harnessViolation(p, "pytest "+k+" narrowed", lineOf(a, k), bo[k], ao[k]))
		}
	}
	for _, k := range []string{"norecursedirs", "collect_ignore"} {
		if extra := missing(strings.Fields(ao[k]), strings.Fields(bo[k])); len(extra) > 0 {
			out = append(out, harnessViolation(p, "pytest "+k+" gained "+strings.Join(extra, " "), lineOf(a, k), bo[k], ao[k]))
		}
	}
	if strings.EqualFold(bo["xfail_strict"], "true") && !strings.EqualFold(ao["xfail_strict"], "true") {
		out = append(out, harnessViolation(p, "pytest xfail_strict turned off", 1, bo["xfail_strict"], ao["xfail_strict"]))
	}
	return out
}

// missing returns the elements of want that got lacks.
func missing(want, got []string) []string {
	have := map[string]int{}
	for _, g := range got {
		have[g]++
	}
	var out []string
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
			continue
		}
		out = append(out, w)
	}
	return out
}

func checkPackageJSON(p string, b, a []byte) []Violation {
	type pkg struct {
		Scripts map[string]string `json:"scripts"`
		Jest    map[string]any    `json:"jest"`
	}
	var bp, ap pkg
	if b != nil {
		_ = json.Unmarshal(b, &bp)
	}
	if a == nil {
		if bp.Scripts["test"] != "" {
			return []Violation{harnessViolation(p, "package.json with the test script deleted", 1, bp.Scripts["test"], "")}
		}
		return nil
	}
	if err := json.Unmarshal(a, &ap); err != nil {
		// Detection reports a broken manifest by file and line, and no
		// test runs from it: a parse error hides no test.
		return nil
	}
	out := checkTestRuns("package", p, b, a)
	for _, name := range []string{"test", "pretest", "posttest"} {
		old, had := bp.Scripts[name]
		cur, ok := ap.Scripts[name]
		if !had || ok && cur == old {
			continue
		}
		if runs, _ := testRuns("package", []byte(`{"scripts":{"x":`+strconv.Quote(old)+`}}`)); len(runs) == 0 && (!ok || replacesRun(cur)) {
			// A test script that calls no known runner (a custom one)
			// replaced by one that cannot fail or removed.
			out = append(out, harnessViolation(p, fmt.Sprintf("scripts.%s changed to something weaker", name), lineOf(a, `"`+name+`"`), old, cur))
		}
	}
	if _, had := bp.Scripts["pretest"]; !had && ap.Scripts["pretest"] != "" && replacesRun(ap.Scripts["pretest"]) {
		out = append(out, harnessViolation(p, "scripts.pretest added", lineOf(a, `"pretest"`), "", ap.Scripts["pretest"]))
	}
	out = append(out, compareJSConfig(p, flattenJSON(bp.Jest), flattenJSON(ap.Jest), a)...)
	return out
}

// replacesRun reports whether a script ends the run early or cannot
// fail: an exit, a masked command, or only echo and true.
func replacesRun(script string) bool {
	cmds, err := parseShell(script)
	if err != nil {
		return false
	}
	for _, c := range cmds {
		if c.masked != "" || c.args[0] == "exit" {
			return true
		}
	}
	for _, c := range cmds {
		switch c.args[0] {
		case "echo", "true", ":", "printf":
		default:
			return false
		}
	}
	return true
}

func lineOf(b []byte, needle string) int {
	i := strings.Index(string(b), needle)
	if i < 0 {
		return 1
	}
	return strings.Count(string(b[:i]), "\n") + 1
}

var (
	jsIgnoreKeys = []string{"testPathIgnorePatterns", "modulePathIgnorePatterns", "exclude", "testIgnore"}
	jsMatchKeys  = []string{"testMatch", "testRegex", "include", "roots", "projects", "testDir"}
	jsFlagKeys   = []string{"passWithNoTests", "bail", "allowOnly", "testNamePattern", "testPathPattern", "onlyChanged", "retry", "dangerouslyIgnoreUnhandledErrors", "maxFailures"}
)

// compareJSConfig reports jest or vitest settings that collect fewer tests
// or let failures pass.
func compareJSConfig(p string, b, a map[string][]string, src []byte) []Violation {
	var out []Violation
	for _, k := range jsIgnoreKeys {
		if extra := missing(a[k], b[k]); len(extra) > 0 {
			out = append(out, harnessViolation(p, fmt.Sprintf("%s gained %s", k, strings.Join(extra, ", ")), lineOf(src, k), strings.Join(b[k], ", "), strings.Join(a[k], ", ")))
		}
	}
	for _, k := range jsMatchKeys {
		if gone := missing(b[k], a[k]); len(gone) > 0 {
			out = append(out, harnessViolation(p, fmt.Sprintf("%s lost %s", k, strings.Join(gone, ", ")), lineOf(src, k), strings.Join(b[k], ", "), strings.Join(a[k], ", ")))
		}
	}
	for _, k := range jsFlagKeys {
		bv, av := strings.Join(b[k], ","), strings.Join(a[k], ",")
		if av != bv && av != "" && av != "false" && av != "0" {
			out = append(out, harnessViolation(p, fmt.Sprintf("%s set to %s", k, av), lineOf(src, k), bv, av))
		}
	}
	return out
}

// cargoTests extracts the settings of Cargo.toml that decide which tests
// cargo test builds and runs.
func cargoTests(src []byte) (map[string]string, error) {
	out := map[string]string{}
	if src == nil {
		return out, nil
	}
	var doc map[string]any
	if _, err := toml.Decode(string(src), &doc); err != nil {
		return nil, err
	}
	if pk, ok := doc["package"].(map[string]any); ok {
		if v, ok := pk["autotests"]; ok {
			out["package.autotests"] = fmt.Sprint(v)
		}
	}
	for _, sec := range []string{"lib", "bin", "test", "bench", "example"} {
		var items []map[string]any
		switch v := doc[sec].(type) {
		case map[string]any:
			items = append(items, v)
		case []map[string]any:
			items = v
		case []any:
			for _, e := range v {
				if m, ok := e.(map[string]any); ok {
					items = append(items, m)
				}
			}
		}
		for i, it := range items {
			id := fmt.Sprintf("%s[%d]", sec, i)
			if n, ok := it["name"]; ok {
				id = fmt.Sprintf("%s[%v]", sec, n)
			}
			if sec == "test" {
				out[id] = "present"
			}
			for _, k := range []string{"test", "harness", "path", "required-features"} {
				if v, ok := it[k]; ok {
					out[id+"."+k] = fmt.Sprint(v)
				}
			}
		}
	}
	return out, nil
}

func checkCargo(p string, b, a []byte) []Violation {
	bt, err := cargoTests(b)
	if err != nil {
		return nil
	}
	if a == nil {
		return nil
	}
	at, err := cargoTests(a)
	if err != nil {
		return nil // reported by detection, like a broken package.json
	}
	var out []Violation
	keys := map[string]bool{}
	for k := range bt {
		keys[k] = true
	}
	for k := range at {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		old, had := bt[k]
		cur := at[k]
		switch {
		case had && old == cur:
		case had:
			out = append(out, harnessViolation(p, fmt.Sprintf("Cargo.toml %s changed (%q → %q)", k, old, cur), lineOf(a, cargoSection(k)), old, cur))
		case cur == "false" && (k == "package.autotests" || targetExisted(bt, k) || strings.HasPrefix(k, "lib")):
			// A new target may opt out of the harness; an existing one may not.
			out = append(out, harnessViolation(p, fmt.Sprintf("Cargo.toml %s set to false", k), lineOf(a, cargoSection(k)), "", cur))
		}
	}
	return out
}

// targetExisted reports whether the target that key k belongs to was in
// the base manifest.
func targetExisted(bt map[string]string, k string) bool {
	id := k[:strings.LastIndexByte(k, '.')+1]
	for b := range bt {
		if strings.HasPrefix(b, id) || b+"." == id {
			return true
		}
	}
	return false
}

func cargoSection(k string) string {
	sec := k
	if i := strings.IndexAny(sec, "[."); i >= 0 {
		sec = sec[:i]
	}
	return "[" + sec
}

var jvmWeakWords = []string{"skipTests", "maven.test.skip", "testFailureIgnore", "<exclude>", "<excludes>", "exclude '", "exclude \"",
	"enabled = false", "enabled=false", "ignoreFailures", "failIfNoTests", "-DskipTests", "skip>true",
	"excludedGroups", "excludeTags", "includeTags", "<groups>", "<test>", "filter {", "excludeTestsMatching", "includeTestsMatching"}

func checkJVMBuild(p string, b, a []byte) []Violation {
	old := map[string]int{}
	for _, l := range strings.Split(string(normalizeNewlines(b)), "\n") {
		old[strings.TrimSpace(l)]++
	}
	var out []Violation
	for i, l := range strings.Split(string(normalizeNewlines(a)), "\n") {
		t := strings.TrimSpace(l)
		if old[t] > 0 {
			old[t]--
			continue
		}
		for _, w := range jvmWeakWords {
			if strings.Contains(t, w) {
				out = append(out, harnessViolation(p, "build file now skips or excludes tests ("+w+")", i+1, "", t))
				break
			}
		}
	}
	return out
}
