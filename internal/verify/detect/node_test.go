package detect

import (
	"path/filepath"
	"testing"
)

// The runner is found behind the scripts a test script calls and behind
// coverage wrappers, as real packages write them; an unknown tool stays
// opaque npm.
func TestNodeRunnerFollowsScripts(t *testing.T) {
	cases := []struct {
		scripts string
		want    Runner
	}{
		{`{"test": "npm run test:unit && npm run test:typescript", "test:unit": "c8 --100 --all --include=index.js node --test", "test:typescript": "tstyche"}`, NodeTest},
		{`{"test": "npm run lint && npm run mocha", "lint": "eslint .", "mocha": "nyc mocha test/*.js"}`, Mocha},
		{`{"test": "yarn run -s unit", "unit": "cross-env NODE_ENV=test jest --ci"}`, Jest},
		{`{"test": "pnpm vitest run"}`, Vitest},
		{`{"test": "npm run unit", "unit": "vitest run"}`, Vitest},
		{`{"test": "npm run lint && npm run unit", "lint": "eslint .", "unit": "jest"}`, NPM},
		{`{"test": "c8 --reporter=text --reporter=html mocha test/*.mjs"}`, Mocha},
		{`{"test": "npm run test", "x": "jest"}`, NPM},
		{`{"test": "npm run tests-only", "tests-only": "tape test/*.js"}`, NPM},
		// Quotes are read as the shell reads them (issue 12): an assignment
		// with a space, or quoted options, is not a command of its own.
		{`{"test": "FOO=\"a b\" jest"}`, Jest},
		{`{"test": "NODE_OPTIONS='--max-old-space-size=4096 --trace-warnings' vitest run"}`, Vitest},
		{`{"test": "npm run unit", "unit": "cross-env NODE_OPTIONS='--max-old-space-size=4096' jest --ci"}`, Jest},
		{`{"test": "echo 'a && jest'"}`, NPM},
		{`{"test": "jest \"unclosed"}`, NPM},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		write(t, dir, "package.json", `{"name": "p", "scripts": `+tc.scripts+`}`)
		c, ok, err := nodeCheck(dir, "package.json")
		if err != nil || !ok {
			t.Fatalf("%s: nodeCheck = %v, %v", tc.scripts, ok, err)
		}
		if c.Runner != tc.want {
			t.Errorf("%s: runner %s, want %s", tc.scripts, c.Runner, tc.want)
		}
		if c.Dir != dir || c.Command != "npm test" || filepath.Base(c.Args[0]) != "npm" {
			t.Errorf("%s: check %+v", tc.scripts, c)
		}
	}
}
