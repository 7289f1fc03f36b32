package selecttest

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// setupNames are files whose change can affect every test of a project:
// manifests, lockfiles, test-runner and build configuration.
var setupNames = map[string]bool{
	// Python
	"conftest.py": true, "pytest.ini": true, ".pytest.ini": true, "pytest.toml": true, ".pytest.toml": true, "pyproject.toml": true,
	"setup.py": true, "setup.cfg": true, "tox.ini": true, "Pipfile": true,
	"Pipfile.lock": true, "poetry.lock": true, "uv.lock": true, "noxfile.py": true,
	// Rust
	"Cargo.toml": true, "Cargo.lock": true, "build.rs": true, "rust-toolchain": true,
	"rust-toolchain.toml": true,
	// Go
	"go.mod": true, "go.sum": true, "go.work": true, "go.work.sum": true,
	// Node
	"package.json": true, "package-lock.json": true, "npm-shrinkwrap.json": true,
	"yarn.lock": true, "pnpm-lock.yaml": true, "pnpm-workspace.yaml": true,
	"bun.lockb": true, "bun.lock": true, ".babelrc": true, ".npmrc": true,
	".nvmrc": true, ".yarnrc.yml": true,
	// make and CI
	"Makefile": true, "makefile": true, "GNUmakefile": true,
	".gitlab-ci.yml": true, ".travis.yml": true, "azure-pipelines.yml": true,
	"Jenkinsfile": true, "appveyor.yml": true, ".cirrus.yml": true,
}

// setupPrefixes are base-name prefixes of configuration families
// (jest.config.js, vitest.config.mts, tsconfig.build.json, ...).
var setupPrefixes = []string{
	"requirements", "jest.config.", "jest.setup.", "vitest.config.", "vitest.workspace.",
	"vitest.setup.", "vite.config.", "tsconfig", "jsconfig", "babel.config.", ".babelrc.",
}

// setupDirs are folders whose files are all CI or tool configuration.
var setupDirs = []string{".github/workflows/", ".github/actions/", ".circleci/", ".buildkite/", ".cargo/"}

// IsSetupFile reports whether a change to the slash-separated project path
// p forces the full suite because it is shared test or build setup.
func IsSetupFile(p string) bool {
	base := path.Base(p)
	if setupNames[base] {
		return true
	}
	for _, pre := range setupPrefixes {
		if strings.HasPrefix(base, pre) {
			if pre == "requirements" && !strings.HasSuffix(base, ".txt") && !strings.HasSuffix(base, ".in") {
				continue
			}
			if pre == "tsconfig" || pre == "jsconfig" {
				if !strings.HasSuffix(base, ".json") {
					continue
				}
			}
			return true
		}
	}
	if strings.HasSuffix(base, ".mk") || strings.HasSuffix(base, ".txt") &&
		(strings.HasPrefix(p, "requirements/") || strings.Contains(p, "/requirements/")) {
		return true
	}
	for _, d := range setupDirs {
		if strings.HasPrefix(p, d) || d == ".cargo/" && strings.Contains(p, "/"+d) {
			return true
		}
	}
	return false
}

// firstSetupFile returns the first changed setup file in sorted order, or "".
func firstSetupFile(changed []string) string {
	files := cleanChanged(changed)
	sort.Strings(files)
	for _, f := range files {
		if IsSetupFile(f) {
			return f
		}
	}
	return ""
}

// skipDir reports folders no test runner collects from: VCS data, virtual
// environments, dependency caches and build output.
func skipDir(name string) bool {
	switch name {
	case "node_modules", "__pycache__", "site-packages", "target", "dist", "build",
		"venv", "env", "coverage", "vendor":
		return true
	}
	return strings.HasPrefix(name, ".") && name != "."
}

// walkFiles calls fn with the slash-separated path (relative to root) of
// every regular file in folders keepDir accepts. fn returning false stops.
func walkFiles(root string, keepDir func(rel string) bool, fn func(rel string) bool) {
	stop := false
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || stop {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && !keepDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !fn(rel) {
			stop = true
			return filepath.SkipAll
		}
		return nil
	})
}

// keepSourceDir is the keepDir of walks that look for tests and sources.
func keepSourceDir(rel string) bool { return !skipDir(path.Base(rel)) }

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// readHead reads at most n bytes of a file.
func readHead(file string, n int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
