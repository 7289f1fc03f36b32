package runner

import (
	"strings"
	"testing"
)

// Only the suffix the collector adds to a test's twins is taken off for
// -t: a title that ends in an issue number keeps it.
func TestJSNamePatternKeepsTheTitle(t *testing.T) {
	tests := []Failure{
		{ID: "a.test.js › no crash on empty input (#1234)", Name: "no crash on empty input (#1234)"},
		{ID: "a.test.js › twin (2nd of that name)", Name: "twin (2nd of that name)"},
	}
	got, ok := jsNamePattern(t.TempDir(), []string{"npx", "vitest", "run"}, tests, "vitest")
	if !ok || !strings.HasPrefix(got, `^(no crash on empty input \(#1234\)|twin)(`) {
		t.Errorf("pattern %q, %v", got, ok)
	}
}
