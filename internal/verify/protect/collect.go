package protect

import (
	"encoding/xml"
	"path"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"

	"github.com/chanto-dev/chanto/internal/verify/pytestconf"
)

// goCollects applies the go tool's rules: _test.go files, except those
// beginning with _ or . and those under testdata, vendor or a directory
// beginning with _ or . (go test ./... never lists them).
func goCollects(p string) (bool, string) {
	base := path.Base(p)
	if !strings.HasSuffix(base, "_test.go") {
		return false, "go runs only _test.go files"
	}
	if strings.HasPrefix(base, "_") || strings.HasPrefix(base, ".") {
		return false, "go ignores files beginning with _ or ."
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		switch {
		case dir == "testdata":
			return false, "go ignores testdata directories"
		case dir == "vendor":
			return false, "go test ./... skips vendor"
		case dir != "." && (strings.HasPrefix(dir, "_") || strings.HasPrefix(dir, ".")):
			return false, "go ignores directories beginning with _ or ."
		}
	}
	return true, ""
}

// pyRules are pytest's collection settings from one configuration file,
// relative to its folder; without one, pytest's defaults and unittest's
// discovery pattern both count.
type pyRules struct {
	dir        string
	files      []string // python_files globs
	names      pyNaming // python_classes, python_functions
	testpaths  []string
	norecurse  []string
	configured bool
}

var pyDefaultNorecurse = []string{"*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}"}

func (d *Detector) pyRulesFor(p string) *pyRules {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dir := range ancestors(p) {
		if r, ok := d.py[dir]; ok {
			if r != nil {
				return r
			}
			continue
		}
		r := d.loadPy(dir)
		d.py[dir] = r
		if r != nil {
			return r
		}
	}
	return &pyRules{dir: "."}
}

// loadPy reads the pytest settings of dir, nil when it has none. Like
// pytest, the first of its configuration files that holds them wins
// (pytestconf, by the newest rules).
func (d *Detector) loadPy(dir string) *pyRules {
	for _, name := range pytestconf.AllNames {
		b := d.readAt(dir, name)
		if b == nil {
			continue
		}
		kv, err := pytestOptionsErr(name, b)
		if err != nil {
			d.doubt(path.Join(dir, name), "pytest", err.Error())
			continue
		}
		if kv == nil {
			continue
		}
		r := &pyRules{dir: dir, configured: true}
		r.files = strings.Fields(kv["python_files"])
		r.testpaths = strings.Fields(kv["testpaths"])
		r.norecurse = strings.Fields(kv["norecursedirs"])
		r.names = pyNaming{classes: strings.Fields(kv["python_classes"]), functions: strings.Fields(kv["python_functions"])}
		return r
	}
	return nil
}

func (r *pyRules) collects(p string) (bool, string) {
	if path.Base(p) == "conftest.py" {
		return false, "conftest.py holds fixtures"
	}
	q := rel(r.dir, p)
	files := r.files
	if len(files) == 0 {
		files = []string{"test_*.py", "*_test.py"}
		if !r.configured {
			files = append(files, "test*.py") // unittest discover
		}
	}
	if !matchAnyPy(files, q) {
		return false, "python_files is " + strings.Join(files, " ")
	}
	if len(r.testpaths) > 0 && !underAny(r.testpaths, q) {
		return false, "testpaths is " + strings.Join(r.testpaths, " ")
	}
	norecurse := r.norecurse
	if len(norecurse) == 0 {
		norecurse = pyDefaultNorecurse
	}
	for _, dir := range strings.Split(path.Dir(q), "/") {
		if dir == "." || underAny(r.testpaths, dir) {
			continue
		}
		for _, g := range norecurse {
			if m, _ := path.Match(g, dir); m {
				return false, "norecursedirs has " + g
			}
		}
	}
	return true, ""
}

// matchAnyPy matches pytest's python_files globs: against the base name,
// or the whole path when the glob has a slash.
func matchAnyPy(globs []string, p string) bool {
	for _, g := range globs {
		target := path.Base(p)
		if strings.Contains(g, "/") {
			target = p
		}
		if m, _ := path.Match(g, target); m {
			return true
		}
		if m, _ := doublestar.Match(g, target); m {
			return true
		}
	}
	return false
}

// underAny reports whether p is one of dirs (globs allowed) or below one.
func underAny(dirs []string, p string) bool {
	for _, tp := range dirs {
		tp = strings.Trim(path.Clean(tp), "/")
		tp = strings.TrimPrefix(tp, "./")
		if tp == "." || p == tp || strings.HasPrefix(p, tp+"/") {
			return true
		}
		if m, _ := doublestar.Match(tp+"/**", p); m {
			return true
		}
	}
	return false
}

// cargoRules are the test targets of one package's Cargo.toml.
type cargoRules struct {
	dir       string
	autotests bool
	paths     map[string]bool // declared [[test]] paths, relative to dir
	names     map[string]bool // declared [[test]] names (tests/NAME.rs)
}

