package runner

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// nodeTest is `node --test`: results from its TAP or spec output. It
// has no related-test mode, and its runs never stand in for a check (the
// npm script that runs it may do more).
type nodeTest struct{ base }

var _ Runner = nodeTest{}

func init() {
	register(nodeTest{base{
		name:     NodeTest,
		targets:  Paths,
		flags:    Flags{Safe: []string{"--test"}},
		fullOnly: scope.For(scope.NoRelatedMode, "node's test runner"),
		env:      jsEnv,
		collects: []string{"**/*.test.?(c|m)js", "**/*-test.?(c|m)js", "**/*_test.?(c|m)js", "**/test-*.?(c|m)js", "**/test.?(c|m)js", "**/test/**/*.?(c|m)js"},
	}})
}

func (n nodeTest) Recognize(args []string) (Invocation, bool) {
	if path.Base(at(args, 0)) != "node" || !slices.ContainsFunc(args[1:], func(a string) bool { return a == "--test" || strings.HasPrefix(a, "--test=") }) {
		return Invocation{}, false
	}
	return n.read(args, 1), true
}

func (nodeTest) StandsFor(Name) bool { return false }

func (nodeTest) Collector(string, string) Collector { return &lineParser{parse: parseTAP} }

var (
	tapNotOK = regexp.MustCompile(`^\s*not ok \d+ - (.+?)(?:\s+#.*)?$`)
	tapTests = regexp.MustCompile(`^# tests (\d+)$`)
	// specFail is node's spec reporter failure line.
	specFail = regexp.MustCompile(`^\s*✖ (.+?)(?: \([\d.]+m?s\))?$`)
)

func parseTAP(line string, o *Outcome) {
	if m := tapNotOK.FindStringSubmatch(line); m != nil {
		o.Failures = appendUnique(o.Failures, Failure{ID: m[1], Name: m[1]})
	} else if m := tapTests.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		o.Tests = max(o.Tests, 0) + n
	} else if m := specFail.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "failing tests") {
		o.Failures = appendUnique(o.Failures, Failure{ID: m[1], Name: m[1]})
	} else if strings.HasPrefix(line, "ℹ tests ") {
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "ℹ tests ")))
		o.Tests = max(o.Tests, 0) + n
	}
}
