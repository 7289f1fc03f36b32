package protect

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// testCommand finds the test runner a command calls, through env
// assignments and wrappers (npx, poetry run, python -m, coverage run -m),
// and returns it with the words after it.
func testCommand(args []string) (string, []string, bool) {
	for len(args) > 0 {
		w := path.Base(args[0])
		switch {
		case strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-"):
			args = args[1:]
		case w == "env" || w == "sudo" || w == "time" || w == "nice" || w == "xvfb-run" || w == "cross-env" || w == "npx" || w == "bunx" || w == "exec":
			args = dropFlags(args[1:])
		case (w == "poetry" || w == "uv" || w == "pipenv" || w == "hatch" || w == "pdm" || w == "rye" || w == "bundle" || w == "pnpm" || w == "yarn") &&
			len(args) > 1 && (args[1] == "run" || args[1] == "exec" || args[1] == "dlx") && !(w == "pnpm" || w == "yarn") ||
			(w == "pnpm" || w == "yarn") && len(args) > 1 && (args[1] == "exec" || args[1] == "dlx"):
			args = dropFlags(args[2:])
		case strings.HasPrefix(w, "python") || w == "py" || w == "coverage":
			i := indexOf(args, "-m")
			if i < 0 || i+1 >= len(args) {
				return "", nil, false
			}
			args = args[i+1:]
			if path.Base(args[0]) == "unittest" {
				return "unittest", args[1:], true
			}
		default:
			return runnerTool(w, args[1:])
		}
	}
	return "", nil, false
}

func dropFlags(args []string) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if wrapperValueFlags[args[0]] && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	return args
}

// wrapperValueFlags are options of uv, poetry, hatch, pnpm and npx that
// take a value, so the word after them is not the command.
var wrapperValueFlags = map[string]bool{"--group": true, "--only-group": true, "--with": true, "--python": true, "-p": true,
	"--extra": true, "--package": true, "--project": true, "--directory": true, "--env-file": true, "--from": true,
	"-C": true, "--cwd": true, "--filter": true, "-F": true, "-e": true, "--env": true, "--dir": true}

func indexOf(args []string, w string) int {
	for i, a := range args {
		if a == w {
			return i
		}
	}
	return -1
}

// runnerTool names the runner of a command word, with its arguments.
func runnerTool(w string, rest []string) (string, []string, bool) {
	first := ""
	if len(rest) > 0 {
		first = rest[0]
	}
	switch w {
	case "go", "richgo", "grc":
		if first == "test" {
			return "go test", rest[1:], true
		}
	case "gotestsum":
		if i := indexOf(rest, "--"); i >= 0 {
			return "go test", rest[i+1:], true
		}
		return "go test", nil, true
	case "pytest", "py.test":
		return "pytest", rest, true
	case "tox", "nox", "jest", "mocha", "ctest", "phpunit", "rspec", "bats", "ava":
		return w, rest, true
	case "vitest":
		if first == "run" || first == "watch" || first == "dev" {
			rest = rest[1:]
		}
		return "vitest", rest, true
	case "react-scripts", "craco", "playwright":
		if first == "test" {
			return w, rest[1:], true
		}
	case "cargo":
		if first == "test" || first == "nextest" {
			rest = rest[1:]
			if len(rest) > 0 && rest[0] == "run" {
				rest = rest[1:]
			}
			return "cargo test", rest, true
		}
	case "npm", "yarn", "pnpm", "bun":
		rest = dropFlags(rest)
		if len(rest) == 0 {
			return "", nil, false
		}
		if rest[0] == "test" || rest[0] == "t" {
			return "npm test", rest[1:], true
		}
		if rest[0] == "run" && len(rest) > 1 && strings.HasPrefix(rest[1], "test") {
			return "npm run " + rest[1], rest[2:], true
		}
	case "make", "just", "gmake":
		for _, a := range rest {
			if a == "check" || !strings.HasPrefix(a, "-") && strings.Contains(a, "test") {
				return w, rest, true
			}
		}
	case "mvn", "mvnw", "gradle", "gradlew":
		for _, a := range rest {
			switch a {
			case "test", "verify", "install", "package", "check", "build", "integration-test":
				return strings.TrimSuffix(w, "w"), rest, true
			}
		}
	}
	return "", nil, false
}

