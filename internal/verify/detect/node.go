package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
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
		Narrowable: r == Jest || r == Vitest,
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
	for _, part := range splitScript(script) {
		words := strings.Fields(part)
		// Skip env assignments and wrappers such as cross-env or npx.
		for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "npx" || words[0] == "cross-env" || words[0] == "exec") {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		switch filepath.Base(words[0]) {
		case "jest":
			return Jest
		case "vitest":
			return Vitest
		case "mocha":
			return Mocha
		case "node":
			for _, w := range words[1:] {
				if w == "--test" || strings.HasPrefix(w, "--test=") {
					return NodeTest
				}
			}
		}
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

// splitScript splits a script on && ; and || so each command can be read.
func splitScript(s string) []string {
	r := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n")
	return strings.Split(r.Replace(s), "\n")
}