func (d *Detector) cargoRulesFor(p string) *cargoRules {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dir := range ancestors(p) {
		if r, ok := d.cargo[dir]; ok {
			if r != nil {
				return r
			}
			continue
		}
		var r *cargoRules
		if b := d.readAt(dir, "Cargo.toml"); b != nil {
			r = parseCargoRules(dir, b)
			if r == nil {
				d.doubt(path.Join(dir, "Cargo.toml"), "cargo", "does not parse as TOML")
			}
		}
		d.cargo[dir] = r
		if r != nil {
			return r
		}
	}
	return &cargoRules{dir: ".", autotests: true}
}

func parseCargoRules(dir string, b []byte) *cargoRules {
	var doc struct {
		Package struct {
			Autotests *bool `toml:"autotests"`
		} `toml:"package"`
		Test []struct {
			Name string `toml:"name"`
			Path string `toml:"path"`
		} `toml:"test"`
	}
	if _, err := toml.Decode(string(b), &doc); err != nil {
		return nil
	}
	r := &cargoRules{dir: dir, autotests: doc.Package.Autotests == nil || *doc.Package.Autotests, paths: map[string]bool{}, names: map[string]bool{}}
	for _, t := range doc.Test {
		if t.Path != "" {
			r.paths[path.Clean(t.Path)] = true
		}
		if t.Name != "" {
			r.names[t.Name] = true
		}
	}
	return r
}

// collects applies cargo's target discovery: tests/*.rs and tests/*/main.rs
// unless autotests = false, plus declared [[test]] targets. Files in src/
// hold unit tests of the library and count; so do modules below tests/
// (a target may declare them with mod).
func (r *cargoRules) collects(p string) (bool, string) {
	q := rel(r.dir, p)
	if r.paths[q] {
		return true, ""
	}
	parts := strings.Split(q, "/")
	if parts[0] != "tests" {
		return true, ""
	}
	if len(parts) == 2 && r.names[strings.TrimSuffix(parts[1], ".rs")] {
		return true, ""
	}
	auto := len(parts) == 2 || (len(parts) == 3 && parts[2] == "main.rs")
	switch {
	case auto && r.autotests:
		return true, ""
	case auto:
		return false, "autotests = false and no [[test]] declares it"
	}
	return false, "cargo builds tests/*.rs and tests/*/main.rs, not deeper files unless declared"
}

// jvmRules say which build tool runs the tests under a folder.
type jvmRules struct {
	dir    string
	maven  bool
	extra  []string // <include> patterns of surefire, when read
	gradle bool
}

func (d *Detector) jvmRulesFor(p string) *jvmRules {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dir := range ancestors(p) {
		if r, ok := d.jvm[dir]; ok {
			if r != nil {
				return r
			}
			continue
		}
		var r *jvmRules
		if b := d.readAt(dir, "pom.xml"); b != nil {
			r = &jvmRules{dir: dir, maven: true, extra: surefireIncludes(b)}
		}
		for _, g := range []string{"build.gradle", "build.gradle.kts"} {
			if d.readAt(dir, g) != nil {
				if r == nil {
					r = &jvmRules{dir: dir}
				}
				r.gradle = true
			}
		}
		d.jvm[dir] = r
		if r != nil {
			return r
		}
	}
	return &jvmRules{dir: ".", gradle: true}
}

// surefireDefaults are Maven Surefire's default includes.
var surefireDefaults = []string{"**/Test*.java", "**/*Test.java", "**/*Tests.java", "**/*TestCase.java"}

// collects: Gradle's test task runs every class under src/test holding
// tests; Maven Surefire only classes matching its includes.
func (r *jvmRules) collects(p string) (bool, string) {
	q := rel(r.dir, p)
	if !strings.Contains("/"+q, "/src/test/") {
		return false, "tests run from src/test only"
	}
	if r.gradle {
		return true, ""
	}
	for _, g := range append(append([]string{}, surefireDefaults...), r.extra...) {
		if m, _ := doublestar.Match(g, path.Base(q)); m {
			return true, ""
		}
		if m, _ := doublestar.Match(strings.TrimPrefix(g, "**/"), path.Base(q)); m {
			return true, ""
		}
	}
	return false, "Surefire runs Test*, *Test, *Tests and *TestCase classes"
}

// surefireIncludes returns the <include> patterns of a pom's plugins, with
// .java endings, so configured names count beside the defaults.
func surefireIncludes(b []byte) []string {
	var pom struct {
		Plugins []struct {
			Includes []string `xml:"configuration>includes>include"`
		} `xml:"build>plugins>plugin"`
		Managed []struct {
			Includes []string `xml:"configuration>includes>include"`
		} `xml:"build>pluginManagement>plugins>plugin"`
	}
	if xml.Unmarshal(b, &pom) != nil {
		return []string{"**/*.java"} // unreadable: any class may run
	}
	var out []string
	add := func(gs []string) {
		for _, g := range gs {
			g = strings.TrimSpace(g)
			out = append(out, strings.TrimSuffix(strings.TrimSuffix(g, ".class"), ".java")+".java")
		}
	}
	for _, p := range pom.Plugins {
		add(p.Includes)
	}
	for _, p := range pom.Managed {
		add(p.Includes)
	}
	return out
}
