package detect

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/mod/modfile"
)

// goModErrLine matches "/abs/go.mod:4: message" in go's parse errors.
var goModErrLine = regexp.MustCompile(`go\.mod:(\d+)(?::\d+)?: (.+)`)

// checkGoMod parses go.mod as the go command does (golang.org/x/mod's
// strict parser, the one `go mod edit` uses), so a broken module file is
// reported once, by name and line, instead of as a failed test run. It
// runs in-process: a hook's stop needs no go process to learn the file
// parses.
func checkGoMod(root, rel string) error {
	name := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone meanwhile: go says what it misses when the check runs
		}
		return &ManifestError{File: rel, Msg: err.Error()}
	}
	if _, err := modfile.Parse(name, data, nil); err != nil {
		return goModError(rel, err.Error())
	}
	return nil
}

// goModError turns go's parse error text into a ManifestError.
func goModError(rel, out string) error {
	if m := goModErrLine.FindStringSubmatch(out); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &ManifestError{File: rel, Line: line, Msg: strings.TrimSpace(m[2])}
	}
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out), "go: "))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return &ManifestError{File: rel, Msg: msg}
}

// checkCargoToml reports a Cargo.toml that is not TOML by name and line,
// instead of as a failed test run.
func checkCargoToml(manifest, rel string) error {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return nil // a deleted manifest: cargo says what it misses
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return &ManifestError{File: rel, Line: perr.Position.Line, Msg: perr.Message}
		}
		return &ManifestError{File: rel, Msg: err.Error()}
	}
	return nil
}

// cargoWorkspaceRoot returns the root of the Cargo workspace a crate
// belongs to, found as cargo finds it: the crate's own manifest when it has
// a [workspace] table, the folder package.workspace names, else the nearest
// manifest above it (up to the repository root) with a [workspace] table
// that does not exclude it. A crate in no workspace is its own root, dir.
func cargoWorkspaceRoot(repoRoot, dir string) string {
	manifest := filepath.Join(dir, "Cargo.toml")
	if !fileExists(manifest) {
		return dir
	}
	m, _ := cargoManifest(manifest)
	if _, ok := m["workspace"]; ok {
		return dir
	}
	if pkg, ok := m["package"].(map[string]any); ok {
		if ws, ok := pkg["workspace"].(string); ok && ws != "" {
			if root := filepath.Join(dir, filepath.FromSlash(ws)); fileExists(filepath.Join(root, "Cargo.toml")) {
				return root
			}
		}
	}
	for cur := dir; cur != repoRoot && len(cur) > len(repoRoot); {
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		cur = parent
		pm, ok := cargoManifest(filepath.Join(cur, "Cargo.toml"))
		ws, isWS := pm["workspace"].(map[string]any)
		if !ok || !isWS {
			continue
		}
		if !cargoExcludes(cur, ws, dir) {
			return cur
		}
	}
	return dir
}

// cargoExcludes reports whether a workspace rooted at root lists dir (or a
// folder above it) under exclude, and not under members.
func cargoExcludes(root string, ws map[string]any, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	listed := func(key string) bool {
		list, _ := ws[key].([]any)
		for _, v := range list {
			p, _ := v.(string)
			p = strings.TrimSuffix(strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "./"), "/")
			if p != "" && (rel == p || strings.HasPrefix(rel, p+"/")) {
				return true
			}
		}
		return false
	}
	return listed("exclude") && !listed("members")
}

// rootPackageWorkspace reports a Cargo.toml that is both a package and a
// workspace root, where a plain "cargo test" skips the other members.
func rootPackageWorkspace(manifest string) bool {
	m, ok := cargoTables(manifest)
	return ok && m["workspace"] && m["package"]
}

// cargoTables lists the top-level tables of a Cargo.toml.
func cargoTables(manifest string) (map[string]bool, bool) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return map[string]bool{
			"workspace": bytes.Contains(data, []byte("[workspace]")),
			"package":   bytes.Contains(data, []byte("[package]")),
		}, true
	}
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out, true
}

// cargoManifest decodes a Cargo.toml; a manifest that does not parse
// yields only the tables its text names ([workspace], [package]), empty.
func cargoManifest(manifest string) (map[string]any, bool) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		m = map[string]any{}
		for _, table := range []string{"workspace", "package"} {
			if bytes.Contains(data, []byte("["+table+"]")) {
				m[table] = map[string]any{}
			}
		}
	}
	return m, true
}

// hasMakeTestTarget reports whether the folder's makefile defines a rule
// for the target "test".
func hasMakeTestTarget(root string) bool {
	for _, name := range makefiles {
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			continue
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if ruleDefinesTest(sc.Text()) {
				return true
			}
		}
		return false
	}
	return false
}

// ruleDefinesTest reports whether a makefile line is a rule whose targets
// include "test" (not a recipe line, not a variable assignment).
func ruleDefinesTest(line string) bool {
	if line == "" || line[0] == '\t' || line[0] == '#' {
		return false
	}
	targets, rest, ok := strings.Cut(line, ":")
	if !ok || strings.HasPrefix(rest, "=") || strings.ContainsAny(targets, "=") {
		return false
	}
	for _, t := range strings.Fields(targets) {
		if t == "test" {
			return true
		}
	}
	return false
}
