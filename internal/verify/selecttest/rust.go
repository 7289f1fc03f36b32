package selecttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

func init() { analyzers[detect.Cargo] = selectCargo }

// cargoMeta is the part of `cargo metadata --no-deps` selection needs.
type cargoMeta struct {
	Packages []struct {
		Name         string `json:"name"`
		ID           string `json:"id"`
		ManifestPath string `json:"manifest_path"`
		Targets      []struct {
			Name             string   `json:"name"`
			Kind             []string `json:"kind"`
			SrcPath          string   `json:"src_path"`
			RequiredFeatures []string `json:"required-features"`
			Test             *bool    `json:"test"`
		} `json:"targets"`
		Dependencies []struct {
			Name string `json:"name"`
			Path string `json:"path"`
		} `json:"dependencies"`
	} `json:"packages"`
	WorkspaceMembers []string `json:"workspace_members"`
}

// crate is one workspace member, paths relative to the check's folder.
type crate struct {
	name  string
	dir   string
	tests map[string]string // integration-test source → target name
	gated map[string]bool   // test sources plain cargo test skips: required-features, test = false
	deps  []string          // workspace crates it depends on (any kind)
}

func loadCrates(ctx context.Context, r *run.Runner, dir string) ([]*crate, error) {
	var stdout bytes.Buffer
	res, err := r.Run(ctx, run.Spec{
		Args:    []string{"cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"},
		Dir:     dir,
		Purpose: run.Internal,
		Stdout:  &stdout,
	})
	if err != nil {
		return nil, fmt.Errorf("cargo metadata: %w", err)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("cargo metadata in %s: %s", dir, lastLine(res.Output))
	}
	var meta cargoMeta
	if err := json.Unmarshal(stdout.Bytes(), &meta); err != nil {
		return nil, fmt.Errorf("cargo metadata output: %w", err)
	}
	members := map[string]bool{}
	for _, id := range meta.WorkspaceMembers {
		members[id] = true
	}
	rel := func(p string) string {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			return p
		}
		return filepath.ToSlash(r)
	}
	byDir := map[string]string{}
	var crates []*crate
	for _, p := range meta.Packages {
		if !members[p.ID] {
			continue
		}
		c := &crate{name: p.Name, dir: rel(filepath.Dir(p.ManifestPath)), tests: map[string]string{}, gated: map[string]bool{}}
		for _, t := range p.Targets {
			if contains(t.Kind, "test") {
				c.tests[rel(t.SrcPath)] = t.Name
				c.gated[rel(t.SrcPath)] = len(t.RequiredFeatures) > 0 || (t.Test != nil && !*t.Test)
			}
		}
		byDir[c.dir] = c.name
		crates = append(crates, c)
	}
	for _, p := range meta.Packages {
		if !members[p.ID] {
			continue
		}
		c := crateNamed(crates, p.Name)
		for _, d := range p.Dependencies {
			if d.Path == "" {
				continue
			}
			if name, ok := byDir[rel(d.Path)]; ok && !contains(c.deps, name) {
				c.deps = append(c.deps, name)
			}
		}
	}
	return crates, nil
}

func crateNamed(crates []*crate, name string) *crate {
	for _, c := range crates {
		if c.name == name {
			return c
		}
	}
	return nil
}

// crateOf returns the member whose folder holds f most closely.
func crateOf(crates []*crate, f string) *crate {
	var best *crate
	for _, c := range crates {
		if c.dir == "." || f == c.dir || strings.HasPrefix(f, c.dir+"/") {
			if best == nil || len(c.dir) > len(best.dir) || best.dir == "." {
				best = c
			}
		}
	}
	return best
}

// selectCargo narrows cargo test to the changed crates and the workspace
// crates that depend on them; a change to integration test files only
// runs those test targets.
func selectCargo(ctx context.Context, r *run.Runner, in Input) (Selection, error) {
	if sel, ok := singleCrate(in); ok {
		return sel, nil
	}
	return selectCrates(ctx, r, in)
}

// selectCrates is selectCargo from cargo metadata's list of crates.
func selectCrates(ctx context.Context, r *run.Runner, in Input) (Selection, error) {
	crates, err := loadCrates(ctx, r, in.Check.Dir)
	if err != nil {
		return Selection{}, err
	}
	if n := countRustTests(in.Check.Dir, crates); n <= MinTestFiles {
		return fullSelection(in.Check, scope.Count(scope.FewTestFiles, MinTestFiles)), nil
	}
	whole := map[string]bool{}         // crates whose code changed
	onlyTests := map[string][]string{} // crate → changed integration test targets
	for _, f := range cleanChanged(in.Changed) {
		c := crateOf(crates, f)
		switch {
		case c == nil:
			if strings.HasSuffix(f, ".rs") {
				return fullSelection(in.Check, scope.Because(scope.NoRelatedTests, f)), nil
			}
			return fullSelection(in.Check, scope.For(scope.NotCode, "Rust", f)), nil
		case !strings.HasSuffix(f, ".rs"):
			return fullSelection(in.Check, scope.For(scope.NotCode, "Rust", f)), nil
		case c.tests[f] != "":
			targets, ok := testTargetsUsing(in.Check.Dir, c, f)
			if !ok {
				// The full suite skips a target with required-features or
				// test = false, which --test NAME fails or runs: run the crate.
				whole[c.name] = true
				continue
			}
			for _, t := range targets {
				if !contains(onlyTests[c.name], t) {
					onlyTests[c.name] = append(onlyTests[c.name], t)
				}
			}
		default:
			whole[c.name] = true
		}
	}
	selected := reverseDeps(crates, whole)
	for name := range onlyTests {
		if selected[name] {
			delete(onlyTests, name)
		}
	}
	if len(selected) == 0 && len(onlyTests) == 1 {
		for name, targets := range onlyTests {
			sort.Strings(targets)
			extra := []string{"-p", name}
			for _, t := range targets {
				extra = append(extra, "--test", t)
			}
			return narrowed(runner.CargoArgs(in.Check.Args, extra), []string{name}, nil), nil
		}
	}
	for name := range onlyTests {
		selected[name] = true
	}
	if len(selected) == 0 {
		return fullSelection(in.Check, scope.Because(scope.NoRelatedTests)), nil
	}
	if len(selected) == len(crates) {
		return fullSelection(in.Check, scope.For(scope.ReachesAll, "crate")), nil
	}
	names := sortedKeys(selected)
	var extra []string
	for _, n := range names {
		extra = append(extra, "-p", n)
	}
	return narrowed(runner.CargoArgs(in.Check.Args, extra), names, nil), nil
}

