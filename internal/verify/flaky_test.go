package verify

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestPassedIn(t *testing.T) {
	a, b := Failure{ID: "p/TestA", Name: "TestA"}, Failure{ID: "p/TestB", Name: "TestB"}
	want := []Failure{a, b}
	for _, c := range []struct {
		name string
		cr   CheckRun
		got  string
	}{
		{"named passes", CheckRun{Passed: true, Tests: 2, passed: []Failure{a, b}}, "p/TestA p/TestB"},
		{"one fails again", CheckRun{ExitCode: 1, Tests: 2, Failures: []Failure{b}, passed: []Failure{a}}, "p/TestA"},
		{"a runner that names no passes, a passing run", CheckRun{Passed: true, Tests: 3}, "p/TestA p/TestB"},
		{"a passing run that ran neither", CheckRun{Passed: true, Tests: 5, passed: []Failure{{ID: "p/TestC"}}}, ""},
		{"timed out", CheckRun{TimedOut: true, passed: []Failure{a}}, ""},
		{"no tests collected", CheckRun{NoTests: true}, ""},
		{"broke before any test", CheckRun{ExitCode: 2}, ""},
		{"not installed", CheckRun{NotFound: "go"}, ""},
	} {
		got := ""
		for i, f := range passedIn(c.cr, want) {
			if i > 0 {
				got += " "
			}
			got += f.ID
		}
		if got != c.got {
			t.Errorf("%s: passedIn = %q, want %q", c.name, got, c.got)
		}
	}
}

// A new vet finding and a test package that no longer compiles cannot be
// flaky: they are called new without a run again.
func TestNoRerunForWhatCannotBeFlaky(t *testing.T) {
	for _, c := range []struct {
		name, aGo string
		checks    []string
		want      string
	}{
		{"vet finding", "package a\n\nimport \"fmt\"\n\n// V is one.\nfunc V() int { fmt.Printf(\"%d\", \"x\"); return 1 }\n\n// W is two.\nfunc W() int { return 2 }\n", nil, "a/a.go: fmt.Printf format %d"},
		{"build failure", "package a\n\n// V is one.\nfunc V() int { return 1 }\n", []string{"go test ./..."}, "example.com/s/a [build failed]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := stagedModule(t, aTestV+"\nfunc TestW(t *testing.T) { _ = W() }\n")
			put(t, dir, "a/a.go", c.aGo)
			var again []string
			rep, err := Run(context.Background(), Options{Root: dir, Timeout: 2 * time.Minute, Checks: c.checks, Progress: func(s string) {
				if strings.Contains(s, "again, with your change") {
					again = append(again, s)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rep.NewFailures); len(got) == 0 || !strings.HasPrefix(got[0], c.want) {
				t.Errorf("new failures %q, want %s…; evidence %s", got, c.want, rep.Evidence)
			}
			if again != nil {
				t.Errorf("ran again: %q", again)
			}
		})
	}
}
