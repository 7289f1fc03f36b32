package format

import (
	"context"
	"encoding/json"
	gofmt "go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
)

// Builtin names the built-in formatters, in the order they are tried.
var Builtin = []string{"gofmt", "rustfmt", "prettier", "ruff", "black"}

func isBuiltin(name string) bool {
	for _, b := range Builtin {
		if b == name {
			return true
		}
	}
	return false
}

var prettierExts = []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".json", ".css", ".scss", ".less", ".html", ".vue", ".md", ".yaml", ".yml"}

func builtins() []formatter {
	return []formatter{
		{name: "gofmt", extensions: []string{".go"}, inproc: gofmt.Source},
		{name: "rustfmt", extensions: []string{".rs"}, plan: (*Set).planRustfmt},
		{name: "prettier", extensions: prettierExts, plan: (*Set).planPrettier},
		{name: "ruff", extensions: []string{".py", ".pyi"}, plan: func(s *Set, abs string) ([]string, string) {
			return s.planPython(abs, "ruff", []string{"ruff.toml", ".ruff.toml"}, "[tool.ruff", "format")
		}},
		{name: "black", extensions: []string{".py", ".pyi"}, plan: func(s *Set, abs string) ([]string, string) {
			return s.planPython(abs, "black", nil, "[tool.black", "-q")
		}},
	}
}

// upward calls fn for each folder from abs's folder up to the project
// root (or the file system root when abs is outside it); fn returning
// true stops the walk.
func (s *Set) upward(abs string, fn func(dir string) bool) {
	root := filepath.Clean(s.opts.Root)
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if fn(dir) || dir == root || dir == filepath.Dir(dir) {
			return
		}
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

var editionLine = regexp.MustCompile(`(?m)^\s*edition\s*=\s*"(\d{4})"`)

// planRustfmt formats a .rs file when a rustfmt.toml says the project uses
// rustfmt, or when its crate is rustfmt-clean already (checked once per
// crate, on the crate's root file).
func (s *Set) planRustfmt(abs string) ([]string, string) {
	var configured bool
	crate := ""
	s.upward(abs, func(dir string) bool {
		if exists(filepath.Join(dir, "rustfmt.toml")) || exists(filepath.Join(dir, ".rustfmt.toml")) {
			configured = true
		}
		if crate == "" && exists(filepath.Join(dir, "Cargo.toml")) {
			crate = dir
		}
		return false
	})
	edition := "2021"
	if crate != "" {
		if data, err := os.ReadFile(filepath.Join(crate, "Cargo.toml")); err == nil {
			if m := editionLine.FindSubmatch(data); m != nil {
				edition = string(m[1])
			}
		}
	}
	argv := []string{"rustfmt", "--edition", edition, abs}
	if configured {
		return argv, ""
	}
	if crate == "" || !s.crateFormatted(crate, edition) {
		return nil, ""
	}
	return argv, ""
}

// crateFormatted runs rustfmt --check on the crate's root file once.
func (s *Set) crateFormatted(crate, edition string) bool {
	s.mu.Lock()
	ok, seen := s.crates[crate]
	s.mu.Unlock()
	if seen {
		return ok
	}
	entry := ""
	for _, f := range []string{"src/lib.rs", "src/main.rs"} {
		if exists(filepath.Join(crate, f)) {
			entry = filepath.Join(crate, f)
			break
		}
	}
	if entry != "" {
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.Timeout)
		res, err := s.runner().Run(ctx, run.Spec{Args: []string{"rustfmt", "--check", "--edition", edition, entry}, Dir: crate, Purpose: run.Model, OutputCap: 1024, Timeout: s.opts.Timeout})
		cancel()
		ok = err == nil && !res.TimedOut && res.ExitCode == 0
	}
	s.mu.Lock()
	s.crates[crate] = ok
	s.mu.Unlock()
	return ok
}

// planPrettier formats with the project's own prettier: listed in the
// nearest package.json's dependencies and installed in node_modules/.bin.
// It is project code, so it runs only in a trusted folder.
func (s *Set) planPrettier(abs string) ([]string, string) {
	bin := ""
	s.upward(abs, func(dir string) bool {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			return false
		}
		var pkg struct {
			Dev  map[string]any `json:"devDependencies"`
			Deps map[string]any `json:"dependencies"`
		}
		if json.Unmarshal(data, &pkg) != nil {
			return true
		}
		_, dev := pkg.Dev["prettier"]
		_, dep := pkg.Deps["prettier"]
		if dev || dep {
			s.upward(filepath.Join(dir, "package.json"), func(d string) bool {
				if p := filepath.Join(d, "node_modules", ".bin", "prettier"); exists(p) {
					bin = p
					return true
				}
				return false
			})
		}
		return true
	})
	if bin == "" {
		return nil, ""
	}
	if !s.opts.Trusted {
		return nil, "prettier not run: the project's own formatter runs only in a trusted folder (chanto trust " + s.opts.Root + ")"
	}
	return []string{bin, "--write", abs}, ""
}

// planPython runs ruff format or black when the project configures it
// (pyproject.toml's [tool.X] table, or the tool's own file) and it is
// installed: the project's virtualenv first (trusted folders only), then
// PATH.
func (s *Set) planPython(abs, tool string, files []string, table string, args ...string) ([]string, string) {
	configured, venv := false, ""
	s.upward(abs, func(dir string) bool {
		for _, f := range files {
			if exists(filepath.Join(dir, f)) {
				configured = true
			}
		}
		if data, err := os.ReadFile(filepath.Join(dir, "pyproject.toml")); err == nil && strings.Contains(string(data), table) {
			configured = true
		}
		for _, v := range []string{".venv", "venv"} {
			if p := filepath.Join(dir, v, "bin", tool); venv == "" && exists(p) {
				venv = p
			}
		}
		return configured
	})
	if !configured {
		return nil, ""
	}
	bin := ""
	switch {
	case venv != "" && s.opts.Trusted:
		bin = venv
	case onPath(tool):
		bin = tool
	case venv != "":
		return nil, tool + " not run: the project's own formatter runs only in a trusted folder (chanto trust " + s.opts.Root + ")"
	default:
		return nil, ""
	}
	return append(append([]string{bin}, args...), abs), ""
}

// onPath reports whether a program is on the PATH chanto was started with.
func onPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}
