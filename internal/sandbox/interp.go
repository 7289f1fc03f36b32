package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// hiddenRoots are the host folders the sandbox replaces with empty ones.
var hiddenRoots = []string{"/tmp", "/var/tmp", "/run"}

// interpreterBinds are the folders under a hidden root that the command's
// interpreters and tools live in: an activated virtualenv
// ($VIRTUAL_ENV=/tmp/…/venv) with the Python installation it was made
// from, and PATH entries (/tmp/node-v20/bin). They are bound read-only, so
// a check finds the same python3 or node the user's shell does instead of
// another one or none. A "bin" folder brings its parent (lib/ sits beside
// it), never a hidden root itself; folders already inside a writable root
// are left alone.
func interpreterBinds(env, writable []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(dir string) {
		dir = filepath.Clean(dir)
		if !filepath.IsAbs(dir) {
			return
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if filepath.Base(dir) == "bin" && belowHidden(filepath.Dir(dir)) {
			dir = filepath.Dir(dir)
		}
		if seen[dir] || !belowHidden(dir) || insideAny(dir, writable) {
			return
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return
		}
		seen[dir] = true
		out = append(out, dir)
	}
	// An interpreter links to its installation (venv/bin/python3 ->
	// /tmp/py/bin/python3.12): that folder comes along.
	addTargets := func(bin string) {
		for _, name := range []string{"python3", "python", "node"} {
			if real, err := filepath.EvalSymlinks(filepath.Join(bin, name)); err == nil {
				add(filepath.Dir(real))
			}
		}
	}
	if venv := envValue(env, "VIRTUAL_ENV"); venv != "" {
		add(venv)
		addTargets(filepath.Join(venv, "bin"))
		if home := venvHome(venv); home != "" {
			add(home)
		}
	}
	for _, dir := range filepath.SplitList(envValue(env, "PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		add(dir)
		if belowHidden(filepath.Clean(dir)) {
			addTargets(dir)
		}
	}
	return out
}

// venvHome reads the "home" line of a virtualenv's pyvenv.cfg: the bin
// folder of the Python it was made from.
func venvHome(venv string) string {
	f, err := os.Open(filepath.Join(venv, "pyvenv.cfg"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "home" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// belowHidden reports whether dir lies strictly inside a hidden root.
func belowHidden(dir string) bool {
	for _, h := range hiddenRoots {
		if strings.HasPrefix(dir, h+"/") {
			return true
		}
	}
	return false
}

func insideAny(dir string, roots []string) bool {
	for _, r := range roots {
		if dir == r || strings.HasPrefix(dir, r+"/") {
			return true
		}
	}
	return false
}

func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	return v
}