// singleCrate answers without cargo metadata (a sandboxed start and
// about 25 ms of cargo's CPU) where its answer is known to be the whole
// crate: the check's manifest is one package declaring no [[test]]
// targets, no Cargo.toml above it names a workspace (detection gives a
// member its workspace's root anyway), and no changed file is under
// tests/, the only change such a crate narrows (to its --test targets).
// Anything else, a manifest that does not parse included, is left to
// cargo metadata.
func singleCrate(in Input) (Selection, bool) {
	if in.ForceFull {
		return Selection{}, false
	}
	var m map[string]any
	if _, err := toml.DecodeFile(filepath.Join(in.Check.Dir, "Cargo.toml"), &m); err != nil {
		return Selection{}, false
	}
	pkg, ok := m["package"].(map[string]any)
	if !ok || m["workspace"] != nil || m["test"] != nil || pkg["workspace"] != nil {
		return Selection{}, false
	}
	for dir := filepath.Dir(in.Check.Dir); ; dir = filepath.Dir(dir) {
		// A workspace above it may hold it as a member (its reverse
		// dependents are then the workspace's to find).
		if b, err := os.ReadFile(filepath.Join(dir, "Cargo.toml")); err == nil && bytes.Contains(b, []byte("workspace")) {
			return Selection{}, false
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	changed := cleanChanged(in.Changed)
	if len(changed) == 0 {
		return Selection{}, false
	}
	for _, f := range changed {
		if f == "tests" || strings.HasPrefix(f, "tests/") {
			return Selection{}, false
		}
	}
	if n := countRustTests(in.Check.Dir, nil); n <= MinTestFiles {
		return fullSelection(in.Check, scope.Count(scope.FewTestFiles, MinTestFiles)), true
	}
	for _, f := range changed {
		if !strings.HasSuffix(f, ".rs") {
			return fullSelection(in.Check, scope.For(scope.NotCode, "Rust", f)), true
		}
	}
	return fullSelection(in.Check, scope.For(scope.ReachesAll, "crate")), true
}

// testTargetsUsing returns the integration test target of file f and
// every other test target of the crate that compiles f as a module, at any
// depth: tests/a.rs with "mod util;" (or a #[path]/include! naming
// util.rs) also runs what tests/util.rs, itself a target, defines. ok is
// false when one of them is a target plain cargo test skips.
func testTargetsUsing(dir string, c *crate, f string) (targets []string, ok bool) {
	out := []string{c.tests[f]}
	files := []string{f}
	for i := 0; i < len(files); i++ {
		used := files[i]
		stem := strings.TrimSuffix(path.Base(used), ".rs")
		modRE := regexp.MustCompile(`\bmod\s+(r#)?` + regexp.QuoteMeta(stem) + `\s*;`)
		quoted := regexp.MustCompile(`"[^"\n]*\b` + regexp.QuoteMeta(path.Base(used)) + `"`)
		for src, target := range c.tests {
			if contains(files, src) {
				continue
			}
			data, err := readHead(filepath.Join(dir, filepath.FromSlash(src)), 1<<20)
			if err != nil {
				continue
			}
			if (path.Dir(src) == path.Dir(used) && modRE.Match(data)) || quoted.Match(data) {
				files = append(files, src)
				out = append(out, target)
			}
		}
	}
	for _, src := range files {
		if c.gated[src] {
			return nil, false
		}
	}
	return out, true
}

// reverseDeps closes a set of crates over the workspace crates that
// depend on them (normal, dev and build dependencies alike).
func reverseDeps(crates []*crate, start map[string]bool) map[string]bool {
	out := map[string]bool{}
	for n := range start {
		out[n] = true
	}
	for changed := true; changed; {
		changed = false
		for _, c := range crates {
			if out[c.name] {
				continue
			}
			for _, d := range c.deps {
				if out[d] {
					out[c.name] = true
					changed = true
					break
				}
			}
		}
	}
	return out
}

// countRustTests counts integration test files and source files holding
// unit tests.
func countRustTests(dir string, crates []*crate) int {
	n := 0
	walkFiles(dir, keepSourceDir, func(rel string) bool {
		if !strings.HasSuffix(rel, ".rs") {
			return true
		}
		c := crateOf(crates, rel)
		if c != nil && c.tests[rel] != "" {
			n++
		} else if hasRustTests(filepath.Join(dir, filepath.FromSlash(rel))) {
			n++
		}
		return n <= MinTestFiles
	})
	return n
}

func hasRustTests(file string) bool {
	data, err := readHead(file, 1<<20)
	return err == nil && (bytes.Contains(data, []byte("#[test]")) || bytes.Contains(data, []byte("#[cfg(test)]")) ||
		bytes.Contains(data, []byte("::test]")))
}
