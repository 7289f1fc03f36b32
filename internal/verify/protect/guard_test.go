package protect

import (
	"os"
	"path/filepath"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestGuards(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod":                       "module x\n",
		"calc/calc_test.go":            "package calc\n",
		"web/package.json":             `{"scripts":{"test":"vitest run"}}`,
		"web/vitest.config.ts":         "export default { test: { include: ['tests/**/*.test.ts'] } }\n",
		"web/test/a.test.ts":           "it('a', () => {})\n",
		"web/node_modules/x/a.test.js": "",
		"py/pytest.ini":                "[pytest]\ntestpaths = tests\n",
		"py/tests/test_a.py":           "def test_a(): pass\n",
	})
	gs := Guards(root, nil)
	want := map[string]Guard{
		".\x00go":       {Dir: ".", Runner: "go", Tests: 1, Guarded: 1},
		"web\x00vitest": {Dir: "web", Runner: "vitest", Tests: 1, Guarded: 0, Example: "web/test/a.test.ts"},
		"py\x00pytest":  {Dir: "py", Runner: "pytest", Tests: 1, Guarded: 1},
	}
	if len(gs) != len(want) {
		t.Fatalf("guards: %+v", gs)
	}
	for _, g := range gs {
		if w := want[g.Dir+"\x00"+g.Runner]; g != w {
			t.Errorf("got %+v, want %+v", g, w)
		}
	}
	un := Unguarded(gs)
	if len(un) != 1 || un[0].Dir != "web" {
		t.Errorf("unguarded: %+v", un)
	}
}
