package runner

import (
	"bytes"
	"regexp"

	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// base is the data a runner is made of, and the default behaviour every
// runner embeds; a runner's file overrides what differs.
type base struct {
	name Name
	// targets and flags read the words after the command.
	targets TargetKind
	flags   Flags
	// fullOnly is the reason the runner's checks always run in full;
	// zero when selection may narrow them.
	fullOnly scope.Reason
	env      []string
	collects []string
	// fallback are the output patterns of a narrowed run that could not
	// really run.
	fallback []fallbackRule
}

// fallbackRule is one output pattern Fallback looks for.
type fallbackRule struct {
	re     *regexp.Regexp
	reason scope.Reason
}

func (b base) Name() Name { return b.name }

func (b base) StandsFor(check Name) bool { return check == b.name }

func (b base) TargetCovers(have, want string) bool { return coversTarget(b.targets, have, want) }

func (b base) FullOnly() scope.Reason { return b.fullOnly }

func (b base) NarrowTargets(string, []string, []string) ([]string, bool) { return nil, false }

func (b base) Related(string, []string, []string) ([]string, scope.Reason) {
	return nil, scope.For(scope.NoRelatedMode, string(b.name))
}

func (b base) NarrowTests(string, []string, []Failure) ([]string, bool) { return nil, false }

func (b base) Collector(string, string) Collector { return &lineParser{} }

func (b base) NoTests(exit, tests int, _ string) bool { return tests == 0 && exit == 0 }

func (b base) NoTestsText() string { return "collected no tests" }

func (b base) Fallback(_ int, output []byte) (scope.Reason, bool) {
	output = lastMB(output)
	for _, r := range b.fallback {
		if r.re.Match(output) {
			return r.reason, true
		}
	}
	return scope.Reason{}, false
}

func (b base) Env() []string { return b.env }

func (b base) Download() Download { return Download{} }

func (b base) Collects() []string { return b.collects }

// read reads args with the runner's flag table after skip command words.
func (b base) read(args []string, skip int) Invocation {
	return read(b.name, b.targets, b.flags, args, skip)
}

// lastMB is the end of output Fallback examines.
func lastMB(output []byte) []byte {
	if len(output) > fallbackOutputCap {
		return output[len(output)-fallbackOutputCap:]
	}
	return output
}

// jsEnv keeps JavaScript runners out of watch mode and colour codes.
var jsEnv = []string{"CI=true", "NO_COLOR=1", "FORCE_COLOR=0"}

func at(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func allZero(ms [][][]byte) bool {
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		if !bytes.Equal(m[1], []byte("0")) {
			return false
		}
	}
	return true
}
