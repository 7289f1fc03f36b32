package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chanto-dev/chanto/internal/config"
)

// homeDotfiles run code or hold keys; they stay read-only when a writable
// root contains the home folder.
var homeDotfiles = []string{".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".ssh", ".gitconfig", ".config", ".local/bin", ".chanto", ".npmrc", ".pypirc", ".netrc"}

// credentialFiles hold keys and tokens under a home folder; commands see
// them empty.
var credentialFiles = []string{".ssh", ".aws", ".azure", ".gnupg", ".kube", ".docker/config.json",
	".config/gcloud", ".config/gh", ".config/hub", ".netrc", ".git-credentials", ".pypirc",
	".npmrc", ".yarnrc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".terraform.d/credentials.tfrc.json", ".vault-token", ".password-store"}

// credentialStores lists the existing credential files and folders of
// chanto's home and of the command's $HOME, and chanto's own folder
// (history, trust store, config).
func credentialStores(env []string) []string {
	homes := map[string]bool{}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		homes[h] = true
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok && filepath.IsAbs(v) {
			homes[filepath.Clean(v)] = true
		}
	}
	var out []string
	for h := range homes {
		for _, f := range credentialFiles {
			out = append(out, filepath.Join(h, f))
		}
	}
	out = append(out, config.Home())
	return out
}

// hideArgs covers each existing path with an empty folder or /dev/null,
// except paths holding a root the command must see. A covered folder that
// holds temp, the command's own temp folder, gets that folder bound inside
// the cover before the cover is made read-only.
func hideArgs(paths, keep []string, temp string) []string {
	var a []string
	seen := map[string]bool{}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || seen[p] || p == "/" || holdsAny(p, keep) {
			continue
		}
		seen[p] = true
		switch {
		case !fi.IsDir():
			a = append(a, "--ro-bind", "/dev/null", p)
		case temp != "" && holdsAny(p, []string{temp}):
			a = append(a, "--tmpfs", p, "--bind", temp, temp, "--remount-ro", p)
			temp = ""
		default:
			a = append(a, "--tmpfs", p, "--remount-ro", p)
		}
	}
	if temp != "" {
		a = append(a, "--bind", temp, temp)
	}
	return a
}

