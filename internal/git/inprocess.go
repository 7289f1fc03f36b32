package git

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
)

// Each git call is a sandboxed process start (about 12 ms of CPU), and a
// verify used to make five of them before its checks ran. Two answers are
// read from files instead, where git's own answer is sure to be the same:
// whether HEAD names a commit, and whether any configuration file defines
// a content filter. When a file is missing, odd or beyond what these
// readers follow, they do not answer and git is asked as before.

// HasHead reports whether HEAD in the work tree at dir certainly names a
// commit id, read from HEAD, the loose ref it points to or packed-refs. It
// answers only yes: false means "ask git" (an unborn branch, a symbolic
// ref chain, another ref storage, a repository Discover is not sure of).
// A ref naming an object that is missing or not a commit makes the next
// git call fail, never a wrong answer.
func HasHead(r *run.Runner, dir string) bool {
	repo, ok := Discover(r, dir)
	if !ok {
		return false
	}
	b, err := os.ReadFile(filepath.Join(repo.GitDir, "HEAD"))
	if err != nil {
		return false
	}
	head := strings.TrimSpace(string(b))
	if isObjectID(head) {
		return true // detached
	}
	ref, ok := strings.CutPrefix(head, "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return false
	}
	if b, err := os.ReadFile(filepath.Join(repo.CommonDir, filepath.FromSlash(ref))); err == nil {
		return isObjectID(strings.TrimSpace(string(b)))
	}
	return packedRef(filepath.Join(repo.CommonDir, "packed-refs"), ref)
}

// packedRef reports whether packed-refs holds ref with an object id.
func packedRef(path, ref string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		id, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref {
			return isObjectID(id)
		}
	}
	return false
}

// isObjectID reports whether s is a full SHA-1 object id (Discover turns
// down other object formats).
func isObjectID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != strings.Repeat("0", 40)
}

// noFilters reports whether certainly no configuration file git reads for
// the work tree at dir defines a content filter: none of them mentions
// "filter" or an include at all. false means "ask git".
func noFilters(r *run.Runner, dir string) bool {
	repo, ok := Discover(r, dir) // also turns down GIT_CONFIG_* and per-worktree files
	if !ok {
		return false
	}
	files := []string{filepath.Join(repo.CommonDir, "config")}
	home, xdg := "", ""
	for _, kv := range environ(r) {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		} else if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			xdg = v
		}
	}
	if home == "" || !filepath.IsAbs(home) || xdg != "" && !filepath.IsAbs(xdg) {
		return false
	}
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return false
		}
		low := bytes.ToLower(b)
		if bytes.Contains(low, []byte("filter")) || bytes.Contains(low, []byte("include")) {
			return false
		}
	}
	return true
}

// environ is the environment git gets from r, before chanto's own
// variables (which set neither HOME nor XDG_CONFIG_HOME).
func environ(r *run.Runner) []string {
	if r != nil && r.BaseEnv != nil {
		return r.BaseEnv
	}
	return os.Environ()
}
