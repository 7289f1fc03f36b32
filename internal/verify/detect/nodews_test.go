package detect

import (
	"strings"
	"testing"
)

func TestNodeWorkspaceDependents(t *testing.T) {
	for _, tc := range []struct{ name, manifest, file string }{
		{"npm", `{"name":"root","workspaces":["packages/*","!packages/skip"]}`, "package.json"},
		{"yarn", `{"name":"root","workspaces":{"packages":["packages/*","!packages/skip"]}}`, "package.json"},
		{"pnpm", "packages:\n  - 'packages/*'\n  - \"!packages/skip\" # not this one\nonlyBuiltDependencies: []\n", "pnpm-workspace.yaml"},
		// Flow style, as `pnpm init` and many repositories write it; read by
		// hand, it gave no packages and no dependents (issue 10).
		{"pnpm-flow", `packages: ["packages/*", '!packages/skip']` + "\n", "pnpm-workspace.yaml"},
		{"pnpm-flow-multiline", "# workspace\npackages: [\n  packages/*,\n  \"!packages/skip\",\n]\ncatalog: {react: ^18}\n", "pnpm-workspace.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, tc.file, tc.manifest)
			if tc.file != "package.json" {
				write(t, root, "package.json", `{"name":"root"}`)
			}
			test := `"scripts":{"test":"node --test"}`
			write(t, root, "packages/a/package.json", `{"name":"@ws/a",`+test+`}`)
			write(t, root, "packages/a/index.js", "")
			write(t, root, "packages/b/package.json", `{"name":"@ws/b","dependencies":{"@ws/a":"workspace:*"},`+test+`}`)
			write(t, root, "packages/c/package.json", `{"name":"@ws/c","devDependencies":{"@ws/b":"1.0.0"},`+test+`}`)
			write(t, root, "packages/d/package.json", `{"name":"@ws/d",`+test+`}`)
			write(t, root, "packages/skip/package.json", `{"name":"@ws/skip","dependencies":{"@ws/a":"1"},`+test+`}`)
			write(t, root, "packages/a/node_modules/x/package.json", `{"name":"x","dependencies":{"@ws/a":"1"}}`)

			ps, err := Projects(root, []string{"packages/a/index.js"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := "packages/a: |" +
				"packages/b: it depends on @ws/a from packages/a/ (workspace), which changed|" +
				"packages/c: it depends on @ws/b from packages/b/ (workspace), which depends on a changed package"
			if g := checkReasons(root, ps); g != want {
				t.Errorf("got  %s\nwant %s", g, want)
			}

			// b changed too: it still runs in full, since a changed under it.
			ps, err = Projects(root, []string{"packages/a/index.js", "packages/b/index.js"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) < 2 || !strings.HasPrefix(ps[1].Checks[0].FullReason.String(), "it depends on @ws/a from packages/a/") {
				t.Errorf("a and b changed: b's check is not full: %+v", ps)
			}

			// Nothing changed: the root has no tests, its packages do.
			ps, err = Projects(root, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(ps); n != 1 || len(ps[0].Checks) != 4 {
				t.Errorf("no change: %d projects, %v", n, commands(ps))
			}
		})
	}
}

// A pnpm-workspace.yaml that is not YAML is named with its line: its
// packages cannot be read, so their dependents would be missed.
func TestPnpmWorkspaceInvalid(t *testing.T) {
	for manifest, want := range map[string]string{
		"packages: [\"packages/*\"\n": "pnpm-workspace.yaml:",
		"packages:\n  a: b\n":         "pnpm-workspace.yaml:2: packages: ",
		"packages:\n - a\n\tb: [\n":   "pnpm-workspace.yaml:",
	} {
		root := t.TempDir()
		write(t, root, "pnpm-workspace.yaml", manifest)
		write(t, root, "package.json", `{"name":"root"}`)
		write(t, root, "packages/a/package.json", `{"name":"@ws/a","scripts":{"test":"node --test"}}`)
		write(t, root, "packages/a/index.js", "")
		_, err := Projects(root, []string{"packages/a/index.js"}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want %s…", manifest, err, want)
		}
	}
}
