package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/config"
)

// serverDef is how one language server is found and started.
type serverDef struct {
	name        string
	command     []string
	extensions  []string
	rootMarkers []string
	// languageIDs maps an extension to its LSP language id; missing
	// extensions use languageID, else the extension without its dot.
	languageIDs map[string]string
	languageID  string
	settings    map[string]any
	initOptions map[string]any
	// install says how to get the server, for the note when it is missing.
	install string
	// emptyOnOpen marks a server whose first publish for a newly opened
	// file may be an empty set sent while its project still loads
	// (typescript-language-server): an empty first answer waits for a
	// second one, up to the bound.
	emptyOnOpen bool
}

// Builtin names the built-in servers, in the order they are tried for a
// file (pyright before basedpyright: the first one installed serves).
var Builtin = []string{"gopls", "pyright", "basedpyright", "typescript", "rust-analyzer"}

var jsIDs = map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact"}

func builtinDefs() []serverDef {
	pyMarkers := []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json", "Pipfile"}
	return []serverDef{
		{name: "gopls", command: []string{"gopls"}, extensions: []string{".go"}, rootMarkers: []string{"go.mod", "go.work"},
			languageID: "go", install: "go install golang.org/x/tools/gopls@latest"},
		{name: "pyright", command: []string{"pyright-langserver", "--stdio"}, extensions: []string{".py", ".pyi"}, rootMarkers: pyMarkers,
			languageID: "python", install: "npm install -g pyright"},
		{name: "basedpyright", command: []string{"basedpyright-langserver", "--stdio"}, extensions: []string{".py", ".pyi"}, rootMarkers: pyMarkers,
			languageID: "python", install: "pip install basedpyright"},
		{name: "typescript", command: []string{"typescript-language-server", "--stdio"}, extensions: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
			rootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}, languageIDs: jsIDs, install: "npm install -g typescript-language-server typescript",
			emptyOnOpen: true},
		{name: "rust-analyzer", command: []string{"rust-analyzer"}, extensions: []string{".rs"}, rootMarkers: []string{"Cargo.toml"},
			languageID: "rust", install: "rustup component add rust-analyzer"},
	}
}

// defsFrom applies the [lsp] config to the built-in servers and adds the
// configured new ones (first, in name order, so a user's server for an
// extension wins over a built-in one).
func defsFrom(cfg config.LSP) []serverDef {
	var out []serverDef
	names := make([]string, 0, len(cfg.Servers))
	for n := range cfg.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := cfg.Servers[n]
		if slices.Contains(Builtin, n) || s.Disabled || len(s.Command) == 0 || len(s.Extensions) == 0 {
			continue
		}
		out = append(out, serverDef{name: n, command: s.Command, extensions: s.Extensions, rootMarkers: s.RootMarkers,
			languageID: s.LanguageID, settings: s.Settings, initOptions: s.InitOptions})
	}
	for _, d := range builtinDefs() {
		s, ok := cfg.Servers[d.name]
		if ok && s.Disabled {
			continue
		}
		if ok {
			if len(s.Command) > 0 {
				d.command = s.Command
			}
			if len(s.Extensions) > 0 {
				d.extensions = s.Extensions
			}
			if len(s.RootMarkers) > 0 {
				d.rootMarkers = s.RootMarkers
			}
			if s.LanguageID != "" {
				d.languageID, d.languageIDs = s.LanguageID, nil
			}
			d.settings, d.initOptions = s.Settings, s.InitOptions
		}
		out = append(out, d)
	}
	return out
}

// langID is the LSP language id of a file of ext.
func (d serverDef) langID(ext string) string {
	if id, ok := d.languageIDs[ext]; ok {
		return id
	}
	if d.languageID != "" {
		return d.languageID
	}
	return strings.TrimPrefix(ext, ".")
}

// rootFor is the nearest folder at or above abs's folder (up to top)
// holding one of the server's root markers; "" when none does.
func (d serverDef) rootFor(abs, top string) string {
	top = filepath.Clean(top)
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		for _, m := range d.rootMarkers {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		if dir == top || dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// binary finds the server's program: on PATH, or (trusted folders only)
// in a node_modules/.bin between root and top. untrusted is set when only
// the project's own copy exists and the folder is not trusted.
func (d serverDef) binary(root, top string, trusted bool) (path string, untrusted bool) {
	name := d.command[0]
	if strings.ContainsRune(name, '/') {
		return name, false
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, false
	}
	top = filepath.Clean(top)
	for dir := root; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "node_modules", ".bin", name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			if !trusted {
				return "", true
			}
			return p, false
		}
		if dir == top || dir == filepath.Dir(dir) {
			return "", false
		}
	}
}
