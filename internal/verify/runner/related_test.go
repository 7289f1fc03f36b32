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
