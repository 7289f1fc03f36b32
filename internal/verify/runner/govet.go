package runner

import (
	"fmt"
	"path"

	"github.com/chanto-dev/chanto/internal/run"
	"regexp"
	"strings"
)

// goVet is `go vet`: packages as targets (narrowed like go test's, to
// the changed packages and their importers), findings read from its text.
type goVet struct{ base }

var _ Runner = goVet{}

func init() {
	register(goVet{base{
		name:     GoVet,
		targets:  Packages,
		flags:    Flags{Valued: []string{"-tags", "-mod"}, Safe: []string{"-tags", "-mod", "-json", "-v"}},
		collects: []string{"**/*.go"},
	}})
}

func (g goVet) Recognize(args []string) (Invocation, bool) {
	if path.Base(at(args, 0)) != "go" || at(args, 1) != "vet" {
		return Invocation{}, false
	}
	return g.read(args, 2), true
}

// NarrowTargets puts the packages in place of ./... .
func (goVet) NarrowTargets(_ string, args, targets []string) ([]string, bool) {
	return replacePattern(args, "./...", targets), true
}

func (goVet) Collector(string, string) Collector {
	var ge goErrors
	l := &lineParser{}
	seen := map[string]bool{}
	l.parse = func(line string, o *Outcome) {
		parseVet(line, o, seen)
		ge.line(line)
	}
	return &goVetCollector{lineParser: l, errs: &ge}
}

// goVetCollector names the go command's own errors when vet named no
// finding: go stopped before vetting anything.
type goVetCollector struct {
	*lineParser
	errs *goErrors
}

func (g *goVetCollector) Finish(res run.Result) Outcome {
	o := g.lineParser.Finish(res)
	if len(o.Failures) == 0 && res.ExitCode != 0 {
		o.Failures = g.errs.list
	}
	return o
}

// NoTests is a module without a single package.
func (g goVet) NoTests(exit, tests int, output string) bool {
	return g.base.NoTests(exit, tests, output) || strings.Contains(output, "no packages to vet")
}

func (goVet) NoTestsText() string { return "found no Go packages" }

func (goVet) Download() Download { return goDownload }

// vetFinding is a go vet or compiler diagnostic: "[vet: ]file.go:L:C: msg".
var vetFinding = regexp.MustCompile(`^(?:vet: )?(\S+\.go):(\d+)(?::\d+)?: (.+)$`)

// parseVet names each diagnostic. The ID leaves out the line number, so a
// finding survives lines moving between the base and the change, and
// counts repeats instead: the second "unreachable code" in a file is
// "file.go: unreachable code (2)", so a change that adds one more of a
// finding the file already had is a new failure, not the old one again.
// A diagnostic printed twice at the same place (a package and its test
// variant) is one finding; seen holds the places, column included.
func parseVet(line string, o *Outcome, seen map[string]bool) {
	m := vetFinding.FindStringSubmatch(line)
	if m == nil {
		return
	}
	file := strings.TrimPrefix(m[1], "./")
	place := strings.TrimPrefix(strings.TrimPrefix(m[0], "vet: "), "./")
	if seen[place] {
		return
	}
	seen[place] = true
	id, name := file+": "+m[3], file+":"+m[2]+": "+m[3]
	n := 0
	for _, f := range o.Failures {
		if f.ID == id || isRepeat(f.ID, id) {
			n++
		}
	}
	if n > 0 {
		id = fmt.Sprintf("%s (%d)", id, n+1)
	}
	o.Failures = append(o.Failures, Failure{ID: id, Name: name})
}

// isRepeat reports whether fid is id's count of a repeated finding:
// "id (N)".
func isRepeat(fid, id string) bool {
	rest, ok := strings.CutPrefix(fid, id+" (")
	if !ok {
		return false
	}
	digits, ok := strings.CutSuffix(rest, ")")
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}
