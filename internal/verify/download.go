package verify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/runner"
	"github.com/chanto-dev/chanto/internal/verify/selecttest"
)

// Go and cargo download a project's dependencies as they build. In the
// sandbox, whose network is denied, a check whose dependencies are not
// in the local caches yet fails with the package manager's network error.
// The engine then downloads them with the package manager's own fetch
// command, which runs no project code, in the runner's download sandbox
// (the registries reachable), and runs the check again.

// downloadArgs is the command that fetches dependencies for runner r;
// nil when r's checks download nothing by themselves.
func downloadArgs(r detect.Runner) []string { return runner.For(r).Download().Args }

// lackedNetwork reports whether a failed run's output is the package
// manager failing to download a dependency.
func lackedNetwork(r detect.Runner, output string) bool {
	d := runner.For(r).Download()
	return d.Lacked != nil && d.Lacked(output)
}

// execute runs one selection of check c. When the run failed for want of
// a dependency it could not download, the dependencies are downloaded
// (once per folder and run) and the selection runs again; if that cannot
// be done, the check could not run, and the reason says what to do.
func (e *engine) execute(ctx context.Context, c detect.Check, sel selecttest.Selection, label string, env ...string) (CheckRun, error) {
	cr, err := e.executeOnce(ctx, c, sel, label, env...)
	if err != nil || cr.Passed || cr.TimedOut || c.Runner == detect.Custom || !lackedNetwork(c.Runner, cr.raw) {
		return cr, err
	}
	args := downloadArgs(c.Runner)
	shown := strings.Join(args, " ")
	if e.r.Sandbox != nil && e.r.DownloadSandbox == nil {
		// Read-only mode, lockdown or a domain allowlist: no download
		// may run on its own.
		cr.CouldNotRun = fmt.Sprintf("its dependencies are not downloaded, and the sandbox gives checks no network to fetch them: run %s first", shown)
		return cr, nil
	}
	if e.r.Sandbox == nil {
		cr.CouldNotRun = "it could not download its dependencies: " + networkLine(c.Runner, cr.raw)
		return cr, nil
	}
	if c.Runner == detect.Cargo {
		if file := cargoRunsPrograms(e.cs.Root, c.Dir); file != "" {
			cr.CouldNotRun = fmt.Sprintf("its dependencies are not downloaded, and %s names programs cargo would run with the network, so chanto does not: run %s first", file, shown)
			return cr, nil
		}
		if file := cargoNamesSources(e.cs.Root, c.Dir); file != "" {
			cr.CouldNotRun = fmt.Sprintf("its dependencies are not downloaded, and %s names a git source or a registry other than crates.io, which chanto does not fetch on its own: run %s first", file, shown)
			return cr, nil
		}
	}
	if why := e.download(ctx, c, args); why != "" {
		cr.CouldNotRun = fmt.Sprintf("it could not download its dependencies: %s failed: %s", shown, why)
		return cr, nil
	}
	retry, err := e.executeOnce(ctx, c, sel, label, env...)
	if err != nil {
		return retry, err
	}
	retry.Downloaded = shown
	if !retry.Passed && !retry.TimedOut && lackedNetwork(c.Runner, retry.raw) {
		retry.CouldNotRun = fmt.Sprintf("it could not download its dependencies, even after %s: %s", shown, networkLine(c.Runner, retry.raw))
	}
	return retry, nil
}

// cargoRunsPrograms names the project file that would make cargo fetch
// run a program of the project's choosing: a .cargo/config(.toml) that
// sets rustc or its wrappers or a credential provider, or a
// rust-toolchain.toml with a toolchain path. It looks from dir up to
// root; "" when there is none.
func cargoRunsPrograms(root, dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		for _, name := range []string{".cargo/config.toml", ".cargo/config", "rust-toolchain.toml"} {
			file := filepath.Join(d, filepath.FromSlash(name))
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			var m map[string]any
			_, perr := toml.Decode(string(data), &m)
			if perr != nil || namesProgram(name, m) {
				rel, _ := filepath.Rel(root, file)
				return filepath.ToSlash(rel)
			}
		}
		if d == root || d == filepath.Dir(d) || !strings.HasPrefix(d, root) {
			return ""
		}
	}
}

// namesProgram reports the keys of a cargo or rustup file that name a
// program to run.
func namesProgram(name string, m map[string]any) bool {
	table := func(m map[string]any, k string) map[string]any {
		t, _ := m[k].(map[string]any)
		return t
	}
	if name == "rust-toolchain.toml" {
		_, ok := table(m, "toolchain")["path"]
		return ok
	}
	for _, k := range []string{"rustc", "rustc-wrapper", "rustc-workspace-wrapper"} {
		if _, ok := table(m, "build")[k]; ok {
			return true
		}
	}
	reg := table(m, "registry")
	if _, ok := reg["credential-provider"]; ok {
		return true
	}
	if _, ok := reg["global-credential-providers"]; ok {
		return true
	}
	if _, ok := m["credential-alias"]; ok {
		return true
	}
	for _, r := range table(m, "registries") {
		if rt, ok := r.(map[string]any); ok {
			if _, ok := rt["credential-provider"]; ok {
				return true
			}
		}
	}
	return false
}

