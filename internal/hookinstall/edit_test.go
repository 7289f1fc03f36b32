package hookinstall

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the installed and uninstalled sections of testdata/edit")

// TestEdits runs each testdata/edit case: its comment names the agent;
// "before" is the user's file, "installed" what install makes of it (the
// golden output), "uninstalled" what uninstall makes of that when it is
// not "before" again byte for byte. Installing twice changes nothing.
func TestEdits(t *testing.T) {
	files, _ := filepath.Glob("testdata/edit/*.txtar")
	if len(files) == 0 {
		t.Fatal("no cases in testdata/edit")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(ar.Comment), "\n")
			a, err := ParseAgent(strings.TrimSpace(strings.TrimPrefix(first, "agent:")))
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string][]byte{}
			for _, f := range ar.Files {
				sections[f.Name] = f.Data
			}
			before := sections["before"]
			command := "chanto hook " + string(a)
			installed, ch, err := install(before, a, command)
			if err != nil {
				t.Fatalf("install: %v", err)
			}
			if len(ch.Added) == 0 {
				t.Errorf("install added nothing")
			}
			again, ch2, err := install(installed, a, command)
			if err != nil || !bytes.Equal(again, installed) || len(ch2.Added) != 0 || len(ch2.Kept) != len(a.hooks()) {
				t.Errorf("a second install changed the file (%v, %+v):\n%s", err, ch2, again)
			}
			uninstalled, _, err := uninstall(installed, a)
			if err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			if *update {
				sections["installed"] = installed
				if !bytes.Equal(uninstalled, before) {
					sections["uninstalled"] = uninstalled
				} else {
					delete(sections, "uninstalled")
				}
				writeCase(t, file, ar, sections)
				return
			}
			if !bytes.Equal(installed, sections["installed"]) {
				t.Errorf("installed differs from the golden section:\n%s", installed)
			}
			want, ok := sections["uninstalled"]
			if !ok {
				want = before
			}
			if !bytes.Equal(uninstalled, want) {
				t.Errorf("uninstall gave:\n%s\nwant:\n%s", uninstalled, want)
			}
			if f, _ := scanText(uninstalled, a); len(f) != 0 {
				t.Errorf("uninstall left %d chanto hooks", len(f))
			}
		})
	}
}

func scanText(src []byte, a Agent) ([]Found, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil
	}
	root, err := parseJSON(src, a.comments())
	if err != nil {
		return nil, err
	}
	return scan(src, root, a, "")
}

func writeCase(t *testing.T, file string, ar *txtar.Archive, sections map[string][]byte) {
	out := &txtar.Archive{Comment: ar.Comment}
	for _, name := range []string{"before", "installed", "uninstalled"} {
		if data, ok := sections[name]; ok {
			out.Files = append(out.Files, txtar.File{Name: name, Data: data})
		}
	}
	if err := os.WriteFile(file, txtar.Format(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBadFiles: a file chanto cannot read as its agent does is an error
// naming the line, and install writes nothing.
func TestBadFiles(t *testing.T) {
	for _, c := range []struct {
		agent Agent
		src   string
		want  string
	}{
		{Claude, "{\n  \"a\": 1\n  \"b\": 2\n}\n", `line 3: expected , or } after the value of "a"`},
		{Claude, "{\n  // mine\n  \"a\": 1\n}\n", "line 2: a comment, which this file's JSON does not allow"},
		{Codex, "{\"hooks\": {\"Stop\": [,]}}", "line 1: unexpected ','"},
		{Claude, "{\n  \"a\": [1, 2,]\n}", "line 2: a comma before ]"},
		{Gemini, "{\n  /* open\n", "line 2: a /* comment that is never closed"},
		{Claude, "[]", "the file is not a JSON object"},
		{Claude, `{"hooks": []}`, `"hooks" is not an object`},
		{Claude, `{"hooks": {"Stop": {}}}`, "hooks.Stop is not a list"},
		{Claude, "{\"a\": \"x\ny\"}", "line 1: a control character inside a string"},
		{Claude, `{"a": 1} {}`, "line 1: unexpected '{' after the end of the document"},
		{Claude, `{"a": 01x}`, "line 1: a malformed number"},
		{Gemini, "{\"a\": 1,\n}", "line 2: a comma before }"},
	} {
		_, _, err := install([]byte(c.src), c.agent, "chanto hook "+string(c.agent))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
		if _, _, err := uninstall([]byte(c.src), c.agent); err == nil && !strings.Contains(c.want, "not a list") {
			t.Errorf("%q: uninstall read it", c.src)
		}
	}
}

func TestOurs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"chanto hook claude":                      true,
		"/opt/chanto/bin/chanto hook claude":      true,
		"'/path with space/chanto' hook claude":   true,
		"chanto hook claude --timeout 5m":         true,
		"chanto hook codex":                       false,
		"chanto verify":                           false,
		"echo chanto hook claude":                 false,
		"chanto hook claude; rm -rf /":            false,
		"./lint.sh":                               false,
		"CHANTO_HOME=/x chanto hook claude | tee": false,
	} {
		if got := ours(Claude, cmd); got != want {
			t.Errorf("ours(%q) = %v, want %v", cmd, got, want)
		}
	}
}
