package verify

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/pytestconf"
)

// A Python project in a src layout (src/pkg/__init__.py) whose package is
// not installed cannot import it: pytest ends collection with "No module
// named 'pkg'" (exit 4 from a conftest, exit 2 from test modules) and
// unittest with "Failed to import test module". That is the environment,
// not the change: the run verified nothing, and the reason names the
// package and what would fix it.

// noModule is Python's message for an import of a module that is nowhere.
var noModule = regexp.MustCompile(`ModuleNotFoundError: No module named '([A-Za-z_][\w.]*)'`)

// noMetadata is importlib.metadata's message for a distribution that is
// not installed (a test reading importlib.metadata.version("pkg")).
var noMetadata = regexp.MustCompile(`PackageNotFoundError: No package metadata was found for ([A-Za-z0-9][\w.-]*)`)

// projectName is the [project] name of dir's pyproject.toml, or "".
func projectName(dir string) string {
	var doc struct {
		Project struct{ Name string } `toml:"project"`
	}
	if _, err := toml.DecodeFile(filepath.Join(dir, "pyproject.toml"), &doc); err != nil {
		return ""
	}
	return doc.Project.Name
}

// pyNormalized is a project name in PEP 503's form, "" for none.
func pyNormalized(name string) string {
	return strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(name))
}

// importReason says why a Python check that failed in collection could
// not import what it needed, or "" when its failures are the tests' own.
func importReason(c detect.Check, cr CheckRun, text string) string {
	if c.Runner != detect.Pytest && c.Runner != detect.Unittest || cr.ExitCode == 0 || cr.TimedOut {
		return ""
	}
	for _, f := range cr.Failures {
		if c.Runner == detect.Unittest && !strings.HasPrefix(f.ID, "unittest.loader.") || c.Runner == detect.Pytest && !strings.HasSuffix(f.Name, " (collection error)") {
			return "" // a test ran and failed: its failure is the news
		}
	}
	ms := noModule.FindAllStringSubmatch(text, -1)
	for _, m := range ms {
		// Only the package itself: a missing submodule of it
		// (pkg.gone) means pkg imported, and the change may have
		// removed what its tests import.
		if !strings.Contains(m[1], ".") {
			if where := packageFolder(c.Dir, m[1]); where != "" {
				return packageReason(c, m[1], where)
			}
		}
	}
	if m := noMetadata.FindStringSubmatch(text); m != nil && pyNormalized(m[1]) == pyNormalized(projectName(c.Dir)) {
		py := interpreter(c)
		return "the package under test, " + m[1] + ", is not installed for " + py + ", and its tests read its metadata (" +
			strings.TrimSpace(m[0]) + "); install it (" + py + " -m pip install -e .)"
	}
	if len(ms) == 0 || c.Runner != detect.Pytest || cr.ExitCode != 4 || len(cr.Failures) > 0 || !strings.Contains(text, "while loading conftest") {
		return ""
	}
	// A conftest could not import a module that is not the project's:
	// a dependency is missing, and nothing was collected at all.
	top, _, _ := strings.Cut(ms[0][1], ".")
	if fileExists(filepath.Join(c.Dir, top)) || fileExists(filepath.Join(c.Dir, top+".py")) || packageFolder(c.Dir, top) != "" {
		return ""
	}
	return "the tests' conftest imports " + ms[0][1] + ", which is not installed for " + interpreter(c)
}

// packageReason is the reason for a package of the project that its
// tests cannot import from where is (src/pkg), with the fix.
func packageReason(c detect.Check, pkg, where string) string {
	py := interpreter(c)
	why := "the package under test, " + pkg + " (" + where + "), cannot be imported: it is not installed for " + py +
		" and " + path.Dir(where) + "/ is not on the import path; install it (" + py + " -m pip install -e .)"
	if c.Runner != detect.Pytest {
		return why + " or run the tests with PYTHONPATH=" + path.Dir(where)
	}
	if file, ok := pytestConfig(c.Dir, path.Dir(where), pytestconf.ParseVersion(c.Version)); ok {
		return why + " or set " + file
	}
	return why
}

// interpreter is the Python the check runs ("python3" for a bare pytest).
func interpreter(c detect.Check) string {
	if len(c.Args) > 0 && strings.HasPrefix(filepath.Base(c.Args[0]), "python") {
		return c.Args[0]
	}
	return "python3"
}

// packageFolder finds top as a package or module of the project in a
// folder below dir that Python does not search by itself ("src/click"),
// or "". A package next to the tests' root would import; one found
// nowhere is not the project's.
func packageFolder(dir, top string) string {
	if fileExists(filepath.Join(dir, top)) || fileExists(filepath.Join(dir, top+".py")) {
		return ""
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "tests" || e.Name() == "test" {
			continue
		}
		if fileExists(filepath.Join(dir, e.Name(), top, "__init__.py")) {
			return e.Name() + "/" + top
		}
		if fileExists(filepath.Join(dir, e.Name(), top+".py")) {
			return e.Name() + "/" + top + ".py"
		}
	}
	return ""
}

// pytestConfig says where pytest's pythonpath setting would go, as the
// text after "set": in the file the pytest of version v reads its
// configuration from (pyproject.toml when there is none). false when that
// file already sets pythonpath (then the advice would be wrong) or cannot
// be read.
func pytestConfig(dir, folder string, v pytestconf.Version) (string, bool) {
	file, opts := pytestconf.Find(v, func(name string) ([]byte, bool) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		return data, err == nil
	})
	if _, set := opts["pythonpath"]; set {
		return "", false
	}
	switch file {
	case "":
		if _, err := os.Stat(filepath.Join(dir, "pyproject.toml")); err != nil {
			return "", false
		}
		return `pythonpath = ["` + folder + `"] under [tool.pytest.ini_options] in pyproject.toml`, true
	case "pyproject.toml":
		return `pythonpath = ["` + folder + `"] under [tool.pytest.ini_options] in pyproject.toml`, true
	case "pytest.toml", ".pytest.toml":
		return `pythonpath = ["` + folder + `"] under [pytest] in ` + file, true
	case "setup.cfg":
		return "pythonpath = " + folder + " under [tool:pytest] in setup.cfg", true
	}
	return "pythonpath = " + folder + " under [pytest] in " + file, true
}
