// Package runner is the one home of what chanto knows about each test
// runner (go test, go vet, pytest, unittest, cargo, jest, vitest, node
// --test, mocha, npm scripts, make, configured checks): how an invocation
// is recognised and how much of the suite it runs, whether one run covers
// another, how a run is narrowed to files, packages or test names, how its
// output and reports are read, what "no tests" looks like, what it
// downloads when dependencies are missing, and which files it collects.
//
// Each runner is one file holding one value that implements Runner and
// registers itself; the conformance test in this package runs every
// registered runner over the argv cases and recorded outputs under
// testdata/. Adding a runner is a new file plus its cases.
package runner

import (
	"maps"
	"regexp"
	"slices"

	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// Name identifies a runner; checks, events and the JSON report carry it.
type Name string

// The runners chanto knows.
const (
	Go       Name = "go"
	GoVet    Name = "go-vet"
	Pytest   Name = "pytest"
	Unittest Name = "unittest"
	Cargo    Name = "cargo"
	Jest     Name = "jest"
	Vitest   Name = "vitest"
	NodeTest Name = "node-test"
	Mocha    Name = "mocha"
	NPM      Name = "npm" // npm test with a runner chanto does not know
	Make     Name = "make"
	Custom   Name = "custom" // configured by the user; always run in full
)

// Runner is one test runner. Methods take argv (literal words, quotes
// removed) and never run anything; Collector reads a run the caller made.
type Runner interface {
	// Name is the runner's identity.
	Name() Name
	// Recognize reads argv: ok is false when args does not invoke this
	// runner. The invocation says whether the run is plain (no filter),
	// and which targets it names or whether it runs the whole suite.
	Recognize(args []string) (inv Invocation, ok bool)
	// StandsFor reports whether a run of this runner can stand in for a
	// check of runner check ("npm test" for the jest check it launches).
	StandsFor(check Name) bool
	// TargetCovers reports whether the target have (as Invocation.Targets
	// names it) includes the target want: a folder its files, a package
	// pattern its packages.
	TargetCovers(have, want string) bool
	// FullOnly is zero for a runner whose runs selection may narrow, else
	// the reason its checks always run in full.
	FullOnly() scope.Reason
	// NarrowTargets returns args running only targets (test files,
	// packages, crates), in place of what args named; dir is the folder
	// the command runs in. ok is false when the runner cannot.
	NarrowTargets(dir string, args, targets []string) (out []string, ok bool)
	// Related returns args running the tests related to the changed
	// files by the runner's own module graph (jest --findRelatedTests,
	// vitest related); out is nil when it cannot, and why says why.
	Related(dir string, args, files []string) (out []string, why scope.Reason)
	// NarrowTests returns args running only the named tests (failures as
	// this runner's Collector reported them). ok is false when a failure
	// is not a test (a build error) or the runner cannot filter by name.
	NarrowTests(dir string, args []string, tests []Failure) (out []string, ok bool)
	// Collector returns the reader of one run: reportDir is where report
	// files may be written ("" for none), dir the folder the run is in.
	Collector(reportDir, dir string) Collector
	// NoTests reports a finished run (no failures named) that collected
	// no tests: its exit code, test count (-1 when unknown) and output.
	NoTests(exit, tests int, output string) bool
	// NoTestsText is how the evidence says it: "collected no tests".
	NoTestsText() string
	// Fallback reads a narrowed run's output: ok when it could not really
	// run (a path it named is missing, nothing was collected), so the
	// full suite runs instead, with reason.
	Fallback(exit int, output []byte) (reason scope.Reason, ok bool)
	// Env are the variables its runs get (no watch mode, no colour).
	Env() []string
	// Download is how its missing dependencies are fetched.
	Download() Download
	// Collects lists the globs (doublestar, relative to the project) of
	// the files the runner collects tests from by default, for test
	// protection and for resolving what a run of folders covers.
	Collects() []string
}

// Download is a runner's dependency fetch: the command that downloads
// without running project code, and how a run's output says the network
// was missing. A zero Download means the runner downloads nothing itself.
type Download struct {
	// Args is the fetch command ("go mod download"); nil for none.
	Args []string
	// Lacked reports whether a failed run's output is the package
	// manager failing to download a dependency.
	Lacked func(output string) bool
	// Line matches the output line that names the network error.
	Line *regexp.Regexp
}

// Reasons Fallback gives; the caller runs the full suite and shows one.
var (
	FallbackMissing = scope.Because(scope.FallbackMissing)
	FallbackNoTests = scope.Because(scope.FallbackNoTests)
)

// fallbackOutputCap is how much of the end of the output Fallback reads.
const fallbackOutputCap = 1 << 20

var registry = map[Name]Runner{}

// register adds r; each runner's file calls it from init.
func register(r Runner) {
	if _, dup := registry[r.Name()]; dup {
		panic("runner: " + string(r.Name()) + " registered twice")
	}
	registry[r.Name()] = r
}

// For returns the runner named n; an unknown name gets the opaque runner
// of configured checks.
func For(n Name) Runner {
	if r, ok := registry[n]; ok {
		return r
	}
	return registry[Custom]
}

// All returns every registered runner, by name.
func All() []Runner {
	out := make([]Runner, 0, len(registry))
	for _, n := range slices.Sorted(maps.Keys(registry)) {
		out = append(out, registry[n])
	}
	return out
}

// Recognize finds the runner args invoke; ok is false for none. Runners
// recognise disjoint commands, so the order does not matter.
func Recognize(args []string) (Invocation, bool) {
	if len(args) == 0 {
		return Invocation{}, false
	}
	for _, r := range All() {
		if inv, ok := r.Recognize(args); ok {
			return inv, true
		}
	}
	return Invocation{}, false
}
