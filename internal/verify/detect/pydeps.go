package detect

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Python projects of one repository often depend on each other (a uv or
// poetry workspace, path sources, editable installs): a dependency named
// like another project of the repository is taken to be that project,
// installed from its folder, so a change there runs the dependent's tests.

// pyProject is a pyproject.toml of the repository: its folder, its
// normalized name and the normalized names it depends on.
type pyProject struct {
	dir, name string
	deps      map[string]bool
}

// pyRequirement is the name at the start of a requirement string
// ("my_lib[extra]>=1; python_version<'3.12'").
var pyRequirement = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`)

// pySeparators are the runs PEP 503 folds into one "-".
var pySeparators = regexp.MustCompile(`[-_.]+`)

// pyNormalize is the PEP 503 form of a project name.
func pyNormalize(name string) string {
	return strings.ToLower(pySeparators.ReplaceAllString(name, "-"))
}

// pyProjects reads the repository's pyproject.toml files that name a
// project.
func pyProjects(files *manifests) []pyProject {
	var out []pyProject
	for _, p := range files.paths("pyproject.toml") {
		var m map[string]any
		if _, err := toml.DecodeFile(p, &m); err != nil {
			continue
		}
		if proj := readPyProject(filepath.Dir(p), m); proj.name != "" {
			out = append(out, proj)
		}
	}
	return out
}

func readPyProject(dir string, m map[string]any) pyProject {
	table := func(m map[string]any, keys ...string) map[string]any {
		for _, k := range keys {
			m, _ = m[k].(map[string]any)
		}
		return m
	}
	p := pyProject{dir: dir, deps: map[string]bool{}}
	project := table(m, "project")
	poetry := table(m, "tool", "poetry")
	if n, ok := project["name"].(string); ok {
		p.name = pyNormalize(n)
	} else if n, ok := poetry["name"].(string); ok {
		p.name = pyNormalize(n)
	}
	addList := func(v any) {
		list, _ := v.([]any)
		for _, r := range list {
			if s, ok := r.(string); ok {
				if mm := pyRequirement.FindStringSubmatch(s); mm != nil {
					p.deps[pyNormalize(mm[1])] = true
				}
			}
		}
	}
	addKeys := func(t map[string]any) {
		for k := range t {
			p.deps[pyNormalize(k)] = true
		}
	}
	addList(project["dependencies"])
	for _, v := range table(m, "project", "optional-dependencies") {
		addList(v)
	}
	for _, v := range table(m, "dependency-groups") {
		addList(v)
	}
	addList(table(m, "tool", "uv")["dev-dependencies"])
	addKeys(table(m, "tool", "uv", "sources"))
	addKeys(table(poetry, "dependencies"))
	addKeys(table(poetry, "dev-dependencies"))
	for _, g := range table(poetry, "group") {
		if gt, ok := g.(map[string]any); ok {
			addKeys(table(gt, "dependencies"))
		}
	}
	delete(p.deps, p.name)
	delete(p.deps, "python")
	return p
}

// pyDependents finds the Python projects that depend on a project in
// roots, directly or through another such project, and says why for
// each; a changed project that depends on another changed one too.
func pyDependents(repoRoot string, roots []string, files *manifests) map[string]string {
	anyPy := false
	for _, r := range roots {
		anyPy = anyPy || fileExists(filepath.Join(r, "pyproject.toml"))
	}
	if !anyPy {
		return nil
	}
	projects := pyProjects(files)
	if len(projects) < 2 {
		return nil
	}
	byName := map[string]*pyProject{}
	for i := range projects {
		byName[projects[i].name] = &projects[i]
	}
	isRoot := map[string]bool{}
	for _, r := range roots {
		isRoot[r] = true
	}
	why := map[string]string{}
	for grew := true; grew; {
		grew = false
		for i := range projects {
			x := &projects[i]
			if why[x.dir] != "" {
				continue
			}
			for _, dep := range slices.Sorted(maps.Keys(x.deps)) {
				y := byName[dep]
				if y == nil || y == x || !(isRoot[y.dir] || why[y.dir] != "") {
					continue
				}
				how := "which changed"
				if !isRoot[y.dir] {
					how = "which depends on a changed project"
				}
				why[x.dir] = fmt.Sprintf("it depends on %s from %s (pyproject.toml), %s", y.name, relDir(repoRoot, y.dir), how)
				grew = true
				break
			}
		}
	}
	return why
}
