package hookinstall

import (
	"os"
	"path/filepath"
	"testing"
)

// Install then uninstall gives back the very file the user had, even
// where the text alone cannot tell what install added: an empty hooks
// object or event list install filled, an empty file.
func TestUninstallRestoresTheFile(t *testing.T) {
	for name, before := range map[string]string{
		"empty hooks":      "{\n  \"hooks\": {}\n}\n",
		"empty event list": "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
		"empty file":       "",
		"only hooks":       "{\"hooks\":{}}",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			paths := Paths{Root: root, Home: t.TempDir()}
			file := paths.File(Claude, Project)
			os.MkdirAll(filepath.Dir(file), 0o755)
			if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := Options{Agent: Claude, Scope: Project, Paths: paths, Command: "chanto hook claude", Record: t.TempDir()}
			if _, err := Install(opts); err != nil {
				t.Fatal(err)
			}
			if _, err := Install(opts); err != nil { // a second install changes nothing
				t.Fatal(err)
			}
			if _, err := Uninstall(opts); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("uninstall removed the user's file: %v", err)
			}
			if string(got) != before {
				t.Errorf("uninstall gave\n%q\nwant\n%q", got, before)
			}
		})
	}
}

// A file install created goes again; one the user edited after install
// loses only chanto's entries.
func TestUninstallAfterEdits(t *testing.T) {
	root := t.TempDir()
	paths := Paths{Root: root, Home: t.TempDir()}
	file := paths.File(Claude, Project)
	opts := Options{Agent: Claude, Scope: Project, Paths: paths, Command: "chanto hook claude", Record: t.TempDir()}
	if _, err := Install(opts); err != nil {
		t.Fatal(err)
	}
	if res, err := Uninstall(opts); err != nil || !res.Deleted {
		t.Fatalf("the file install created was not deleted (%+v, %v)", res, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}

	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("{\n  \"hooks\": {}\n}\n"), 0o644)
	if _, err := Install(opts); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	os.WriteFile(file, append(data[:len(data)-2], []byte(",\n  \"model\": \"opus\"\n}\n")...), 0o644)
	if _, err := Uninstall(opts); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if want := "{\n  \"model\": \"opus\"\n}\n"; string(got) != want {
		t.Errorf("uninstall after an edit gave\n%s\nwant\n%s", got, want)
	}
}

// An install with --command naming a chanto that exists is installed, as
// status says; once that program is gone its entries are outdated.
func TestStatusWithOwnCommand(t *testing.T) {
	root := t.TempDir()
	paths := Paths{Root: root, Home: t.TempDir()}
	bin := filepath.Join(t.TempDir(), "chanto")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(Options{Agent: Claude, Scope: Project, Paths: paths, Command: bin + " hook claude"}); err != nil {
		t.Fatal(err)
	}
	status := func() Entry {
		for _, e := range Status(paths, func(a Agent) string { return "chanto hook " + string(a) }) {
			if e.Agent == Claude && e.Scope == Project {
				return e
			}
		}
		t.Fatal("no entry")
		return Entry{}
	}
	if e := status(); !e.Installed() {
		t.Errorf("installed with --command %s: status says missing %v, outdated %v", bin, e.Missing, e.Outdated)
	}
	os.Remove(bin)
	if e := status(); e.Installed() || len(e.Outdated) != len(Claude.hooks()) {
		t.Errorf("the command's program is gone, yet status says installed (outdated %v)", e.Outdated)
	}
}

// A file install refuses is an error in status too, not "not installed".
func TestStatusOfRefusedFile(t *testing.T) {
	paths := Paths{Root: t.TempDir(), Home: t.TempDir()}
	file := paths.File(Claude, Project)
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"hooks": {"Stop": {"hooks": []}}}`), 0o644)
	_, installErr := Install(Options{Agent: Claude, Scope: Project, Paths: paths, Command: "chanto hook claude"})
	for _, e := range Status(paths, func(a Agent) string { return "chanto hook " + string(a) }) {
		if e.Agent == Claude && e.Scope == Project && (installErr == nil || e.Err == nil) {
			t.Errorf("install: %v; status: %v", installErr, e.Err)
		}
	}
}
