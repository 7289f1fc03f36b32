package protect

import (
	"strings"
)

// Production code that asks whether it runs under a test runner can pass
// tests while doing something else for real users.
var testEnvProbes = []string{
	"PYTEST_CURRENT_TEST", "PYTEST_VERSION", "PYTEST_XDIST_WORKER", `"pytest" in sys.modules`, `"unittest" in sys.modules`,
	`"test" in sys.modules`, `sys.modules.get("pytest")`, `"pytest" in sys.argv[0]`,
	"JEST_WORKER_ID", "process.env.VITEST", "import.meta.env.VITEST", "process.env.JEST", `NODE_ENV === "test"`, `NODE_ENV == "test"`,
	"testing.Testing()", `flag.Lookup("test.v")`, `".test")`, "cfg!(test)", "RUST_TEST_THREADS",
	"org.junit", "junit.framework", `"surefire`,
}

// envChecks reports lines added to non-test code that probe for a test
// runner.
func envChecks(p, lang string, b, a []byte) []Violation {
	if a == nil {
		return nil
	}
	old := map[string]int{}
	for _, l := range strings.Split(string(normalizeNewlines(b)), "\n") {
		old[normProbe(l)]++
	}
	var out []Violation
	for i, l := range strings.Split(string(normalizeNewlines(a)), "\n") {
		t := normProbe(l)
		if old[t] > 0 {
			old[t]--
			continue
		}
		if isCommentLine(t) {
			continue
		}
		for _, probe := range testEnvProbes {
			if strings.Contains(t, probe) {
				if lang == "java" && strings.HasPrefix(t, "import ") {
					break
				}
				out = append(out, Violation{File: p, Line: i + 1, Kind: TestEnvCheck, After: strings.TrimSpace(l),
					Message: "production code now checks whether it runs under a test runner (" + probe + "); behave the same under test; fix the code, not the tests"})
				break
			}
		}
	}
	return out
}

// normProbe trims a line and unifies quotes so probes match either style.
func normProbe(l string) string {
	return strings.ReplaceAll(strings.TrimSpace(l), "'", `"`)
}

func isCommentLine(t string) bool {
	return strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*")
}
