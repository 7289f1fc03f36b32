package runner

import (
	"regexp"
	"strings"
)

// goProgress are the go command's own lines that are not errors.
var goProgress = []string{"go: downloading ", "go: finding ", "go: extracting ", "go: found ",
	"go: added ", "go: upgraded ", "go: downgraded ", "go: removed ", "go: warning: ",
	"go: creating ", "go: switching to ", "go: to add "}

// goMissingTarget are go command errors that mean a related run named a
// package that is not there: the full suite runs instead (Fallback), so
// they are not named as failures.
var goMissingTarget = regexp.MustCompile(`matched no packages|no Go files in|cannot find package|directory not found|is not in std|no required module provides package`)

// goCommandError reports whether line is the go command's own error, said
// before a single package was built or vetted: a go.mod or go.sum the
// build cannot use ("go: example.com/x@v1.0.0: missing go.sum entry for
// go.mod file; to add it:"), "go: updates to go.mod needed", and so on.
// Without it such a run read as a plain "failed (exit 1)" (seen on
// go-yaml/yaml at HEAD, whose go.sum lacks an entry).
func goCommandError(line string) bool {
	if !strings.HasPrefix(line, "go: ") || goMissingTarget.MatchString(line) || goNoNetwork.MatchString(line) {
		return false
	}
	for _, p := range goProgress {
		if strings.HasPrefix(line, p) {
			return false
		}
	}
	return true
}

// goErrors collects the go command's own errors, each with the indented
// hint line that follows one ending in ":" ("\tgo mod download x").
type goErrors struct{ list []Failure }

func (g *goErrors) line(line string) {
	if n := len(g.list); n > 0 && strings.HasSuffix(g.list[n-1].Name, ":") && strings.HasPrefix(line, "\t") {
		f := &g.list[n-1]
		f.Name += " " + strings.TrimSpace(line)
		f.ID = f.Name
		return
	}
	if goCommandError(line) {
		g.list = appendUnique(g.list, Failure{ID: line, Name: line})
	}
}
