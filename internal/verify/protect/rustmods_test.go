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
