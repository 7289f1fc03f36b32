package gate

import "testing"

func TestUnresolvedFailure(t *testing.T) {
	run := func(cmd string, passed bool) ownRun {
		r, ok := parseOwnRun(cmd, "/p", nil)
		if !ok {
			t.Fatalf("%q is not a check run", cmd)
		}
		r.Passed = passed
		return r
	}
	tests := []struct {
		name string
		runs []ownRun
		want string // command of the unresolved failure, "" for none
	}{
		{"no runs", nil, ""},
		{"last passed", []ownRun{run("go test ./...", true)}, ""},
		{"last failed", []ownRun{run("go test ./...", false)}, "go test ./..."},
		{"failed then covered", []ownRun{run("go test ./...", false), run("go test ./...", true)}, ""},
		{"failed then narrower pass", []ownRun{run("go test ./...", false), run("go test ./a", true)}, "go test ./..."},
		{"narrow failure then full pass", []ownRun{run("go test ./a", false), run("go test ./...", true)}, ""},
		{"failed then filtered pass", []ownRun{run("pytest", false), run("pytest -k x", true)}, "pytest"},
		{"piped failure then plain pass", []ownRun{run("pytest | tail", false), run("pytest", true)}, ""},
		{"pass then failure", []ownRun{run("pytest", true), run("pytest tests/a.py", false)}, "pytest tests/a.py"},
		{"other runner does not cover", []ownRun{run("pytest", false), run("go test ./...", true)}, "pytest"},
	}
	for _, tt := range tests {
		got, _ := unresolvedFailure(tt.runs)
		cmd := ""
		if got != nil {
			cmd = got.Command
		}
		if cmd != tt.want {
			t.Errorf("%s: unresolved = %q, want %q", tt.name, cmd, tt.want)
		}
	}
}
