package selecttest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// A -run pattern saves only the time the left-out tests would have run:
// the test binaries are built and linked all the same. It is used only
// when the selected packages' tests are known to take long enough for
// that to matter; go test's own package lines ("ok  pkg  3.2s") from the
// gate's earlier runs of whole packages say how long.

// MinRunPatternSecs is the least test time, summed over the selected
// packages as earlier whole runs measured it, for which a -run pattern is
// used. Benchmarks set it to 0 to judge every pattern.
var MinRunPatternSecs = 2.0

// goPackageLine is go test's summary line of one package.
var goPackageLine = regexp.MustCompile(`(?m)^(?:ok|FAIL)\s+(\S+)\s+([0-9]+(?:\.[0-9]+)?)s`)

var testTimesMu sync.Mutex

// testTimesFile is where the recorded test times of dir's packages or
// files are kept, kind "go" or "py", for runs with the flags in extra.
func testTimesFile(kind, dir, extra string) string {
	abs, _ := filepath.Abs(dir)
	if extra != "" {
		abs += "\x00" + extra
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(config.Home(), "cache", "selecttest", kind+"times-"+hex.EncodeToString(sum[:8])+".json")
}

// goTimesPlace is the record of check c's go test times: per folder and
// per the flags the check and GOFLAGS give go test (-short, -race, -count
// change how long the same packages take), so a check's record is of
// runs like its own.
func goTimesPlace(c detect.Check) string {
	var flags []string
	for _, a := range c.Args {
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
		}
	}
	return testTimesFile("go", c.Dir, strings.Join(flags, " ")+"\x00"+os.Getenv("GOFLAGS"))
}

// RecordGoTestTimes remembers how long each package's tests took in a run
// of check c, from its output. Only runs of whole packages (no -run
// pattern) should be recorded. A run that go test's -timeout stopped
// records no failed package: its time is the limit's, not the tests'.
func RecordGoTestTimes(c detect.Check, output string) {
	ms := goPackageLine.FindAllStringSubmatch(output, -1)
	if len(ms) == 0 {
		return
	}
	stopped := strings.Contains(output, "panic: test timed out after ") || strings.Contains(output, "*** Test killed")
	times := map[string]float64{}
	for _, m := range ms {
		if stopped && strings.HasPrefix(m[0], "FAIL") {
			continue
		}
		if secs, err := strconv.ParseFloat(m[2], 64); err == nil {
			times[m[1]] = secs
		}
	}
	recordTimes(goTimesPlace(c), times)
}

// recordTimes merges times into the record in file; a record that cannot
// be written only costs a later selection its narrowing.
func recordTimes(file string, times map[string]float64) {
	if len(times) == 0 {
		return
	}
	testTimesMu.Lock()
	defer testTimesMu.Unlock()
	all := readTimes(file)
	for k, v := range times {
		all[k] = v
	}
	data, err := json.Marshal(all)
	if err != nil || os.MkdirAll(filepath.Dir(file), 0o755) != nil {
		return
	}
	tmp := file + ".tmp" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, data, 0o644) == nil {
		_ = os.Rename(tmp, file)
	}
}

// GoTestTimes returns the recorded test times of check c's packages, in
// seconds by import path.
func GoTestTimes(c detect.Check) map[string]float64 {
	testTimesMu.Lock()
	defer testTimesMu.Unlock()
	return readTimes(goTimesPlace(c))
}

func readTimes(file string) map[string]float64 {
	times := map[string]float64{}
	if data, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(data, &times)
	}
	return times
}
