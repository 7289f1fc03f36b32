package detect

import (
	"strings"
	"testing"
)

func TestCargoPathDependents(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\n")
	write(t, root, "a/src/lib.rs", "")
	write(t, root, "b/Cargo.toml", "[package]\nname = \"b\"\nversion = \"0.1.0\"\n\n[dependencies]\na = { path = \"../a\" }\n")
	// A workspace whose member reaches a through b, as a dev-dependency.
	write(t, root, "ws/Cargo.toml", "[workspace]\nmembers = [\"c\"]\n")
	write(t, root, "ws/c/Cargo.toml", "[package]\nname = \"c\"\nversion = \"0.1.0\"\n\n[target.'cfg(unix)'.dev-dependencies]\nb = { path = \"../../b\" }\n")
	write(t, root, "d/Cargo.toml", "[package]\nname = \"d\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n")

	ps, err := Projects(root, []string{"a/src/lib.rs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		for _, c := range p.Checks {
			got = append(got, c.Dir[len(root)+1:]+": "+c.FullReason)
		}
	}
	want := "a: |b: it depends on crate a from a/ (path dependency), which changed|" +
		"ws: it depends on crate b from b/ (path dependency), which depends on a changed crate"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
}
