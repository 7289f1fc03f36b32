package detect

import (
	"os"
	"path/filepath"
	"strings"
)

// A pyenv shim (~/.pyenv/shims/python3) is a bash script that runs a dozen
// more bash scripts to find the version it stands for: hundreds of
// milliseconds per call, and detection asks every python3 and python on
// PATH whether it has pytest. The probe goes to the interpreter the shim
// would run instead, found the way pyenv finds it: $PYENV_VERSION, else
// the nearest .python-version from the project up, else pyenv's global
// version file. The check itself still runs through the shim, as the
// user's own command would.

// pyenvTarget returns the interpreter a pyenv shim runs in dir, or "" when
// interp is no shim or its version cannot be told without pyenv itself
// ("system", a plugin's version name): then the shim is asked as before.
func pyenvTarget(interp, dir string) string {
	shims := filepath.Dir(interp)
	if filepath.Base(shims) != "shims" {
		return ""
	}
	root := filepath.Dir(shims)
	if fi, err := os.Stat(filepath.Join(root, "versions")); err != nil || !fi.IsDir() {
		return ""
	}
	for _, v := range pyenvVersions(root, dir) {
		if v == "system" || strings.ContainsAny(v, `/\`) || v == ".." || v == "." {
			return ""
		}
		p := filepath.Join(root, "versions", v, "bin", filepath.Base(interp))
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

// pyenvVersions lists the versions pyenv would try, in order.
func pyenvVersions(root, dir string) []string {
	if v := os.Getenv("PYENV_VERSION"); v != "" {
		return strings.Split(v, ":")
	}
	for d := dir; ; d = filepath.Dir(d) {
		if vs := readVersionFile(filepath.Join(d, ".python-version")); vs != nil {
			return vs
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return readVersionFile(filepath.Join(root, "version"))
}

// readVersionFile reads a pyenv version file: one or more names, separated
// by white space, with # comments; nil when missing or empty.
func readVersionFile(p string) []string {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.Fields(line)...)
	}
	return out
}
