package protect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRustAutomodCrateDeleted: a crate root whose tests come from
// automod::dir! (serde_json's tests/regression.rs) is deleted, and the
// folder's files stay on disk unbuilt.
func TestRustAutomodCrateDeleted(t *testing.T) {
	files := map[string]string{
		"Cargo.toml":               "[package]\nname = \"j\"\nversion = \"0.1.0\"\n",
		"src/lib.rs":               "pub fn one() -> u8 { 1 }\n",
		"tests/regression.rs":      "mod regression {\n    automod::dir!(\"tests/regression\");\n}\n",
		"tests/regression/i520.rs": "#[test]\nfn test() {\n    assert_eq!(j::one(), 1);\n}\n",
		"tests/regression/i795.rs": "#[test]\nfn test() {\n    assert!(j::one() > 0);\n}\n",
	}
	base := writeTree(t, files)
	cur := writeTree(t, files)
	if err := os.Remove(filepath.Join(cur, "tests/regression.rs")); err != nil {
		t.Fatal(err)
	}
	vs, err := Compare(DirSource(base), DirSource(cur), []string{"tests/regression.rs"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.File+" "+string(v.Kind))
	}
	want := "tests/regression/i520.rs test_removed,tests/regression/i795.rs test_removed"
	if strings.Join(got, ",") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	// Renamed to another collected name: nothing is lost.
	if err := os.WriteFile(filepath.Join(cur, "tests/regressions.rs"), []byte(files["tests/regression.rs"]), 0o644); err != nil {
		t.Fatal(err)
	}
	vs, err = Compare(DirSource(base), DirSource(cur), []string{"tests/regression.rs", "tests/regressions.rs"}, Options{})
	if err != nil || len(vs) != 0 {
		t.Fatalf("honest rename reported %v (%v)", vs, err)
	}
}

// TestJSMoveLostByRootRunner: the package's own test script is one chanto
// does not know, and the root vitest config collects the package's spec
// files (vuejs/pinia). A rename out of the root's include loses the tests.
func TestJSMoveLostByRootRunner(t *testing.T) {
	files := map[string]string{
		"package.json":                      `{"scripts":{"test":"vitest run"},"devDependencies":{"vitest":"*"}}`,
		"vite.config.ts":                    "export default { test: { include: ['packages/**/*.spec.ts'] } }\n",
		"packages/core/package.json":        `{"scripts":{"test":"pnpm build && tsc -p test-dts"}}`,
		"packages/core/__tests__/a.spec.ts": "it('adds', () => {\n  expect(1 + 1).toBe(2)\n})\n",
	}
	for _, c := range []struct {
		to   string
		kind Kind
	}{
		{"packages/core/__tests__/a.cases.ts", RenamedOutOfCollection},
		{"packages/core/__tests__/zz-a.spec.ts", ""},
	} {
		base := writeTree(t, files)
		cur := writeTree(t, files)
		if err := os.Rename(filepath.Join(cur, "packages/core/__tests__/a.spec.ts"), filepath.Join(cur, c.to)); err != nil {
			t.Fatal(err)
		}
		vs, err := Compare(DirSource(base), DirSource(cur), []string{"packages/core/__tests__/a.spec.ts", c.to}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.kind == "" && len(vs) > 0:
			t.Errorf("%s: honest rename reported %v", c.to, vs)
		case c.kind != "" && (len(vs) == 0 || vs[0].Kind != c.kind):
			t.Errorf("%s: want %s, got %v", c.to, c.kind, vs)
		}
	}
}
