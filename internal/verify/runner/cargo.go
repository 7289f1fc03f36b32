package runner

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// cargo is `cargo test`: crates (-p) as targets, results from its text.
type cargo struct{ base }

var _ Runner = cargo{}

func init() {
	register(cargo{base{
		name:    Cargo,
		targets: Crates,
		flags: Flags{
			Valued:  []string{"-p", "--package", "--test", "--bench", "--example", "--bin", "--features", "-F", "--target", "--target-dir", "-j", "--jobs", "--manifest-path", "--profile", "--color", "--exclude"},
			Filters: []string{"--test", "--bench", "--example", "--bin", "--lib", "--doc", "--tests", "--bins", "--examples", "--benches", "--exclude", "--no-run"},
			Safe:    []string{"-p", "--package", "--workspace", "--all", "-q", "--quiet", "-v", "--verbose", "--release", "--features", "-F", "--all-features", "--no-default-features", "--target", "--target-dir", "-j", "--jobs", "--manifest-path", "--profile", "--color", "--locked", "--offline", "--frozen", "--all-targets", "--no-fail-fast"},
		},
		env:      []string{"CARGO_TERM_COLOR=never"},
		collects: []string{"tests/**/*.rs", "src/**/*.rs", "**/tests/**/*.rs"},
		fallback: []fallbackRule{
			{regexp.MustCompile("(did not match any packages|package\\(s\\) `[^`]*` not found|no test target named|error: package ID specification)"), FallbackMissing},
		},
	}})
}

func (c cargo) Recognize(args []string) (Invocation, bool) {
	if path.Base(at(args, 0)) != "cargo" || at(args, 1) != "test" {
		return Invocation{}, false
	}
	return c.read(args, 2), true
}

var (
	cargoRanZero = regexp.MustCompile(`(?m)^running (\d+) tests?$`)
	// cargoFetchFailed and cargoNoNetwork: cargo's "failed to get `x` as
	// a dependency" (or "failed to download …") caused by a network error.
	cargoFetchFailed = regexp.MustCompile(`(?m)^error: failed to (?:get|download|load source for|query replaced source|update)`)
	cargoNoNetwork   = regexp.MustCompile(`(?i)could(?: not|n't) resolve host|failed to connect to|connection refused|network (?:failure|is unreachable)|spurious network error`)
)

func (c cargo) Fallback(exit int, output []byte) (scope.Reason, bool) {
	output = lastMB(output)
	if why, ok := c.base.Fallback(exit, output); ok {
		return why, ok
	}
	if exit == 0 && allZero(cargoRanZero.FindAllSubmatch(output, -1)) {
		return FallbackNoTests, true
	}
	return scope.Reason{}, false
}

func (cargo) Download() Download {
	return Download{
		Args:   []string{"cargo", "fetch"},
		Lacked: func(out string) bool { return cargoFetchFailed.MatchString(out) && cargoNoNetwork.MatchString(out) },
		Line:   cargoNoNetwork,
	}
}

// NarrowTargets tests the crates with -p, right after the test
// subcommand, dropping workspace-wide flags.
func (cargo) NarrowTargets(_ string, args, crates []string) ([]string, bool) {
	var extra []string
	for _, n := range crates {
		extra = append(extra, "-p", n)
	}
	return CargoArgs(args, extra), len(crates) > 0
}

// CargoArgs puts extra flags right after the test subcommand and drops
// workspace-wide flags.
func CargoArgs(args, extra []string) []string {
	var out []string
	inserted := false
	for _, a := range args {
		if a == "--workspace" || a == "--all" {
			continue
		}
		out = append(out, a)
		if a == "test" && !inserted {
			out = append(out, extra...)
			inserted = true
		}
	}
	if !inserted {
		out = append(out, extra...)
	}
	return out
}

