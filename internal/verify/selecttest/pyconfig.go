package selecttest

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/chanto-dev/chanto/internal/ini"
	"github.com/chanto-dev/chanto/internal/verify/pytestconf"
)

// pytestConfig is the part of pytest's configuration that decides which
// files are tests and where imports resolve.
type pytestConfig struct {
	// File is the configuration file used ("" when none).
	File        string
	TestPaths   []string
	PythonPath  []string
	PythonFiles []string
	// PythonFunctions and PythonClasses are the python_functions and
	// python_classes options as written (nil when not set).
	PythonFunctions, PythonClasses []string
	// DoctestModules is set when addopts collects doctests from modules.
	DoctestModules bool
	// DoctestGlobs are the --doctest-glob patterns of text files pytest
	// collects doctests from (its default, test*.txt, when none is set).
	DoctestGlobs []string
	// defaultGlobs is set when DoctestGlobs is pytest's default, which
	// a pattern on the command line replaces.
	defaultGlobs bool
	// Scripts maps console-script names to the module they run.
	Scripts map[string]string
}

// readPytestConfig reads pytest's configuration in dir from the file the
// pytest of version v takes it from (pytestconf: pytest.ini, and by version
// .pytest.ini, pyproject.toml, tox.ini, setup.cfg, pytest.toml).
func readPytestConfig(dir string, v pytestconf.Version) pytestConfig {
	cfg := pytestConfig{Scripts: map[string]string{}}
	readScripts(dir, &cfg)
	file, vals := pytestconf.Find(v, func(name string) ([]byte, bool) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		return data, err == nil
	})
	if file != "" {
		cfg.File = file
		cfg.TestPaths = strings.Fields(vals["testpaths"])
		cfg.PythonPath = strings.Fields(vals["pythonpath"])
		cfg.PythonFiles = strings.Fields(vals["python_files"])
		cfg.PythonFunctions = strings.Fields(vals["python_functions"])
		cfg.PythonClasses = strings.Fields(vals["python_classes"])
		cfg.DoctestModules = strings.Contains(vals["addopts"], "--doctest-modules")
		cfg.DoctestGlobs = doctestGlobs(strings.Fields(vals["addopts"]))
	}
	if len(cfg.DoctestGlobs) == 0 {
		cfg.DoctestGlobs, cfg.defaultGlobs = []string{"test*.txt"}, true
	}
	if len(cfg.PythonFiles) == 0 {
		cfg.PythonFiles = []string{"test_*.py", "*_test.py"}
	}
	return cfg
}

// iniSection reads one section of an INI file; multi-line values are
// joined with spaces.
func iniSection(file, section string) (map[string]string, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	return ini.Parse(string(data)).Section(section)
}

// readScripts records console scripts ([project.scripts] in
// pyproject.toml, console_scripts in setup.cfg): a test that runs one by
// name runs its module.
func readScripts(dir string, cfg *pytestConfig) {
	var doc struct {
		Project struct {
			Scripts map[string]string `toml:"scripts"`
		} `toml:"project"`
		Tool struct {
			Poetry struct {
				Scripts map[string]any `toml:"scripts"`
			} `toml:"poetry"`
		} `toml:"tool"`
	}
	if _, err := toml.DecodeFile(filepath.Join(dir, "pyproject.toml"), &doc); err == nil {
		for name, target := range doc.Project.Scripts {
			cfg.Scripts[name] = entryModule(target)
		}
		for name, target := range doc.Tool.Poetry.Scripts {
			if s, ok := target.(string); ok {
				cfg.Scripts[name] = entryModule(s)
			}
		}
	}
	if vals, ok := iniSection(filepath.Join(dir, "setup.cfg"), "options.entry_points"); ok {
		// "console_scripts = a = m:f b = n:g" after joining lines.
		fields := strings.Fields(strings.ReplaceAll(vals["console_scripts"], "=", " = "))
		for i := 0; i+2 < len(fields); i++ {
			if fields[i+1] == "=" {
				cfg.Scripts[fields[i]] = entryModule(fields[i+2])
				i += 2
			}
		}
	}
}

// entryModule turns "pkg.cli:main" into "pkg.cli".
func entryModule(target string) string {
	mod, _, _ := strings.Cut(strings.TrimSpace(target), ":")
	return strings.TrimSpace(mod)
}

// doctestGlobs reads the --doctest-glob patterns from pytest arguments
// (`--doctest-glob=*.rst`, `--doctest-glob '*.md'`), quotes removed.
func doctestGlobs(args []string) []string {
	var out []string
	for i, a := range args {
		v, ok := strings.CutPrefix(a, "--doctest-glob=")
		if !ok && a == "--doctest-glob" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if v = strings.Trim(v, `'"`); ok && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// doctestSource is the Python code of a doctest text file: its `>>> `
// lines and their `... ` continuations, dedented.
func doctestSource(text string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimLeft(line, " \t")
		switch {
		case t == ">>>" || strings.HasPrefix(t, ">>> "):
			in = true
			b.WriteString(strings.TrimPrefix(strings.TrimPrefix(t, ">>>"), " ") + "\n")
		case in && (t == "..." || strings.HasPrefix(t, "... ")):
			b.WriteString(strings.TrimPrefix(strings.TrimPrefix(t, "..."), " ") + "\n")
		default:
			in = false
		}
	}
	return b.String()
}

// matchAny reports whether name matches one of the glob patterns.
func matchAny(patterns []string, name string) bool {
	for _, pat := range patterns {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}
