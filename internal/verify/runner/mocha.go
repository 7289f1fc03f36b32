package runner

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// mocha is `mocha` and `npx mocha`: results from the spec reporter's
// text. It has no related-test mode, and its runs never stand in for a
// check (the npm script that runs it may do more).
type mocha struct{ base }

var _ Runner = mocha{}

func init() {
	register(mocha{base{
		name:     Mocha,
		targets:  Paths,
		fullOnly: scope.For(scope.NoRelatedMode, "mocha"),
		env:      jsEnv,
		collects: []string{"test/*.{js,cjs,mjs}"},
	}})
}

func (m mocha) Recognize(args []string) (Invocation, bool) {
	prog := path.Base(at(args, 0))
	switch {
	case prog == "mocha":
		return m.read(args, 1), true
	case prog == "npx" && at(args, 1) == "mocha":
		return m.read(args, 2), true
	}
	return Invocation{}, false
}

func (mocha) StandsFor(Name) bool { return false }

func (mocha) Collector(string, string) Collector { return &lineParser{parse: parseMocha} }

var (
	mochaCount = regexp.MustCompile(`^\s+(\d+) (passing|failing|pending)`)
	mochaTitle = regexp.MustCompile(`^\s+\d+\) (.+)$`)
)

// parseMocha reads the spec reporter's summary: "N passing", "N failing",
// then each failure as "  1) suite" with the test title on the next lines,
// the last ending in ":". o.scope holds a title being read.
func parseMocha(line string, o *Outcome) {
	if m := mochaCount.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		o.Tests = max(o.Tests, 0) + n
		return
	}
	if m := mochaTitle.FindStringSubmatch(line); m != nil && o.Tests >= 0 {
		o.scope = "\x00" + strings.TrimSpace(m[1])
	} else if strings.HasPrefix(o.scope, "\x00") && strings.TrimSpace(line) != "" {
		o.scope += " " + strings.TrimSpace(line)
	} else {
		return
	}
	if strings.HasSuffix(o.scope, ":") {
		name := strings.TrimSuffix(o.scope[1:], ":")
		o.Failures = appendUnique(o.Failures, Failure{ID: name, Name: name})
		o.scope = ""
	}
}
