package verify

import (
	"strings"
	"time"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// A change that makes a loop never end leaves its test running until go
// test's own -timeout (ten minutes) or the check's time limit ends it,
// and then the check only says it timed out. When every package a go
// test run names has run whole before, fast, chanto sets go test's
// -timeout from those times: twenty times the slowest package's, at
// least a minute, in steps (1m, 2m, 5m) so that the same packages get the
// same flag run after run and go's test cache still replays them. The
// test binary then panics at the limit, naming the test that was running
// with its stack, and that test is the failure, compared with the base
// as any other.

// hangFactor is how many times its recorded time a package's tests may
// take before their binary is stopped.
const hangFactor = 20

// hangSteps are the -timeout values chanto sets; a package whose limit
// would be above the last gets none (go's ten minutes, the check's own
// limit).
var hangSteps = []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute}

// hangGuard is the -timeout for a go test run of sel in c's folder, 0 for
// none: the run or the user sets one already, or a package it runs has no
// recorded time. A full run's packages are the ones selecttest read in
// the module's graph (sel.Packages); without those, none.
func (e *engine) hangGuard(c detect.Check, sel selecttest.Selection) time.Duration {
	if c.Runner != detect.Go || setsTimeout(sel.Args) || setsTimeout(strings.Fields(e.getenv("GOFLAGS"))) {
		return 0
	}
	pkgs := sel.Packages
	if !sel.Full {
		pkgs = nil
		targets := sel.Targets
		if len(targets) == 0 {
			// A baseline's or a re-run's narrowed command names its
			// packages in its words only.
			targets = runner.GoTestPackages(sel.Args)
		}
		module := runner.ModulePath(c.Dir)
		for _, t := range targets {
			rel, ok := strings.CutPrefix(t, "./")
			if t == "." {
				rel, ok = "", true
			}
			if !ok || module == "" || strings.Contains(rel, "...") {
				return 0
			}
			pkgs = append(pkgs, strings.TrimSuffix(module+"/"+rel, "/"))
		}
	}
	if len(pkgs) == 0 {
		return 0
	}
	times := selecttest.GoTestTimes(c)
	slowest := 0.0
	for _, ip := range pkgs {
		secs, ok := times[ip]
		if !ok {
			return 0
		}
		slowest = max(slowest, secs)
	}
	limit := time.Duration(hangFactor * slowest * float64(time.Second))
	for _, step := range hangSteps {
		if limit <= step {
			return step
		}
	}
	return 0
}

// setsTimeout reports whether go test arguments set -timeout, or run
// benchmarks or fuzzing, whose time is theirs to take.
func setsTimeout(args []string) bool {
	return runner.HasGoFlag(args, "timeout", "bench", "fuzz")
}
