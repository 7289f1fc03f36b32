package runner

import (
	"path"
	"slices"
)

// makeTest is `make test` (any make command naming the test target); its
// recipe is opaque, so it always runs in full.
type makeTest struct{ base }

var _ Runner = makeTest{}

func init() {
	register(makeTest{base{name: Make, targets: Whole, fullOnly: "make checks always run in full"}})
}

func (m makeTest) Recognize(args []string) (Invocation, bool) {
	if path.Base(at(args, 0)) != "make" || !slices.Contains(args[1:], "test") {
		return Invocation{}, false
	}
	return m.read(args, len(args)), true
}
