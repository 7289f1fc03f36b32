package selecttest

import (
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/runner"
)

// Running only some test functions of a file saves only the time the
// left-out ones would have run: Python starts, and every selected file is
// imported and collected, all the same. So, as with go test's -run
// pattern, pytest runs below the file only when the selected files' tests
// are known to take long enough for that to matter; the JUnit report's
// test times from the gate's earlier runs of whole files say how long.

// MinPyNodeSecs is the least test time, summed over the selected test
// files as earlier whole runs measured it, for which pytest runs node ids
// below the file. Benchmarks and tests set it to 0 to judge every
// narrowing.
var MinPyNodeSecs = 2.0

// RecordPytestTimes remembers how long each test file's tests took in a
// pytest run in dir: secs are the report's times by failure ID
// ("tests.test_a.TestK::test_x"). targets are the run's: a file that ran
// as node ids ran only some of its tests, and is not recorded.
func RecordPytestTimes(dir string, secs map[string]float64, targets []string) {
	partial := map[string]bool{}
	for _, t := range targets {
		if file, _, ok := strings.Cut(t, "::"); ok {
			partial[file] = true
		}
	}
	byClass := map[string]float64{}
	for id, s := range secs {
		if cls, _, ok := strings.Cut(id, "::"); ok && cls != "" {
			byClass[cls] += s
		}
	}
	times := map[string]float64{}
	for cls, s := range byClass {
		if file, _, ok := runner.PytestFile(dir, cls); ok && !partial[file] {
			times[file] += s
		}
	}
	recordTimes(testTimesFile("py", dir, ""), times)
}

// pyNodesPay reports whether running node ids below the selected files
// can pay: their tests took MinPyNodeSecs or more when last run whole.
func pyNodesPay(dir string, files []string) bool {
	return MinPyNodeSecs <= 0 || pytestSecs(dir, files) >= MinPyNodeSecs
}

// pytestSecs is the recorded test time of files, summed (0 for a file
// never run whole).
func pytestSecs(dir string, files []string) float64 {
	testTimesMu.Lock()
	times := readTimes(testTimesFile("py", dir, ""))
	testTimesMu.Unlock()
	sum := 0.0
	for _, f := range files {
		sum += times[f]
	}
	return sum
}
