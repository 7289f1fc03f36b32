package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// project is a prepared project: a git repo whose full suite passes.
type project struct {
	// key is the name the project was asked for by (-projects).
	key       string
	name      string
	dir       string
	check     detect.Check
	packages  int
	testFiles int
	// anyFile is a source file used to time graph building.
	anyFile string
	// graphOnly projects are only timed, not mutated.
	graphOnly bool
	sources   []string
	js        bool
	goCode    bool
	// env is added to every command run in the project (-chanto).
	env []string
	// chantoArgs are extra arguments to chanto verify (-chanto).
	chantoArgs []string
	// jsRunner is a js:DIR project's test command (-chanto).
	jsRunner []string
	// perFile is each test file's own coverage at HEAD (js:DIR, -covered).
	perFile map[string]lineCoverage
	// headStatus is git status at HEAD, after its full run: what a
	// mutation's runs may leave behind is anything beyond it.
	headStatus map[string]bool
	bench      *bench
}

// sites lists every mutation of the project's non-test sources, shuffled.
func (p *project) sites(rng *rand.Rand) []mutation {
	var all []mutation
	for _, f := range p.sources {
		if p.goCode {
			all = append(all, goSites(p.dir, f)...)
		} else {
			all = append(all, scriptSites(p.dir, f, p.js)...)
		}
	}
	return shuffled(rng, all)
}

func (b *bench) cmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	var out bytes.Buffer
	res, err := b.runner.Run(ctx, run.Spec{Args: args, Dir: dir, Purpose: run.Internal, Stdout: &out, Timeout: b.opts.timeout})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("%s: exit %d: %s", strings.Join(args, " "), res.ExitCode, tail(res.Output))
	}
	return out.Bytes(), nil
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 400 {
		s = "..." + s[len(s)-400:]
	}
	return s
}

