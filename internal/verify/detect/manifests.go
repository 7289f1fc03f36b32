package detect

import (
	"io/fs"
	"path/filepath"
)

// manifests finds the manifest files of a repository by base name, with
// one walk on first use, shared by the searches for projects that build
// against each other (Go, Cargo, Python).
type manifests struct {
	root   string
	byName map[string][]string
}

// manifestNames are the files the walk collects.
var manifestNames = map[string]bool{"go.mod": true, "go.work": true, "Cargo.toml": true, "pyproject.toml": true}

// paths lists the files named name, in walk order.
func (m *manifests) paths(name string) []string {
	if m.byName == nil {
		m.byName = map[string][]string{}
		filepath.WalkDir(m.root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != m.root && (skipDir(d.Name()) || d.Name() == "venv" || d.Name() == "site-packages") {
					return filepath.SkipDir
				}
				return nil
			}
			if manifestNames[d.Name()] {
				m.byName[d.Name()] = append(m.byName[d.Name()], p)
			}
			return nil
		})
	}
	return m.byName[name]
}
