package runner

import "github.com/chanto-dev/chanto/internal/verify/scope"

// custom is a check the user configured ([guardrails] checks,
// --verify-check): a command line run by bash, always in full, whose
// output is opaque. It recognises no argv of its own: a configured
// check is matched by its parsed words (see Configured).
type custom struct{ base }

var _ Runner = custom{}

func init() {
	register(custom{base{name: Custom, targets: Whole, fullOnly: scope.For(scope.AlwaysFull, "configured")}})
}

func (custom) Recognize([]string) (Invocation, bool) { return Invocation{}, false }
