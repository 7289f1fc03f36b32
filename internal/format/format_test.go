package format

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/run"
)

func set(t *testing.T, root string, trusted bool, tools map[string]config.Formatter) *Set {
	t.Helper()
	return New(Options{Config: config.Formatters{Enabled: true, Tools: tools}, Root: root, Trusted: trusted, Runner: &run.Runner{}})
}

func write(t *testing.T, p, content string) []byte {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return []byte(content)
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGofmtFormatsAnUnformattedWrite(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a.go")
	written := write(t, p, "package a\nfunc  A( )  int {\nreturn 1}\n")
	o := set(t, root, false, nil).Format(context.Background(), p, written)
	want := "package a\n\nfunc A() int {\n\treturn 1\n}\n"
	if o.Formatter != "gofmt" || !o.Changed || string(o.Content) != want || read(t, p) != want {
		t.Fatalf("outcome %+v, file %q", o, read(t, p))
	}
	// A formatted file is left alone and reported unchanged.
	o = set(t, root, false, nil).Format(context.Background(), p, []byte(want))
	if o.Changed || o.Note != "" {
		t.Fatalf("second run: %+v", o)
	}
}

func TestFailingFormatterLeavesTheFileAsWritten(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a.go")
	// gofmt refuses a syntax error and writes nothing.
	written := write(t, p, "package a\nfunc A( {\n")
	o := set(t, root, false, nil).Format(context.Background(), p, written)
	if read(t, p) != string(written) || o.Changed || !strings.HasPrefix(o.Note, "gofmt failed (a.go:2:9: expected ") || !strings.HasSuffix(o.Note, "; the file is as written") {
		t.Fatalf("outcome %+v, file %q", o, read(t, p))
	}
	// A formatter that scribbles on the file and then fails: the model's
	// bytes are put back.
	tools := map[string]config.Formatter{"scribble": {Command: `echo garbage > "$FILE"; exit 1`, Extensions: []string{".txt"}}}
	q := filepath.Join(root, "b.txt")
	written = write(t, q, "mine\n")
	o = set(t, root, true, tools).Format(context.Background(), q, written)
	if read(t, q) != "mine\n" || o.Formatter != "scribble" || !strings.Contains(o.Note, "scribble failed (exit 1)") {
		t.Fatalf("outcome %+v, file %q", o, read(t, q))
	}
}

func TestConfiguredFormatters(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a.go")
	unformatted := "package a\nfunc  A() {}\n"
	// Disabled: gofmt does not run.
	o := set(t, root, false, map[string]config.Formatter{"gofmt": {Disabled: true}}).Format(context.Background(), p, write(t, p, unformatted))
	if o.Formatter != "" || read(t, p) != unformatted {
		t.Fatalf("disabled gofmt ran: %+v", o)
	}
	// A new formatter for .go wins over gofmt; $FILE names the file.
	tools := map[string]config.Formatter{"upper": {Command: `tr a-z A-Z < "$FILE" > "$FILE.tmp" && mv "$FILE.tmp" "$FILE"`, Extensions: []string{".go"}}}
	o = set(t, root, false, tools).Format(context.Background(), p, write(t, p, unformatted))
	if o.Formatter != "upper" || !o.Changed || read(t, p) != strings.ToUpper(unformatted) {
		t.Fatalf("outcome %+v, file %q", o, read(t, p))
	}
	// Formatting off altogether.
	s := New(Options{Config: config.Formatters{Enabled: false}, Root: root})
	if o := s.Format(context.Background(), p, write(t, p, unformatted)); o.Formatter != "" {
		t.Fatalf("enabled = false ran %s", o.Formatter)
	}
}

// A project's own prettier (node_modules/.bin) is project code: it runs
// only in a trusted folder, and untrusted the result says so once.
func TestProjectFormatterNeedsTrust(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "package.json"), `{"devDependencies": {"prettier": "^3"}}`)
	bin := filepath.Join(root, "node_modules", ".bin", "prettier")
	// A stand-in prettier that records it ran and formats by uppercasing.
	write(t, bin, "#!/bin/sh\n[ \"$1\" = --write ] || exit 9\ntr a-z A-Z < \"$2\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "src", "a.js")
	untrusted := set(t, root, false, nil)
	o := untrusted.Format(context.Background(), p, write(t, p, "let a\n"))
	if o.Formatter != "" || read(t, p) != "let a\n" || !strings.Contains(o.Note, "prettier not run: the project's own formatter runs only in a trusted folder") {
		t.Fatalf("untrusted: %+v", o)
	}
	if o := untrusted.Format(context.Background(), p, write(t, p, "let a\n")); o.Note != "" {
		t.Fatalf("the note repeats: %q", o.Note)
	}
	o = set(t, root, true, nil).Format(context.Background(), p, write(t, p, "let a\n"))
	if o.Formatter != "prettier" || read(t, p) != "LET A\n" {
		t.Fatalf("trusted: %+v, file %q", o, read(t, p))
	}
	// Without prettier among its dependencies the project does not use it.
	write(t, filepath.Join(root, "package.json"), `{"devDependencies": {}}`)
	if o := set(t, root, true, nil).Format(context.Background(), p, write(t, p, "let a\n")); o.Formatter != "" {
		t.Fatalf("prettier ran without being a dependency: %+v", o)
	}
}

func TestRustfmtOnlyWhereTheProjectUsesIt(t *testing.T) {
	if !onPath("rustfmt") {
		t.Fatal("rustfmt is not on PATH (scripts/test installs cargo, which brings it)")
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "Cargo.toml"), "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	lib := filepath.Join(root, "src", "lib.rs")
	// An unformatted crate: rustfmt is not the project's habit.
	write(t, lib, "pub fn a()->i32{1}\n")
	if o := set(t, root, false, nil).Format(context.Background(), lib, write(t, lib, "pub fn a()->i32{1}\n")); o.Formatter != "" {
		t.Fatalf("rustfmt ran on an unformatted crate: %+v", o)
	}
	// A crate that is rustfmt-clean already is formatted on.
	write(t, lib, "pub fn a() -> i32 {\n    1\n}\n")
	b := filepath.Join(root, "src", "b.rs")
	if o := set(t, root, false, nil).Format(context.Background(), b, write(t, b, "pub fn b()->i32{2}\n")); o.Formatter != "rustfmt" || !o.Changed {
		t.Fatalf("rustfmt did not run in a formatted crate: %+v", o)
	}
	write(t, lib, "pub fn a()->i32{1}\n")
	// A rustfmt.toml says it is.
	write(t, filepath.Join(root, "rustfmt.toml"), "")
	o := set(t, root, false, nil).Format(context.Background(), lib, write(t, lib, "pub fn a()->i32{1}\n"))
	if o.Formatter != "rustfmt" || read(t, lib) != "pub fn a() -> i32 {\n    1\n}\n" {
		t.Fatalf("outcome %+v, file %q", o, read(t, lib))
	}
}
