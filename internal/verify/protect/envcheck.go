package protect

import (
	"strings"
)

// Production code that asks whether it runs under a test runner can pass
// tests while doing something else for real users. A probe is matched per
// language, and a variable name only where the line reads the environment
// (os.Getenv, os.environ, process.env, …): the same words inside a string
// that is merely printed or generated are no probe.
var codeProbes = map[string][]string{
	"go":     {"testing.Testing()", `flag.Lookup("test.v")`, `os.Args[0], ".test")`},
	"python": {`"pytest" in sys.modules`, `"unittest" in sys.modules`, `"test" in sys.modules`, `sys.modules.get("pytest")`, `"pytest" in sys.argv[0]`},
	"js":     {`NODE_ENV === "test"`, `NODE_ENV == "test"`, "import.meta.env.VITEST", "import.meta.vitest"},
	"rust":   {"cfg!(test)"},
	"java":   {`Class.forName("org.junit`, `Class.forName("junit.framework`, `getProperty("surefire`},
}

// envReaders are how each language reads an environment variable.
var envReaders = map[string][]string{
	"go":     {"os.Getenv(", "os.LookupEnv(", "syscall.Getenv("},
	"python": {"os.environ", "os.getenv(", "environ.get(", "environ["},
	"js":     {"process.env"},
	"rust":   {"env::var", "env::var_os", "option_env!(", "env!("},
	"java":   {"System.getenv(", "System.getProperty("},
}

// testEnvNames are variables only a test runner sets.
var testEnvNames = []string{"PYTEST_CURRENT_TEST", "PYTEST_VERSION", "PYTEST_XDIST_WORKER", "JEST_WORKER_ID", "VITEST", "JEST", "RUST_TEST_THREADS", "NODE_ENV"}

// probeOf returns the probe a line uses, or "".
func probeOf(lang, line string) string {
	if lang == "typescript" || lang == "tsx" || lang == "javascript" {
		lang = "js"
	}
	for _, probe := range codeProbes[lang] {
		if strings.Contains(line, probe) {
			return probe
		}
	}
	for _, reader := range envReaders[lang] {
		if !strings.Contains(line, reader) {
			continue
		}
		for _, name := range testEnvNames {
			if name == "NODE_ENV" && !strings.Contains(line, `"test"`) {
				continue
			}
			if containsWord(line, name) {
				return name
			}
		}
	}
	return ""
}

// containsWord reports whether name occurs in line as a whole identifier.
func containsWord(line, name string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !isIdent(line[start-1])) && (end == len(line) || !isIdent(line[end])) {
			return true
		}
		i = end
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
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
		if probe := probeOf(lang, t); probe != "" {
			out = append(out, Violation{File: p, Line: i + 1, Kind: TestEnvCheck, After: strings.TrimSpace(l),
				Message: "production code now checks whether it runs under a test runner (" + probe + "); behave the same under test; fix the code, not the tests"})
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