// narrowingFlags are, per runner, the options that run fewer tests or let
// failing ones pass.
var narrowingFlags = map[string][]string{
	"go test":    {"-run", "-skip", "-short", "-list"},
	"pytest":     {"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "--lf", "--last-failed", "--co", "--collect-only", "-p", "--sw", "--stepwise", "--noconftest", "--runxfail", "--continue-on-collection-errors"},
	"unittest":   {"-k"},
	"jest":       {"-t", "--testNamePattern", "--testPathPattern", "--testPathPatterns", "--testPathIgnorePatterns", "--passWithNoTests", "-o", "--onlyChanged", "--changedSince", "--findRelatedTests", "--shard", "--selectProjects", "--ignoreProjects"},
	"vitest":     {"-t", "--testNamePattern", "--passWithNoTests", "--exclude", "--changed", "--related", "--shard", "--project", "--dir", "--root", "--allowOnly"},
	"mocha":      {"--grep", "-g", "--fgrep", "-f", "--invert", "-i", "--exclude", "--ignore"},
	"cargo test": {"--skip", "--exact", "--lib", "--bins", "--bin", "--test", "--doc", "--no-run", "--exclude", "-p", "--package", "--ignored"},
	"mvn":        {"-Dtest", "-DskipTests", "-Dmaven.test.skip", "-Dsurefire.skip", "-Dmaven.test.failure.ignore", "-Dtest.failure.ignore", "-fn", "--fail-never", "-pl", "--projects", "-Dgroups", "-DexcludedGroups", "-Dsurefire.failIfNoSpecifiedTests"},
	"gradle":     {"--tests", "-x", "--exclude-task"},
	"tox":        {"-e"},
	"nox":        {"-s", "--session", "-k", "--sessions"},
	"ctest":      {"-R", "-E", "-L", "-LE", "--tests-regex", "--exclude-regex"},
	"make":       {"-i", "--ignore-errors", "-k"},
}

// subsetTools take positional words that pick tests (paths, packages,
// filters); others take goals or targets.
var subsetTools = map[string]bool{"go test": true, "pytest": true, "unittest": true, "jest": true, "vitest": true, "mocha": true,
	"cargo test": true, "npm test": true, "react-scripts": true, "craco": true, "playwright": true, "ctest": true}

// booleanFlags take no value, so a word after them is positional.
var booleanFlags = map[string]bool{"-v": true, "-vv": true, "-q": true, "-x": true, "-s": true, "-race": true, "-cover": true,
	"-failfast": true, "--ci": true, "--verbose": true, "--quiet": true, "--all": true, "--locked": true, "--frozen": true,
	"--offline": true, "--release": true, "--workspace": true, "--all-features": true, "--no-fail-fast": true, "--recursive": true,
	"--coverage": true, "--silent": true, "-ra": true, "--runInBand": true, "-i": true, "--strict-markers": true, "--color": true,
	"--all-targets": true, "--lib": true, "--bins": true, "--tests": true, "--benches": true, "--examples": true, "--doc": true,
	"--no-run": true, "--nocapture": true, "--show-output": true, "--include-ignored": true, "--ignored": true, "--exact": true,
	"-short": true, "-json": true, "--passWithNoTests": true, "--run": true, "-B": true, "--batch-mode": true, "-ntp": true,
	"--no-transfer-progress": true, "--no-cache": true, "--forceExit": true, "--detectOpenHandles": true, "--lf": true,
	"--last-failed": true, "--co": true, "--collect-only": true, "--sw": true, "--stepwise": true, "--noconftest": true}

type parsedArgs struct {
	flags map[string]string // flag → value ("" for none)
	pos   []string
}

func parseArgs(tool string, args []string) parsedArgs {
	pa := parsedArgs{flags: map[string]string{}}
	narrow := map[string]bool{}
	for _, f := range narrowingFlags[toolFamily(tool)] {
		narrow[f] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pa.pos = append(pa.pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		if !hasVal && !booleanFlags[a] && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") &&
			(narrow[a] || !subsetTools[tool] || !looksLikePath(args[i+1])) {
			val = args[i+1]
			i++
		}
		pa.flags[name] = val
	}
	return pa
}

func looksLikePath(s string) bool {
	return strings.ContainsAny(s, "/:") || strings.HasSuffix(s, ".py") || strings.HasSuffix(s, ".ts") || strings.HasSuffix(s, ".js") || s == "."
}

// toolFamily maps npm test and friends onto the runner whose flags they
// pass through.
func toolFamily(tool string) string {
	switch {
	case strings.HasPrefix(tool, "npm "):
		return "jest"
	case tool == "react-scripts" || tool == "craco":
		return "jest"
	case tool == "just" || tool == "gmake":
		return "make"
	}
	return tool
}

// weakerRun says how cur runs fewer tests than base or cannot fail, ""
// when it does not.
func weakerRun(b, c testRun) string {
	if c.masked != "" && b.masked == "" {
		return "its failure is ignored (" + c.masked + ")"
	}
	bp, cp := parseArgs(b.tool, b.args), parseArgs(c.tool, c.args)
	for _, f := range narrowingFlags[toolFamily(c.tool)] {
		for name, v := range cp.flags {
			if name != f && !(len(f) == 2 && f[1] != '-' && strings.HasPrefix(name, f) && len(name) > 2 && name[1] != '-' && f != "-p" && f != "-i") {
				continue
			}
			if old, had := bp.flags[name]; !had || old != v {
				return "it gained " + strings.TrimSpace(name+" "+v)
			}
		}
	}
	if subsetTools[c.tool] {
		if gone := missing(bp.pos, cp.pos); len(gone) > 0 {
			return "it no longer runs " + strings.Join(gone, " ")
		}
		if len(bp.pos) == 0 && len(cp.pos) > 0 {
			return "it runs only " + strings.Join(cp.pos, " ")
		}
	} else if gone := missing(bp.pos, cp.pos); len(gone) > 0 {
		return "it no longer runs " + strings.Join(gone, " ")
	}
	if bt, ok := threshold(bp); ok {
		if ct, ok := threshold(cp); !ok || ct < bt {
			return fmt.Sprintf("its coverage threshold went from %g to %s", bt, thresholdText(cp))
		}
	}
	return ""
}

// threshold returns a coverage floor given on the command line.
func threshold(pa parsedArgs) (float64, bool) {
	for _, f := range []string{"--cov-fail-under", "--fail-under", "--coverage.thresholds.lines", "--coverageThreshold"} {
		if v, ok := pa.flags[f]; ok {
			if n, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

func thresholdText(pa parsedArgs) string {
	if t, ok := threshold(pa); ok {
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	return "none"
}

// compareRuns reports the test commands of base that cur removed, narrowed
// or neutralised. A command moved to another job or step is matched by
// its runner.
func compareRuns(p string, base, cur []testRun) []Violation {
	used := make([]bool, len(cur))
	match := func(b testRun) int {
		best := -1
		for i, c := range cur {
			if used[i] || toolFamily(c.tool) != toolFamily(b.tool) {
				continue
			}
			if c.where == b.where && weakerRun(b, c) == "" {
				return i
			}
			if best < 0 || c.where == b.where && cur[best].where != b.where {
				best = i
			}
		}
		// Prefer a counterpart that is not weaker, wherever it is.
		for i, c := range cur {
			if !used[i] && toolFamily(c.tool) == toolFamily(b.tool) && weakerRun(b, c) == "" {
				return i
			}
		}
		return best
	}
	var out []Violation
	for _, b := range base {
		i := match(b)
		if i < 0 {
			out = append(out, harnessViolation(p, fmt.Sprintf("test command removed from %s", orWhere(b.where)), b.line, b.text, ""))
			continue
		}
		used[i] = true
		c := cur[i]
		if why := weakerRun(b, c); why != "" {
			out = append(out, harnessViolation(p, fmt.Sprintf("test command in %s: %s", orWhere(c.where), why), c.line, b.text, c.text))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

func orWhere(w string) string {
	if w == "" {
		return "the file"
	}
	return w
}

// checkTestRuns compares the test commands of a harness file.
func checkTestRuns(kind, p string, b, a []byte) []Violation {
	bruns, ok := testRuns(kind, b)
	if !ok || len(bruns) == 0 {
		return nil
	}
	if a == nil {
		return []Violation{harnessViolation(p, "file with test commands deleted", 1, bruns[0].text, "")}
	}
	cruns, ok := testRuns(kind, a)
	if !ok && kind == "package" {
		return nil // detection reports a broken manifest by file and line
	}
	if !ok {
		// A CI definition that no longer parses runs none of its tests.
		return []Violation{harnessViolation(p, "file with test commands no longer parses, so none of them runs", 1, bruns[0].text, "")}
	}
	return compareRuns(p, bruns, cruns)
}

// packageScripts returns the scripts of a package.json, by name.
func packageScripts(src []byte) []script {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(src, &pkg) != nil {
		return nil
	}
	var out []script
	for _, name := range sortedStringKeys(pkg.Scripts) {
		out = append(out, script{where: "scripts." + name, line: lineOf(src, `"`+name+`"`), text: pkg.Scripts[name]})
	}
	return out
}

func sortedStringKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
