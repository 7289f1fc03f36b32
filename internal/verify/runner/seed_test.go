package runner

import (
	"os/exec"
	"regexp"
	"testing"
)

// TestJSNarrowAnySeed: the -t pattern of a fast-check test.prop failure
// (named without its seed) selects the test at the base, whose run
// names it with another seed, as jest and vitest match -t: a JS RegExp.
func TestJSNarrowAnySeed(t *testing.T) {
	failures := []Failure{{ID: "groupBy keeps order", Name: "groupBy keeps order"}, {ID: "a (b) c", Name: "a (b) c"}}
	cases := []struct {
		name string
		want bool
	}{
		{"groupBy keeps order (with seed=1773107352)", true},
		{"groupBy keeps order (with seed=-2071528416)", true},
		{"groupBy keeps order", true},
		{"a (b) c (with seed=3)", true},
		{"groupBy keeps order twice (with seed=5)", false},
		{"groupBy keeps order (with seed=5) twice", false},
		{"groupBy keeps order (with seed=)", false},
	}
	for _, r := range []Name{Jest, Vitest} {
		args, ok := For(r).NarrowTests(t.TempDir(), []string{"npx", string(r)}, failures)
		if !ok || len(args) < 2 || args[len(args)-2] != "-t" {
			t.Fatalf("%s: NarrowTests = %q, %v; want a -t pattern", r, args, ok)
		}
		pattern := args[len(args)-1]
		re := regexp.MustCompile(pattern) // RE2 reads this subset as JS does
		for _, tc := range cases {
			if got := re.MatchString(tc.name); got != tc.want {
				t.Errorf("%s: %q matches %q: %v, want %v", r, pattern, tc.name, got, tc.want)
			}
			if got, ran := nodeMatches(pattern, tc.name); ran && got != tc.want {
				t.Errorf("%s: in node, %q matches %q: %v, want %v", r, pattern, tc.name, got, tc.want)
			}
		}
	}
}

// nodeMatches tests name against pattern with node's RegExp, as jest's
// and vitest's -t do; ran is false without node.
func nodeMatches(pattern, name string) (matched, ran bool) {
	if _, err := exec.LookPath("node"); err != nil {
		return false, false
	}
	out, err := exec.Command("node", "-e", "process.stdout.write(String(new RegExp(process.argv[1]).test(process.argv[2])))", pattern, name).Output()
	return string(out) == "true", err == nil
}
