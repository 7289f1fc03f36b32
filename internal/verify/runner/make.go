package runner

import (
	"path"
	"slices"

	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// makeTest is `make test` (any make command naming the test target); its
// recipe is opaque, so it always runs in full.
type makeTest struct{ base }

var _ Runner = makeTest{}

func init() {
	register(makeTest{base{name: Make, targets: Whole, fullOnly: scope.For(scope.AlwaysFull, "make")}})
}

func (m makeTest) Recognize(args []string) (Invocation, bool) {
	if path.Base(at(args, 0)) != "make" || !slices.Contains(args[1:], "test") {
		return Invocation{}, false
	}
	return m.read(args, len(args)), true
}
