package runner

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRelated: jest and vitest narrow to the changed files through their
// own related-test modes, directly or through a plain npm test script;
// other runners and scripts that are not one plain command say why not.
func TestRelated(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"test":"NODE_OPTIONS='--no-warnings' jest --ci"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	vdir := t.TempDir()
	if err := os.WriteFile(filepath.Join(vdir, "package.json"), []byte(`{"scripts":{"test":"vitest run --coverage"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{"src/a.ts"}
	cases := []struct {
		r    Name
		dir  string
		args []string
		want []string
		why  string
	}{
		{Jest, dir, []string{"npx", "jest"}, []string{"npx", "jest", "--findRelatedTests", "src/a.ts"}, ""},
		{Jest, dir, []string{"npm", "test"}, []string{"npm", "test", "--", "--findRelatedTests", "src/a.ts"}, ""},
		{Vitest, vdir, []string{"npm", "test"}, []string{"npx", "vitest", "related", "--run", "--coverage", "src/a.ts"}, ""},
		{Vitest, vdir, []string{"vitest", "bench"}, nil, "the vitest command has its own subcommand or filter"},
		{Jest, vdir, []string{"npm", "test"}, nil, "the test script is not a plain jest command"},
		{Pytest, dir, []string{"pytest"}, nil, "pytest has no related-test mode"},
	}
	for _, tc := range cases {
		got, why := For(tc.r).Related(tc.dir, tc.args, files)
		if !slices.Equal(got, tc.want) || why.String() != tc.why {
			t.Errorf("%s %q: got %q, %q; want %q, %q", tc.r, tc.args, got, why, tc.want, tc.why)
		}
	}
}

// TestJestListRelated: a configuration that may set jest's roots gets a
// listing run over the whole folder; one that cannot keeps the one-run
// --findRelatedTests.
func TestJestListRelated(t *testing.T) {
	write := func(files map[string]string) string {
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	plain := `{"scripts":{"test":"jest"},"jest":{"testEnvironment":"node"}}`
	cases := []struct {
		name  string
		files map[string]string
		args  []string
		list  bool
	}{
		{"no config", map[string]string{"package.json": plain}, []string{"npm", "test"}, false},
		{"package.json roots", map[string]string{"package.json": `{"scripts":{"test":"jest"},"jest":{"roots":["test"]}}`}, []string{"npm", "test"}, true},
		{"config file roots", map[string]string{"package.json": plain, "jest.config.js": "module.exports = { roots: ['<rootDir>/test'] }\n"}, []string{"npx", "jest"}, true},
		{"config file imports", map[string]string{"package.json": plain, "jest.config.js": "module.exports = require('./jest.base')\n"}, []string{"npx", "jest"}, true},
		{"config file plain", map[string]string{"package.json": plain, "jest.config.js": "module.exports = { testEnvironment: 'node' }\n"}, []string{"npx", "jest"}, false},
		{"flag in script", map[string]string{"package.json": `{"scripts":{"test":"jest --roots test"}}`}, []string{"npm", "test"}, true},
		{"config flag", map[string]string{"package.json": plain}, []string{"npx", "jest", "-c", "ci.config.js"}, true},
	}
	for _, tc := range cases {
		dir := write(tc.files)
		got, why := For(Jest).(RelatedLister).ListRelated(dir, tc.args, []string{"src/a.js"})
		if !why.IsZero() || (got != nil) != tc.list {
			t.Errorf("%s: got %q, %q; want a listing: %v", tc.name, got, why, tc.list)
			continue
		}
		if tc.list && !slices.Contains(got, "--listTests") || tc.list && got[len(got)-1] != "src/a.js" {
			t.Errorf("%s: listing %q", tc.name, got)
		}
	}
}

func TestJestParseList(t *testing.T) {
	dir := "/p"
	out := []byte("\n> p@1.0.0 test\n> jest --listTests --json\n\n[\"/p/test/b.test.js\",\"/p/test/a.test.js\"]\n")
	got, err := For(Jest).(RelatedLister).ParseList(dir, out)
	if err != nil || !slices.Equal(got, []string{"test/a.test.js", "test/b.test.js"}) {
		t.Errorf("got %q, %v", got, err)
	}
	if got, err := For(Jest).(RelatedLister).ParseList(dir, []byte("[]\n")); err != nil || len(got) != 0 {
		t.Errorf("empty list: got %q, %v", got, err)
	}
	if _, err := For(Jest).(RelatedLister).ParseList(dir, []byte("Error: no config\n")); err == nil {
		t.Error("no list: no error")
	}
	if _, err := For(Jest).(RelatedLister).ParseList(dir, []byte(`["/elsewhere/x.test.js"]`)); err == nil {
		t.Error("a test outside the project: no error")
	}
}