// gitInit commits the project so it looks like a real checkout.
func (b *bench) gitInit(ctx context.Context, dir string) error {
	for _, args := range [][]string{
		{"git", "init", "-q"},
		{"git", "add", "-A"},
		{"git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "import"},
	} {
		if _, err := b.cmd(ctx, dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// goModule downloads a real module into a private module cache, copies it
// out writable, fetches its dependencies and commits it.
func (b *bench) goModule(ctx context.Context, mod, version, short string) (*project, error) {
	b.logf("%s: downloading %s@%s", short, mod, version)
	out, err := b.cmd(ctx, b.work, "go", "mod", "download", "-json", mod+"@"+version)
	if err != nil {
		return nil, err
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		return nil, fmt.Errorf("go mod download: %s %v", info.Error, err)
	}
	dir := filepath.Join(b.work, short)
	if err := copyTree(info.Dir, dir); err != nil {
		return nil, err
	}
	if _, err := b.cmd(ctx, dir, "go", "mod", "download"); err != nil {
		return nil, err
	}
	if err := b.gitInit(ctx, dir); err != nil {
		return nil, err
	}
	p := &project{name: "go:" + short, dir: dir, goCode: true,
		check: detect.Check{Command: "go test -count=1 ./...", Args: []string{"go", "test", "-count=1", "./..."},
			Dir: dir, Runner: detect.Go, Narrowable: true}}
	b.scanGo(p)
	return p, nil
}

// scanGo fills the counts and the mutable sources of a Go project.
func (b *bench) scanGo(p *project) {
	pkgs := map[string]bool{}
	_ = filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != p.dir && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(p.dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(name, "_test.go"):
			p.testFiles++
		case strings.HasSuffix(name, ".go") && !otherOS(name):
			pkgs[filepath.Dir(rel)] = true
			p.sources = append(p.sources, rel)
			if p.anyFile == "" {
				p.anyFile = rel
			}
		}
		return nil
	})
	p.packages = len(pkgs)
}

// otherOS reports files built only for another system.
func otherOS(name string) bool {
	for _, s := range []string{"_windows", "_darwin", "_plan9", "_js", "_wasm", "_bsd", "_freebsd", "_openbsd",
		"_netbsd", "_solaris", "_aix", "_ios", "_android", "_illumos", "_dragonfly", "_wasip1"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// syntheticGo writes an n-package module for timing the graph alone.
func (b *bench) syntheticGo(n int) (*project, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("synthetic-%d", n))
	files := map[string]string{"go.mod": "module example.com/syn\n\ngo 1.22\n"}
	for i := 0; i < n; i++ {
		var imports []string
		if i > 0 {
			imports = append(imports, fmt.Sprintf("%q", fmt.Sprintf("example.com/syn/p%03d", i-1)))
		}
		if i > 1 {
			imports = append(imports, fmt.Sprintf("%q", fmt.Sprintf("example.com/syn/p%03d", i/2)))
		}
		body := fmt.Sprintf("package p%03d\n\n", i)
		if len(imports) > 0 {
			body += "import (\n\t\"fmt\"\n\t" + strings.Join(imports, "\n\t") + "\n)\n\n"
			body += fmt.Sprintf("var _ = fmt.Sprint\nvar _ = p%03d.V\n", i-1)
			if i > 1 {
				body += fmt.Sprintf("var _ = p%03d.V\n", i/2)
			}
		}
		body += "\nvar V = 1\n"
		files[fmt.Sprintf("p%03d/p.go", i)] = body
		files[fmt.Sprintf("p%03d/p_test.go", i)] = fmt.Sprintf("package p%03d\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) {}\n", i)
	}
	if err := writeFiles(dir, files); err != nil {
		return nil, err
	}
	return &project{name: fmt.Sprintf("go:synthetic-%d", n), dir: dir, packages: n, testFiles: n, graphOnly: true,
		anyFile: "p150/p.go",
		check:   detect.Check{Args: []string{"go", "test", "-count=1", "./..."}, Dir: dir, Runner: detect.Go, Narrowable: true}}, nil
}

func writeFiles(dir string, files map[string]string) error {
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// debianPython fetches a Python library from Debian's archive (apt-get
// download, no install), copies its package folder into a new project and
// commits it. The libraries chosen ship their tests inside the package.
func (b *bench) debianPython(ctx context.Context, deb, pkg string) (*project, error) {
	debs := filepath.Join(b.work, "debs")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return nil, err
	}
	b.logf("%s: apt-get download %s", pkg, deb)
	if _, err := b.cmd(ctx, debs, "apt-get", "download", "-q", deb); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(debs, deb+"_*.deb"))
	if len(files) == 0 {
		return nil, fmt.Errorf("apt-get download %s left no .deb in %s", deb, debs)
	}
	root := filepath.Join(debs, "root-"+pkg)
	if _, err := b.cmd(ctx, debs, "dpkg-deb", "-x", files[0], root); err != nil {
		return nil, err
	}
	dir := filepath.Join(b.work, "py-"+pkg)
	if err := copyTree(filepath.Join(root, "usr", "lib", "python3", "dist-packages", pkg), filepath.Join(dir, pkg)); err != nil {
		return nil, err
	}
	if err := writeFiles(dir, map[string]string{".gitignore": "__pycache__/\n"}); err != nil {
		return nil, err
	}
	if err := b.gitInit(ctx, dir); err != nil {
		return nil, err
	}
	p := &project{name: "python: " + pkg + " (Debian " + strings.TrimSuffix(filepath.Base(files[0]), ".deb") + ")", dir: dir,
		check: detect.Check{Args: []string{"/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"}, Dir: dir,
			Runner: detect.Pytest, Narrowable: true}}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		switch {
		case !strings.HasSuffix(name, ".py"):
		case strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test.py"):
			p.testFiles++
		case name == "conftest.py" || strings.Contains("/"+rel, "/tests/"):
		case name == "__init__.py":
			p.packages++
		default:
			p.sources = append(p.sources, rel)
			if p.anyFile == "" {
				p.anyFile = rel
			}
		}
		return nil
	})
	return p, nil
}
