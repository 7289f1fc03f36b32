package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// Configured is the check of a configured command line ([guardrails]
// checks, --verify-check) run in dir. When its words are one simple
// command a known runner reads (`npx jest --ci`, `npx vitest run`, `go
// test ./...`), it is that runner's check with the user's words: its
// failures are named, a baseline re-runs only them, and a plain run is
// narrowed as a detected one is. `npm test` takes the runner of the test
// script, as detection does. Anything else is an opaque check run by
// bash in full.
func Configured(dir, command string) Check {
	c := Check{Command: command, Dir: dir, Runner: Custom, Configured: true}
	inv, ok := runner.Configured(command)
	if !ok {
		return c
	}
	r := inv.Runner
	if r == NPM {
		r = configuredScriptRunner(dir)
	}
	c.Runner, c.Args = r, inv.Args
	c.Narrowable = inv.Plain && narrowable(r)
	if !inv.Plain && narrowable(r) {
		c.AsWritten = scope.Reason{Code: scope.ConfiguredAsWritten, Setting: string(r), Detail: inv.WhyNot}
	}
	return c
}

// configuredScriptRunner is the runner package.json's test script in dir
// starts, NPM when it cannot be told.
func configuredScriptRunner(dir string) Runner {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return NPM
	}
	var pkg packageJSON
	if json.Unmarshal(data, &pkg) != nil {
		return NPM
	}
	script := strings.TrimSpace(pkg.Scripts["test"])
	if script == "" {
		return NPM
	}
	return nodeRunner(script, pkg)
}
