package protect

import (
	"encoding/json"
	"strings"
)

// Default test file globs of jest and vitest, as their docs give them.
var (
	jestDefaultMatch   = []string{"**/__tests__/**/*.[jt]s?(x)", "**/?(*.)+(spec|test).[jt]s?(x)"}
	vitestDefaultMatch = []string{"**/*.{test,spec}.?(c|m)[jt]s?(x)"}
)

// runnerDefaults sets the default globs of the runner package.json's test
// script names (jest or vitest) when no configuration gave any, so a test
// file renamed out of that runner's reach (test/a.test.js → test/a.js
// under vitest) counts as deleted. Other runners keep the broad defaults.
func (d *Detector) runnerDefaults(pkgJSON []byte) {
	if len(d.jsMatch) > 0 || len(d.jsRegex) > 0 || pkgJSON == nil {
		return
	}
	var pkg struct {
		Scripts map[string]any `json:"scripts"`
	}
	if json.Unmarshal(pkgJSON, &pkg) != nil {
		return
	}
	script, _ := pkg.Scripts["test"].(string)
	var defaults []string
	for _, w := range strings.FieldsFunc(script, func(r rune) bool { return strings.ContainsRune(" \t;&|()", r) }) {
		switch w {
		case "vitest":
			defaults = vitestDefaultMatch
		case "jest", "react-scripts":
			defaults = jestDefaultMatch
		case "mocha", "node", "tap", "ava", "karma", "playwright", "cypress":
			return // a second runner: keep the broad defaults
		}
	}
	for _, g := range defaults {
		d.jsMatch = append(d.jsMatch, micromatchToDoublestar(g))
	}
}
