package git

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/chanto-dev/chanto/internal/run"
)

// Repo is a work tree found by reading files, no git run: its top level
// (physical, as `git rev-parse --show-toplevel` prints it), its git folder
// and the common folder a linked worktree shares with its main one.
type Repo struct {
	Top       string
	GitDir    string
	CommonDir string
}

// Discover finds the work tree holding dir the way git does, in-process,
// and answers only when it is sure git would find the same: no variable
// in the runner's environment redirects git (GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE, …), the walk up crosses no file system boundary and no
// folder that could be a bare repository, the folders belong to this user
// (git's safe.directory check), and the repository's configuration moves
// nothing (core.worktree, core.bare, includes, another object format,
// per-worktree configuration). Otherwise ok is false and the caller asks
// git, whose answer is the reference.
func Discover(r *run.Runner, dir string) (repo Repo, ok bool) {
	if redirected(r) {
		return Repo{}, false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, false
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return Repo{}, false
	}
	var dev uint64
	for d := abs; ; d = filepath.Dir(d) {
		if filepath.Base(d) == ".git" {
			return Repo{}, false // inside a git folder: git's answer differs
		}
		var st syscall.Stat_t
		if syscall.Stat(d, &st) != nil {
			return Repo{}, false
		}
		if d != abs && uint64(st.Dev) != dev {
			return Repo{}, false // git stops at a mount point
		}
		dev = uint64(st.Dev)
		p := filepath.Join(d, ".git")
		if fi, err := os.Lstat(p); err == nil {
			return repoAt(d, p, fi)
		}
		if looksBare(d) {
			return Repo{}, false
		}
		if d == filepath.Dir(d) {
			return Repo{}, false
		}
	}
}

// repoAt checks the .git entry found at top.
func repoAt(top, gitPath string, fi os.FileInfo) (Repo, bool) {
	repo := Repo{Top: top, GitDir: gitPath}
	switch {
	case fi.IsDir():
	case fi.Mode().IsRegular():
		if !ownedByMe(gitPath) {
			return Repo{}, false
		}
		repo.GitDir = gitdirOfFile(gitPath)
		if repo.GitDir == "" {
			return Repo{}, false
		}
	default:
		return Repo{}, false
	}
	repo.CommonDir = repo.GitDir
	if b, err := os.ReadFile(filepath.Join(repo.GitDir, "commondir")); err == nil {
		repo.CommonDir = resolve(repo.GitDir, strings.TrimSpace(string(b)))
	}
	for _, f := range []string{filepath.Join(repo.GitDir, "HEAD"), filepath.Join(repo.CommonDir, "objects"), filepath.Join(repo.CommonDir, "refs")} {
		if _, err := os.Stat(f); err != nil {
			return Repo{}, false // not a repository git would accept
		}
	}
	if !ownedByMe(top) || !ownedByMe(repo.GitDir) {
		return Repo{}, false
	}
	if !plainConfig(filepath.Join(repo.CommonDir, "config")) {
		return Repo{}, false
	}
	if repo.GitDir != repo.CommonDir {
		if _, err := os.Stat(filepath.Join(repo.GitDir, "config.worktree")); err == nil {
			return Repo{}, false
		}
	}
	return repo, true
}

// looksBare reports whether d could be a bare repository git would stop
// at.
func looksBare(d string) bool {
	if _, err := os.Lstat(filepath.Join(d, "HEAD")); err != nil {
		return false
	}
	_, err := os.Lstat(filepath.Join(d, "objects"))
	return err == nil
}

// plainConfig reports whether a repository's configuration file sets
// nothing that moves the work tree, the index or the object format.
// Anything it cannot read line by line counts as not plain.
func plainConfig(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.ToLower(strings.TrimSpace(sc.Text()))
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasPrefix(line, "[include") {
			return false
		}
		if line[0] == '[' {
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "worktree", "objectformat", "worktreeconfig", "compatobjectformat":
			return false
		case "bare":
			if value != "false" && value != "no" && value != "off" && value != "0" {
				return false
			}
		}
		if strings.HasSuffix(line, "\\") {
			return false // a continued line: leave it to git
		}
	}
	return sc.Err() == nil
}

// ownedByMe is git's safe.directory test: the folder belongs to the
// effective user.
func ownedByMe(path string) bool {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) != nil {
		return false
	}
	return int(st.Uid) == os.Geteuid()
}

// discoveryVars are the variables that change where git looks.
var discoveryVars = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
	"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
	"GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_DEFAULT_HASH", "GIT_INDEX_VERSION",
	"GIT_TEST_SPLIT_INDEX", "GIT_PREFIX", "GIT_IMPLICIT_WORK_TREE"}

// redirected reports whether the environment git would get redirects it.
func redirected(r *run.Runner) bool {
	env := os.Environ()
	if r != nil && r.BaseEnv != nil {
		env = r.BaseEnv
	}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		for _, v := range discoveryVars {
			if name == v {
				return true
			}
		}
	}
	return false
}
