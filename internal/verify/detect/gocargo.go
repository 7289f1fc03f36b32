package detect

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/chanto-dev/chanto/internal/run"
)

// goModErrLine matches "/abs/go.mod:4: message" in go's parse errors.
var goModErrLine = regexp.MustCompile(`go\.mod:(\d+)(?::\d+)?: (.+)`)

// checkGoMod asks go itself to parse go.mod, so a broken module file is
// reported once, by name and line, instead of as a failed test run.
func checkGoMod(ctx context.Context, root, rel string, runner *run.Runner) error {
	res, err := runner.Run(ctx, run.Spec{
		Args:    []string{"go", "mod", "edit", "-json"},
		Dir:     root,
		Purpose: run.Internal,
	})
	if err != nil {
		// go itself missing is reported when the check runs.
		return nil
	}
	if res.ExitCode == 0 {
		return nil
	}
	out := string(res.Output)
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

// cargoWorkspaceRoot returns the Cargo workspace root above a crate root
// (a Cargo.toml with a [workspace] table, up to the repository root), or
// dir itself.
func cargoWorkspaceRoot(repoRoot, dir string) string {
	if !fileExists(filepath.Join(dir, "Cargo.toml")) {
		return dir
	}
	best := dir
	for cur := dir; ; {
		if isCargoWorkspace(filepath.Join(cur, "Cargo.toml")) {
			best = cur
		}
		if cur == repoRoot || len(cur) <= len(repoRoot) {
			break
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		cur = parent
	}
	return best
}

func isCargoWorkspace(manifest string) bool {
	m, ok := cargoTables(manifest)
	return ok && m["workspace"]
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
