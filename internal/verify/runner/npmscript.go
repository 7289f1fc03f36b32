package runner

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// The package manager side of jest's and vitest's related-test modes: a
// test script is narrowed through npm only when it is one plain command of
// the runner.

// runnerAt returns the index of the runner's word in a direct invocation
// (jest, npx jest, node_modules/.bin/jest), or -1.
func runnerAt(args []string, name string) int {
	for i, a := range args {
		if path.Base(a) == name {
			return i
		}
		if i == 0 && (a == "npx" || a == "pnpm" || a == "yarn" || a == "bunx") {
			continue
		}
		if strings.HasPrefix(a, "-") && i > 0 && args[0] == "npx" {
			continue
		}
		return -1
	}
	return -1
}

// npmScript reports whether args run the package's test script through a
// package manager, and the script's words.
func npmScript(dir string, args []string) (words []string, isScript bool, reason scope.Reason) {
	if len(args) < 2 || !slices.Contains([]string{"npm", "yarn", "pnpm", "bun"}, args[0]) {
		return nil, false, scope.Reason{}
	}
	rest := args[1:]
	if rest[0] == "run" || rest[0] == "run-script" {
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] != "test" {
		return nil, false, scope.Reason{}
	}
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, true, scope.Because(scope.ManifestUnreadable, "package.json")
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, true, scope.Because(scope.ManifestInvalid, "package.json")
	}
	w, envs := scriptWords(pkg.Scripts["test"])
	if w == nil {
		return nil, true, scope.Because(scope.ScriptNotSingle)
	}
	if envs {
		return w, true, scope.Because(scope.ScriptSetsEnv)
	}
	return w, true, scope.Reason{}
}

// scriptWords parses a package.json script; it returns nil unless the
// script is one simple command with literal words. envs reports leading
// VAR=value assignments.
func scriptWords(script string) (words []string, envs bool) {
	parsed, err := shell.Parse(script)
	if err != nil || !parsed.Simple || !parsed.Commands[0].Literal || len(parsed.Commands[0].Args) == 0 {
		return nil, false
	}
	c := parsed.Commands[0]
	return c.Args, len(c.Env) > 0
}

// SimpleWords splits a command line that is one simple command.
func SimpleWords(cmd string) []string {
	w, envs := scriptWords(cmd)
	if envs {
		return nil
	}
	return w
}

// ScriptCalled returns the package script a command runs, "npm run x",
// "npm test", "yarn x", "pnpm run x", and the index of that name in words;
// "" for any other command.
func ScriptCalled(words []string) (string, int) {
	if len(words) < 2 {
		return "", 0
	}
	switch words[0] {
	case "npm", "pnpm", "yarn", "bun":
	default:
		return "", 0
	}
	i := 1
	if words[i] == "run" || words[i] == "run-script" {
		i++
	}
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		i++ // npm run --silent x
	}
	if i == len(words) {
		return "", 0
	}
	return words[i], i
}
