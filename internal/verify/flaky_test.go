package verify

import "testing"

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