// NarrowTests passes the failing tests' paths to the test harness as
// exact filters; a build failure or a crashed binary names no test.
func (cargo) NarrowTests(_ string, args []string, tests []Failure) ([]string, bool) {
	out := append([]string(nil), args...)
	if !slices.Contains(out, "--") {
		out = append(out, "--")
	}
	out = append(out, "--exact")
	for _, f := range tests {
		if strings.HasSuffix(f.ID, "]") || strings.ContainsAny(f.Name, " (") {
			return nil, false
		}
		out = append(out, f.Name)
	}
	return out, len(tests) > 0
}

func (cargo) Collector(string, string) Collector { return &cargoText{lineParser{parse: parseCargo}} }

// cargoText reads cargo test's text; it adds --no-fail-fast so that one
// failing test binary does not hide the failures of the next (an already
// failing crate would otherwise mask new failures elsewhere). Checks run
// with stderr on the stdout pipe, so the "Running tests/x.rs (…)" lines
// cargo writes to stderr arrive just before that binary's results and
// scope its IDs (test_version::test_gt rather than a bare test_gt that
// another binary may share).
type cargoText struct{ lineParser }

func (c *cargoText) Args(user []string) []string {
	out := append([]string(nil), user...)
	for i, a := range out {
		if a == "--" {
			break
		}
		if a == "test" && !slices.Contains(out, "--no-fail-fast") {
			return append(out[:i+1], append([]string{"--no-fail-fast"}, out[i+1:]...)...)
		}
	}
	return out
}

func (c *cargoText) Finish(res run.Result) Outcome {
	o := c.lineParser.Finish(res)
	// Test binaries finish in parallel: sort so runs read the same.
	sort.SliceStable(o.Failures, func(i, j int) bool { return o.Failures[i].ID < o.Failures[j].ID })
	return o
}

var (
	cargoFailed  = regexp.MustCompile(`^test (.+) \.\.\. FAILED$`)
	cargoPassed  = regexp.MustCompile(`^test (.+) \.\.\. ok$`)
	cargoBinary  = regexp.MustCompile(`^\s*(?:Running (?:unittests |tests/)?\S+ \((?:.*/)?([^/)]+?)(?:-[0-9a-f]{16})?\)|Doc-tests (\S+))$`)
	cargoRunning = regexp.MustCompile(`^running (\d+) tests?$`)
	cargoBuild   = regexp.MustCompile("^error: could not compile `([^`]+)`")
	// cargoCrash is cargo's word on a test binary killed by a signal
	// (a stack overflow, an abort): no "test x ... FAILED" line names it.
	cargoCrash = regexp.MustCompile("process didn't exit successfully: `(?:[^`\\s]*/)?([^`/\\s]+?)(?:-[0-9a-f]{16})?(?:\\s[^`]*)?` \\(signal: (\\d+)(?:, (\\w+))?")
)

// parseCargo names failures by test binary (crate or integration test) and
// test path; the binary comes from the "Running" line before its tests.
func parseCargo(line string, o *Outcome) {
	line = strings.TrimRight(line, "\r")
	if m := cargoBinary.FindStringSubmatch(line); m != nil {
		o.scope = m[1] + m[2]
	} else if m := cargoFailed.FindStringSubmatch(line); m != nil {
		id := m[1]
		if o.scope != "" {
			id = o.scope + "::" + m[1]
		}
		o.Failures = appendUnique(o.Failures, Failure{ID: id, Name: m[1]})
	} else if m := cargoPassed.FindStringSubmatch(line); m != nil {
		id := m[1]
		if o.scope != "" {
			id = o.scope + "::" + m[1]
		}
		o.Passed = append(o.Passed, Failure{ID: id, Name: m[1]})
	} else if m := cargoRunning.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		o.Tests = max(o.Tests, 0) + n
	} else if m := cargoBuild.FindStringSubmatch(line); m != nil {
		name := m[1] + " [build failed]"
		o.Failures = appendUnique(o.Failures, Failure{ID: name, Name: name})
	} else if m := cargoCrash.FindStringSubmatch(line); m != nil {
		sig := "signal " + m[2]
		if m[3] != "" {
			sig = m[3]
		}
		o.Failures = appendUnique(o.Failures, Failure{ID: m[1] + " [crashed]", Name: m[1] + " (crashed: " + sig + ")"})
	}
}
