package runner

import "github.com/chanto-dev/chanto/internal/verify/scope"

// custom is a check the user configured ([guardrails] checks,
// --verify-check) that no known runner reads: a command line run by
// bash, always in full, whose output is opaque. It recognises no argv
// of its own: a configured check is matched by its parsed words (see
// Configured).
type custom struct{ base }

var _ Runner = custom{}

func init() {
	register(custom{base{name: Custom, targets: Whole, fullOnly: scope.For(scope.AlwaysFull, "configured")}})
}

func (custom) Recognize([]string) (Invocation, bool) { return Invocation{}, false }

// Configured reads a configured check's command line: when it is one
// simple command with literal words (no pipe, &&, variable or
// assignment) that a known runner recognises (`npx jest --ci`, `npx
// vitest run`, `go test ./...`), the check is that runner's, with the
// user's words; ok is false for anything else, which stays opaque.
func Configured(command string) (inv Invocation, ok bool) {
	words := SimpleWords(command)
	if len(words) == 0 {
		return Invocation{}, false
	}
	return Recognize(words)
}
