package runner

import (
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// npm is `npm test` whose script runs a runner chanto does not know; a
// run of `npm test` stands in for the check of whichever JavaScript
// runner its script launches.
type npm struct{ base }

var _ Runner = npm{}

func init() {
	register(npm{base{
		name:     NPM,
		targets:  NoTargets,
		fullOnly: scope.Because(scope.UnknownScriptRunner),
		env:      jsEnv,
	}})
}

func (n npm) Recognize(args []string) (Invocation, bool) {
	if path.Base(at(args, 0)) != "npm" {
		return Invocation{}, false
	}
	switch {
	case at(args, 1) == "test" || at(args, 1) == "t":
		return n.read(args, 2), true
	case at(args, 1) == "run" && at(args, 2) == "test":
		return n.read(args, 3), true
	}
	return Invocation{}, false
}

func (npm) StandsFor(check Name) bool {
	return slices.Contains([]Name{NPM, Jest, Vitest, NodeTest, Mocha}, check)
}

// NotInstalled is the hint for a check run through npm whose program is
// missing: the project's packages were never installed.
func NotInstalled(dir string, args []string) string {
	if len(args) == 0 || args[0] != "npm" {
		return ""
	}
	if st, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil && st.IsDir() {
		return ""
	}
	return "node_modules is missing: run npm install"
}
