package selecttest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"

	"github.com/chanto-dev/chanto/internal/config"
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
// files are kept, kind "go" or "py".
func testTimesFile(kind, dir string) string {
	abs, _ := filepath.Abs(dir)
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(config.Home(), "cache", "selecttest", kind+"times-"+hex.EncodeToString(sum[:8])+".json")
}

// RecordGoTestTimes remembers how long each package's tests took in a run
// of go test in dir, from its output. Only runs of whole packages (no -run
// pattern) should be recorded.
func RecordGoTestTimes(dir, output string) {
	ms := goPackageLine.FindAllStringSubmatch(output, -1)
	if len(ms) == 0 {
		return
	}
	times := map[string]float64{}
	for _, m := range ms {
		if secs, err := strconv.ParseFloat(m[2], 64); err == nil {
			times[m[1]] = secs
		}
	}
	recordTimes(testTimesFile("go", dir), times)
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

// goTestTimes returns the recorded test times of dir's packages.
func goTestTimes(dir string) map[string]float64 {
	testTimesMu.Lock()
	defer testTimesMu.Unlock()
	return readTimes(testTimesFile("go", dir))
}

func readTimes(file string) map[string]float64 {
	times := map[string]float64{}
	if data, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(data, &times)
	}
	return times
}
