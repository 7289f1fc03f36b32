package selecttest

import (
	"bytes"
	"encoding/json"
	"regexp"

	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// Reasons FallbackReason gives; the caller runs the full suite and shows one.
const (
	FallbackMissing   = "the related run named a path or package that was not found"
	FallbackNoTests   = "the related run collected no tests"
	fallbackOutputCap = 1 << 20
)

type fallbackRule struct {
	re     *regexp.Regexp
	reason string
}

var fallbackRules = map[detect.Runner][]fallbackRule{
	detect.Pytest: {
		{regexp.MustCompile(`ERROR: (file or directory|module or package) not found`), FallbackMissing},
		{regexp.MustCompile(`(?m)(collected 0 items|no tests ran in)`), FallbackNoTests},
	},
	detect.Unittest: {
		{regexp.MustCompile(`(ModuleNotFoundError|ImportError): [^\n]*\n(?s:.*)Ran \d+ tests?`), FallbackMissing},
		{regexp.MustCompile(`(?m)^(Ran 0 tests|NO TESTS RAN)`), FallbackNoTests},
	},
	detect.Go: {
		{regexp.MustCompile(`(matched no packages|no Go files in|cannot find package|directory not found|is not in std|no required module provides package)`), FallbackMissing},
	},
	detect.Cargo: {
		{regexp.MustCompile("(did not match any packages|package\\(s\\) `[^`]*` not found|no test target named|error: package ID specification)"), FallbackMissing},
	},
	detect.Jest: {
		{regexp.MustCompile(`No tests found`), FallbackNoTests},
	},
	detect.Vitest: {
		{regexp.MustCompile(`No test files found`), FallbackNoTests},
	},
}

var (
	goNoTestFiles = regexp.MustCompile(`(?m)^\?\s+\S+\s+\[no test files\]$`)
	goRanPackage  = regexp.MustCompile(`(?m)^(ok|FAIL|---|panic|=== RUN)`)
	cargoRanZero  = regexp.MustCompile(`(?m)^running (\d+) tests?$`)
)

// FallbackReason inspects the output of a narrowed run (Selection.Full
// false) and reports whether it could not really run: a path or package it
// named was missing, or it collected no tests. Then the caller runs the
// full suite instead (DESIGN §5), with the returned reason in the
// evidence. A narrowed run that ran tests and failed is a real failure and
// returns false. Only the last MB of output is examined.
func FallbackReason(runner detect.Runner, exitCode int, output []byte) (string, bool) {
	if len(output) > fallbackOutputCap {
		output = output[len(output)-fallbackOutputCap:]
	}
	if runner == detect.Go {
		output = goJSONText(output)
	}
	for _, r := range fallbackRules[runner] {
		if r.re.Match(output) {
			return r.reason, true
		}
	}
	switch runner {
	case detect.Pytest:
		if exitCode == 5 {
			return FallbackNoTests, true
		}
		if exitCode == 4 {
			return FallbackMissing, true
		}
	case detect.Go:
		if exitCode == 0 && goNoTestFiles.Match(output) && !goRanPackage.Match(output) {
			return FallbackNoTests, true
		}
	case detect.Cargo:
		if exitCode == 0 && allZero(cargoRanZero.FindAllSubmatch(output, -1)) {
			return FallbackNoTests, true
		}
	}
	return "", false
}

// goJSONText turns `go test -json` output back into the text it carries;
// other output is returned unchanged.
func goJSONText(out []byte) []byte {
	if !bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) {
		return out
	}
	var text bytes.Buffer
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev struct{ Output string }
		if json.Unmarshal(line, &ev) == nil {
			text.WriteString(ev.Output)
		} else {
			text.Write(line)
			text.WriteByte('\n')
		}
	}
	return text.Bytes()
}

func allZero(ms [][][]byte) bool {
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		if !bytes.Equal(m[1], []byte("0")) {
			return false
		}
	}
	return true
}