func holdsAny(dir string, paths []string) bool {
	for _, p := range paths {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

var (
	goDirsOnce                 sync.Once
	goCache, goModCache, goSum string
)

// goCacheDirs finds where the go command keeps its caches (go env -w may
// have moved them), once: read in-process by the go command's own rules
// when its installation is the usual one (goEnvFiles), else by asking it
// outside any project with GOTOOLCHAIN=local, so no toolchain a project
// asks for is fetched or run; without go it falls back to the documented
// defaults. The third is the checksum database's cache, $GOPATH/pkg/sumdb:
// without it writable a download that must check a new module's sum fails
// to save sum.golang.org's latest signed tree.
func goCacheDirs() (cache, modCache, sumdb string) {
	goDirsOnce.Do(func() {
		var gopath string
		if gobin, err := exec.LookPath("go"); err == nil {
			if c, m, p, ok := goEnvFiles(gobin, os.Getenv); ok {
				goCache, goModCache, gopath = c, m, p
			} else if c, m, p, ok := askGoEnv(gobin); ok {
				goCache, goModCache, gopath = c, m, p
			}
		}
		if goCache == "" {
			goCache = os.Getenv("GOCACHE")
			if c, err := os.UserCacheDir(); goCache == "" && err == nil {
				goCache = filepath.Join(c, "go-build")
			}
			gopath = os.Getenv("GOPATH")
			if home, err := os.UserHomeDir(); gopath == "" && err == nil {
				gopath = filepath.Join(home, "go")
			}
			goModCache = os.Getenv("GOMODCACHE")
			if goModCache == "" && gopath != "" {
				goModCache = filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "pkg", "mod")
			}
		}
		if first := strings.Split(gopath, string(os.PathListSeparator))[0]; filepath.IsAbs(first) {
			goSum = filepath.Join(first, "pkg", "sumdb")
		}
	})
	return goCache, goModCache, goSum
}

// askGoEnv runs go env for the three settings.
func askGoEnv(gobin string) (cache, modCache, gopath string, ok bool) {
	c := exec.Command(gobin, "env", "GOCACHE", "GOMODCACHE", "GOPATH")
	c.Dir = "/"
	c.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	out, err := c.Output()
	if err != nil {
		return "", "", "", false
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || !filepath.IsAbs(lines[0]) || !filepath.IsAbs(lines[1]) {
		return "", "", "", false
	}
	return lines[0], lines[1], lines[2], true
}

// goEnvFiles resolves GOCACHE, GOMODCACHE and GOPATH as the go command at
// gobin would, without starting it: the environment, then the user's
// go env file ($GOENV, default os.UserConfigDir()/go/env), then
// $GOROOT/go.env, then the defaults. It declines (ok false) whenever its
// answer could differ from go env's: GOROOT not the installation gobin
// lies in, a file it cannot read, a value that is not an absolute path.
// A process start saved per chanto process, on every sandboxed command.
func goEnvFiles(gobin string, getenv func(string) string) (cache, modCache, gopath string, ok bool) {
	real, err := filepath.EvalSymlinks(gobin)
	if err != nil {
		return "", "", "", false
	}
	goroot := filepath.Dir(filepath.Dir(real))
	if filepath.Base(filepath.Dir(real)) != "bin" || getenv("GOROOT") != "" && filepath.Clean(getenv("GOROOT")) != goroot {
		return "", "", "", false
	}
	if _, err := os.Stat(filepath.Join(goroot, "src", "runtime")); err != nil {
		return "", "", "", false
	}
	var files []map[string]string
	userFile := getenv("GOENV")
	if userFile == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", "", "", false
		}
		userFile = filepath.Join(dir, "go", "env")
	}
	for _, f := range []string{userFile, filepath.Join(goroot, "go.env")} {
		if f == "off" {
			continue
		}
		vals, err := readGoEnvFile(f)
		if err != nil {
			return "", "", "", false
		}
		if v := vals["GOROOT"]; v != "" && filepath.Clean(v) != goroot {
			return "", "", "", false // the user's file moves GOROOT
		}
		files = append(files, vals)
	}
	lookup := func(key string) string {
		if v := getenv(key); v != "" {
			return v
		}
		for _, vals := range files {
			if v := vals[key]; v != "" {
				return v
			}
		}
		return ""
	}
	gopath = lookup("GOPATH")
	if gopath == "" {
		home, err := os.UserHomeDir()
		if err != nil || filepath.Join(home, "go") == goroot {
			return "", "", "", false
		}
		gopath = filepath.Join(home, "go")
	}
	cache = lookup("GOCACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return "", "", "", false
		}
		cache = filepath.Join(dir, "go-build")
	}
	modCache = lookup("GOMODCACHE")
	if modCache == "" {
		modCache = filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "pkg", "mod")
	}
	if !filepath.IsAbs(cache) || !filepath.IsAbs(modCache) || !filepath.IsAbs(strings.Split(gopath, string(os.PathListSeparator))[0]) {
		return "", "", "", false
	}
	return cache, modCache, gopath, true
}

// readGoEnvFile reads a go env file as the go command does: NAME=VALUE
// lines, the name starting with a capital letter, nothing trimmed; other
// lines (comments) are skipped. A missing file is an empty one.
func readGoEnvFile(name string) (map[string]string, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	vals := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" || k[0] < 'A' || k[0] > 'Z' {
			continue
		}
		if _, seen := vals[k]; !seen {
			vals[k] = v
		}
	}
	return vals, nil
}

// toolCaches are the caches build tools write to.
func toolCaches() []string {
	home, _ := os.UserHomeDir()
	var out []string
	add := func(p string, create bool) {
		if p == "" {
			return
		}
		if create {
			_ = os.MkdirAll(p, 0o755)
		}
		out = append(out, p)
	}
	gocache, modcache, sumdb := goCacheDirs()
	add(gocache, true)
	add(modcache, true)
	add(sumdb, true)
	if home != "" {
		add(filepath.Join(home, ".npm"), false)
		add(filepath.Join(home, ".cache", "pip"), false)
		add(filepath.Join(home, ".cargo", "registry"), false)
		add(filepath.Join(home, ".cargo", "git"), false)
	}
	add(os.Getenv("CARGO_TARGET_DIR"), false)
	return out
}
