package verify

import (
	"os"
	"path/filepath"
	"testing"
)

// A fetch of a source the project names is not a download chanto starts
// on its own (a git dependency at a host listener was fetched).
func TestCargoNamesSources(t *testing.T) {
	cases := []struct{ file, body, want string }{
		{"Cargo.toml", "[package]\nname = \"a\"\n[dependencies]\nserde = \"1\"\n", ""},
		{"Cargo.toml", "[dependencies]\nx = { git = \"http://127.0.0.1:9/x.git\" }\n", "Cargo.toml"},
		{"Cargo.toml", "[patch.crates-io]\nx = { git = \"https://example.com/x\" }\n", "Cargo.toml"},
		{"Cargo.toml", "[dependencies]\nx = { version = \"1\", registry = \"mine\" }\n", "Cargo.toml"},
		{"Cargo.lock", "[[package]]\nname = \"x\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n", ""},
		{"Cargo.lock", "[[package]]\nname = \"x\"\nversion = \"1.0.0\"\nsource = \"git+http://127.0.0.1:9/x.git#abc\"\n", "Cargo.lock"},
		{".cargo/config.toml", "[source.crates-io]\nreplace-with = \"evil\"\n[source.evil]\nregistry = \"sparse+http://127.0.0.1:9/\"\n", ".cargo/config.toml"},
	}
	for _, c := range cases {
		root := t.TempDir()
		p := filepath.Join(root, filepath.FromSlash(c.file))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := cargoNamesSources(root, root); got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.file, c.body, got, c.want)
		}
	}
}