// downloadEnv keeps the go command to module proxies: no module is
// fetched from a repository the project names (git, hg, …).
var downloadEnv = []string{"GOVCS=*:off"}

// cargoNamesSources names the project file through which cargo fetch
// would fetch from a place the project chose rather than crates.io: a
// git dependency or patch in a Cargo.toml, a git or other-registry source
// in Cargo.lock, a [source] replacement or [registries] entry in
// .cargo/config(.toml). It looks from dir up to root; "" when none.
func cargoNamesSources(root, dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		for _, name := range []string{"Cargo.toml", "Cargo.lock", ".cargo/config.toml", ".cargo/config"} {
			file := filepath.Join(d, filepath.FromSlash(name))
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			if namesSource(name, data) {
				rel, _ := filepath.Rel(root, file)
				return filepath.ToSlash(rel)
			}
		}
		if d == root || d == filepath.Dir(d) || !strings.HasPrefix(d, root) {
			return ""
		}
	}
}

// crates.io's index, as Cargo.lock names it.
var cratesIO = []string{"registry+https://github.com/rust-lang/crates.io-index", "sparse+https://index.crates.io/"}

func namesSource(name string, data []byte) bool {
	var m map[string]any
	if name == "Cargo.lock" {
		if _, err := toml.Decode(string(data), &m); err != nil {
			return true
		}
		pkgs, _ := m["package"].([]map[string]any)
		for _, p := range pkgs {
			if src, ok := p["source"].(string); ok && !slices.Contains(cratesIO, src) {
				return true
			}
		}
		return false
	}
	if _, err := toml.Decode(string(data), &m); err != nil {
		return true
	}
	if strings.HasPrefix(name, ".cargo/") {
		_, src := m["source"]
		_, regs := m["registries"]
		return src || regs
	}
	found := false
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if k == "git" || k == "registry" || k == "registry-index" {
					found = true
				}
				walk(x)
			}
		case []map[string]any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(m)
	return found
}

// download runs the dependency download in dir once per run; it returns
// "" when it worked, else the last line of its output.
func (e *engine) download(ctx context.Context, c detect.Check, args []string) string {
	// The two stages of a go test run may both find the network missing.
	e.mu.Lock()
	defer e.mu.Unlock()
	dir := c.Dir
	if why, done := e.downloads[dir]; done {
		return why
	}
	if e.downloads == nil {
		e.downloads = map[string]string{}
	}
	stop := e.progress(e.shownDir(dir) + strings.Join(args, " ") + " (downloading dependencies)")
	kept := keepManifests(dir)
	res, err := e.r.Run(ctx, run.Spec{Args: args, Dir: dir, Timeout: e.opts.Timeout, Purpose: run.Download, Env: append(runner.For(c.Runner).Env(), downloadEnv...)})
	kept.restore()
	stop()
	why := ""
	switch {
	case err != nil:
		why = err.Error()
	case res.TimedOut:
		why = fmt.Sprintf("timed out after %s", e.opts.Timeout)
	case res.ExitCode != 0:
		why = lastLine(string(res.Output))
	}
	e.downloads[dir] = why
	return why
}

// downloadTouches are the files a dependency download may rewrite (go mod
// download adds go.sum lines and, in a module that needs go mod tidy,
// raises go.mod's requirements; cargo fetch may update Cargo.lock).
var downloadTouches = []string{"go.mod", "go.sum", "Cargo.lock"}

// manifests holds the bytes of downloadTouches before a download.
type manifests map[string]manifest

type manifest struct {
	data []byte
	mode os.FileMode
}

// keepManifests reads the files of downloadTouches in dir that exist.
func keepManifests(dir string) manifests {
	kept := manifests{}
	for _, name := range downloadTouches {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if data, err := os.ReadFile(p); err == nil {
			kept[p] = manifest{data: data, mode: fi.Mode().Perm()}
		}
	}
	return kept
}

// restore puts back every kept file the download changed: a download is
// there to fill the caches, never to edit the project. (A check that
// then needs the edit fails as it would have in your own shell.)
func (kept manifests) restore() {
	for p, m := range kept {
		if now, err := os.ReadFile(p); err == nil && bytes.Equal(now, m.data) {
			continue
		}
		_ = os.WriteFile(p, m.data, m.mode)
	}
}

// maxNetworkLine bounds the error quoted in the evidence line.
const maxNetworkLine = 200

// networkLine is the line of output that names the network error.
func networkLine(r detect.Runner, output string) string {
	re := runner.For(r).Download().Line
	line := lastLine(output)
	for l := range strings.SplitSeq(output, "\n") {
		if re != nil && re.MatchString(l) {
			line = strings.TrimSpace(l)
			break
		}
	}
	if r := []rune(line); len(r) > maxNetworkLine {
		line = string(r[:maxNetworkLine]) + "…"
	}
	return line
}
