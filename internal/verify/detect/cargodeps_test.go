package detect

import "testing"

func TestCargoPathDependents(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\n")
	write(t, root, "a/src/lib.rs", "")
	write(t, root, "b/Cargo.toml", "[package]\nname = \"b\"\nversion = \"0.1.0\"\n\n[dependencies]\na = { path = \"../a\" }\n")
	// A workspace whose member reaches a through b, as a dev-dependency.
	write(t, root, "ws/Cargo.toml", "[workspace]\nmembers = [\"c\"]\n")
	write(t, root, "ws/c/Cargo.toml", "[package]\nname = \"c\"\nversion = \"0.1.0\"\n\n[target.'cfg(unix)'.dev-dependencies]\nb = { path = \"../../b\" }\n")
	write(t, root, "d/Cargo.toml", "[package]\nname = \"d\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n")
	// A workspace that patches a in for the registry crate its member uses.
	write(t, root, "pw/Cargo.toml", "[workspace]\nmembers = [\"m\"]\n\n[patch.crates-io]\na = { path = \"../a\" }\n")
	write(t, root, "pw/m/Cargo.toml", "[package]\nname = \"m\"\nversion = \"0.1.0\"\n\n[dependencies]\na = \"0.1\"\n")
	// One whose member inherits a path dependency from the workspace.
	write(t, root, "iw/Cargo.toml", "[workspace]\nmembers = [\"n\"]\n\n[workspace.dependencies]\nalias = { path = \"../a\", package = \"a\" }\n")
	write(t, root, "iw/n/Cargo.toml", "[package]\nname = \"n\"\nversion = \"0.1.0\"\n\n[dependencies]\nalias = { workspace = true }\n")

	ps, err := Projects(root, []string{"a/src/lib.rs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "a: |b: it depends on crate a from a/ (path dependency), which changed|" +
		"iw: it depends on crate a from a/ (path dependency), which changed|" +
		"pw: it depends on crate a from a/ (path dependency), which changed|" +
		"ws: it depends on crate b from b/ (path dependency), which depends on a changed crate"
	if g := checkReasons(root, ps); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
}
