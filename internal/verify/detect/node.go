package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/shell"
	"github.com/chanto-dev/chanto/internal/verify/runner"
)

// packageJSON is the part of package.json detection reads.
type packageJSON struct {
	Scripts         map[string]string `json:"scripts"`
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
}

// npmPlaceholder is the test script npm init writes; it tests nothing.
const npmPlaceholder = "no test specified"

// nodeCheck returns "npm test" when package.json has a real test script,
// with the runner that script uses.
func nodeCheck(root, rel string) (Check, bool, error) {
	data, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return Check{}, false, &ManifestError{File: rel, Msg: err.Error()}
	}
	var pkg packageJSON
	if err := json.Unmarshal(data, &pkg); err != nil {
		return Check{}, false, jsonError(rel, data, err)
	}
	script := strings.TrimSpace(pkg.Scripts["test"])
	if script == "" || strings.Contains(script, npmPlaceholder) {
		return Check{}, false, nil
	}
	r := nodeRunner(script, pkg)
	return Check{
		Command:    "npm test",
		Args:       []string{"npm", "test"},
		Dir:        root,
		Runner:     r,
		Narrowable: narrowable(r),
	}, true, nil
}

// jsonError turns a decoding error into "package.json:LINE: invalid JSON: …".
func jsonError(rel string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	line := 1
	switch {
	case errors.As(err, &syn):
		line = 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))
		return &ManifestError{File: rel, Line: line, Msg: "invalid JSON: " + syn.Error()}
	case errors.As(err, &typ):
		line = 1 + bytes.Count(data[:min(int(typ.Offset), len(data))], []byte("\n"))
		return &ManifestError{File: rel, Line: line, Msg: "unexpected value: " + typ.Error()}
	}
	return &ManifestError{File: rel, Line: line, Msg: "invalid JSON: " + err.Error()}
}

// nodeRunner identifies the test runner from the script's words, then from
// the dependencies.
func nodeRunner(script string, pkg packageJSON) Runner {
	if r := scriptRunner(script, pkg.Scripts, 0, true); r != "" {
		return r
	}
	has := func(name string) bool {
		_, a := pkg.DevDependencies[name]
		_, b := pkg.Dependencies[name]
		return a || b
	}
	if strings.Contains(script, "react-scripts test") && has("react-scripts") {
		return Jest
	}
	return NPM
}

// jsRunners are the runners a test script may start.
var jsRunners = []Runner{Jest, Vitest, Mocha, NodeTest}

// scriptWrappers run the command that follows them: environment setters,
// package runners and coverage tools (c8 --100 node --test).
var scriptWrappers = map[string]bool{"npx": true, "cross-env": true, "exec": true, "c8": true, "nyc": true}

// scriptRunner finds the first runner a script starts, following
// `npm run NAME` (and yarn's and pnpm's) into the scripts it names, as in
// "test": "npm run test:unit && npm run lint". jest and vitest count only
// when every script on the way is that one command (alone): behind "lint
// && jest" a failed lint would read as jest collecting no tests. depth
// stops a cycle.
func scriptRunner(script string, scripts map[string]string, depth int, alone bool) Runner {
	if depth > 4 {
		return ""
	}
	parsed, err := shell.Parse(script)
	if err != nil {
		return "" // not shell we can read: no runner, so plain npm test
	}
	alone = alone && len(parsed.Commands) == 1
	for _, c := range parsed.Commands {
		words := c.Args
		wrapped := false
		for len(words) > 0 && scriptWrappers[filepath.Base(words[0])] {
			words, wrapped = words[1:], true
		}
		if wrapped {
			// A wrapper's own options come before the command it runs.
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || strings.Contains(words[0], "=")) {
				words = words[1:]
			}
		}
		if len(words) == 0 {
			continue
		}
		if name, i := runner.ScriptCalled(words); name != "" {
			body, ok := scripts[name]
			if ok {
				if r := scriptRunner(body, scripts, depth+1, alone); r != "" {
					return r
				}
				continue
			}
			if words[0] == "npm" {
				continue
			}
			words = words[i:] // yarn jest, pnpm vitest: a package's program
		}
		if inv, ok := runner.Recognize(words); ok && slices.Contains(jsRunners, inv.Runner) {
			if narrowable(inv.Runner) && depth > 0 && !alone {
				return ""
			}
			return inv.Runner
		}
	}
	return ""
}
