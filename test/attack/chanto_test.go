package attack

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These attacks run the real chanto binary (chanto verify, chanto verify
// --base, chanto -p with a scripted model) on repositories built with
// plain git commands, in an untrusted folder, and judge only from the
// host: a marker file outside the project that a command the repository
// names would append its PID namespace to.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// chantoBin builds the binary once per test run (CHANTO_ATTACK_BIN names
// another one).
func chantoBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if b := os.Getenv("CHANTO_ATTACK_BIN"); b != "" {
			binPath = b // another build, e.g. an older one, to see an attack succeed
			return
		}
		dir, err := os.MkdirTemp("", "chanto-attack-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "chanto")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/chanto").CombinedOutput()
		if err != nil {
			binErr = &buildError{string(out)}
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v", binErr)
	}
	return binPath
}

type buildError struct{ out string }

func (e *buildError) Error() string { return e.out }

// marker is where a planted command records that it ran.
func (w *world) marker() string { return filepath.Join(w.outside, "marker") }

// planted is a shell command that appends its PID namespace to the marker
// and then passes stdin through (so it also works as a filter).
func (w *world) planted(what string) string {
	return `sh -c 'echo ` + what + ` $(readlink /proc/self/ns/pid) >> ` + w.marker() + `; cat'`
}

// assertNothingRan fails when the marker exists: something the repository
// named ran where it could write outside the project.
func (w *world) assertNothingRan(t *testing.T, what string, out []byte) {
	t.Helper()
	b, err := os.ReadFile(w.marker())
	if err != nil {
		return
	}
	host, _ := os.Readlink("/proc/self/ns/pid")
	where := "in another PID namespace"
	if strings.Contains(string(b), host) {
		where = "in the host's PID namespace " + host
	}
	t.Errorf("%s: a program the repository names ran %s:\n%s\nchanto said:\n%s", what, where, b, out)
	os.Remove(w.marker())
}

// gitw runs plain git in the project, as the user would.
func (w *world) git(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = w.proj
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (w *world) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(w.proj, rel)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(content), 0o644))
}

// chanto runs the binary in the project with the world's home folders.
func (w *world) chanto(t *testing.T, timeout time.Duration, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, chantoBin(t), args...)
	cmd.Dir = w.proj
	cmd.Env = append(append(w.env(), w.extraEnv...), "CHANTO_HOME="+filepath.Join(w.base, "chanto-home"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Errorf("chanto %v did not finish within %s", args, timeout)
	}
	return out.Bytes(), err
}

func (w *world) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "LANG=C", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
}

// repo makes the world's project a repository with two commits: a Go-free
// text project whose check is a plain shell command.
func (w *world) repo(t *testing.T) {
	t.Helper()
	os.Remove(filepath.Join(w.proj, "planted"))
	w.write(t, "a.txt", "one\n")
	w.write(t, "sub/dir/b.go", "package dir\n")
	w.write(t, "test_a.py", "def test_a():\n    assert True\n")
	w.git(t, "add", "-A")
	w.git(t, "commit", "-qm", "first")
	w.write(t, "a.txt", "two\n")
	w.git(t, "commit", "-qam", "second")
}

// change edits tracked files and adds one, so every read of chanto's git
// has work to do: content to hash, a test file's base to read, an
// untracked file to list.
func (w *world) change(t *testing.T) {
	t.Helper()
	// Same sizes: git must read the content to see the change.
	w.write(t, "a.txt", "TWO\n")
	w.write(t, "sub/dir/b.go", "package DIR\n")
	w.write(t, "test_a.py", "def test_a():\n    assert TRUE\n")
	w.write(t, "new.txt", "new\n")
}

// modes are the three ways chanto's git reads a repository.
var modes = []struct {
	name string
	args func(w *world, t *testing.T) []string
}{
	{"verify", func(w *world, t *testing.T) []string { return []string{"verify", "--check", "true"} }},
	{"verify-base", func(w *world, t *testing.T) []string {
		return []string{"verify", "--base", "HEAD~1", "--check", "true"}
	}},
	{"print", func(w *world, t *testing.T) []string {
		script := filepath.Join(w.base, "model.script")
		must(t, os.WriteFile(script, []byte("call bash {\"command\": \"echo owt > a.txt; echo more > new2.txt\"}\n---\nsay Done.\n"), 0o644))
		return []string{"-p", "change a.txt", "--model", "scripted:" + script, "--permission-mode", "bypass", "--verify", "--verify-check", "true"}
	}},
}

// script writes an executable shell script outside the project and
// returns its path.
func (w *world) script(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(w.base, name)
	must(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	return p
}

// gitVectors are repositories handed over with their .git: each names a
// program in a place a read by chanto's git could start it.
var gitVectors = []struct {
	name  string
	plant func(w *world, t *testing.T)
}{
	{"filter clean in .git/config", func(w *world, t *testing.T) {
		w.write(t, ".gitattributes", "*.txt filter=evil\n")
		w.git(t, "config", "filter.evil.clean", w.planted("clean"))
		w.git(t, "config", "filter.evil.smudge", w.planted("smudge"))
		w.git(t, "config", "filter.evil.required", "true")
	}},
	{"filter process", func(w *world, t *testing.T) {
		w.write(t, ".gitattributes", "*.py filter=proc2\n*.txt filter=proc2\n")
		w.git(t, "config", "filter.proc2.process", w.planted("process"))
	}},
	{"info/attributes", func(w *world, t *testing.T) {
		must(t, os.MkdirAll(filepath.Join(w.proj, ".git", "info"), 0o755))
		must(t, os.WriteFile(filepath.Join(w.proj, ".git", "info", "attributes"), []byte("* filter=lfs\n"), 0o644))
		w.git(t, "config", "filter.lfs.clean", w.planted("lfs"))
	}},
	{"attributes in a nested folder", func(w *world, t *testing.T) {
		w.write(t, "sub/dir/.gitattributes", "*.go filter=deep\n")
		w.git(t, "config", "filter.deep.clean", w.planted("deep"))
	}},
	{"include.path two levels", func(w *world, t *testing.T) {
		w.write(t, ".gitattributes", "*.txt filter=lvl\n")
		must(t, os.WriteFile(filepath.Join(w.proj, ".git", "l1.cfg"), []byte("[include]\n\tpath = l2.cfg\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(w.proj, ".git", "l2.cfg"), []byte("[filter \"lvl\"]\n\tclean = \""+w.planted("include")+"\"\n"), 0o644))
		w.git(t, "config", "include.path", "l1.cfg")
	}},
	{"includeIf gitdir", func(w *world, t *testing.T) {
		w.write(t, ".gitattributes", "*.txt filter=cond\n")
		must(t, os.WriteFile(filepath.Join(w.proj, ".git", "cond.cfg"), []byte("[filter \"cond\"]\n\tclean = \""+w.planted("includeIf")+"\"\n"), 0o644))
		w.git(t, "config", "includeIf.gitdir:"+w.proj+"/.path", "cond.cfg")
	}},
	{"fsmonitor", func(w *world, t *testing.T) {
		w.git(t, "config", "core.fsmonitor", w.script(t, "fsmon", `echo fsmonitor $(readlink /proc/self/ns/pid) >> `+w.marker()))
	}},
	{"hooks", func(w *world, t *testing.T) {
		for _, h := range []string{"post-index-change", "reference-transaction", "pre-auto-gc", "post-checkout"} {
			p := filepath.Join(w.proj, ".git", "hooks", h)
			must(t, os.WriteFile(p, []byte("#!/bin/sh\necho hook $(readlink /proc/self/ns/pid) >> "+w.marker()+"\n"), 0o755))
		}
		w.git(t, "config", "gc.auto", "1")
	}},
	{"diff drivers and pager", func(w *world, t *testing.T) {
		w.write(t, ".gitattributes", "*.txt diff=tc\n*.py diff=cmd\n")
		w.git(t, "config", "diff.tc.textconv", w.planted("textconv"))
		w.git(t, "config", "diff.cmd.command", w.planted("diffcmd"))
		w.git(t, "config", "diff.external", w.planted("external"))
		w.git(t, "config", "core.pager", w.planted("pager"))
	}},
	{"nested repository and gitlink", func(w *world, t *testing.T) {
		sub := filepath.Join(w.proj, "nested")
		must(t, os.MkdirAll(sub, 0o755))
		for _, args := range [][]string{{"init", "-q"}, {"config", "filter.nr.clean", w.planted("nested")}, {"config", "core.fsmonitor", w.planted("nested-fsmonitor")}} {
			c := exec.Command("git", args...)
			c.Dir = sub
			must(t, c.Run())
		}
		must(t, os.WriteFile(filepath.Join(sub, ".gitattributes"), []byte("* filter=nr\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(sub, "f"), []byte("a\n"), 0o644))
		c := exec.Command("sh", "-c", "git add -A && git commit -qm x")
		c.Dir, c.Env = sub, append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		must(t, c.Run())
		w.git(t, "add", "nested")
		w.git(t, "commit", "-qm", "gitlink")
		// Dirty inside: git would run "git status" in it to say so.
		must(t, os.WriteFile(filepath.Join(sub, "f"), []byte("b\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(sub, "g"), []byte("new\n"), 0o644))
	}},
}

func TestChantosGitRunsNothingARepositoryNames(t *testing.T) {
	requireSandbox(t)
	for _, v := range gitVectors {
		for _, m := range modes {
			t.Run(v.name+"/"+m.name, func(t *testing.T) {
				w := newWorld(t)
				w.repo(t)
				v.plant(w, t)
				w.change(t)
				os.Remove(w.marker()) // the user's own git, setting up, may run them
				out, _ := w.chanto(t, 3*time.Minute, m.args(w, t)...)
				w.assertNothingRan(t, v.name, out)
			})
		}
	}
}

// lazyFetch makes the project a partial clone whose promisor remote runs
// program (as named by how) when a missing object is read, and removes
// the blob of test_a.py (which a change to it makes chanto read).
func (w *world) lazyFetch(t *testing.T, how, program string) {
	t.Helper()
	w.git(t, "config", "core.repositoryformatversion", "1")
	w.git(t, "config", "extensions.partialClone", "origin")
	w.git(t, "config", "remote.origin.promisor", "true")
	w.git(t, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
	w.git(t, "config", "protocol.allow", "always")
	switch how {
	case "ext":
		w.git(t, "config", "remote.origin.url", "ext::"+program)
	case "ssh":
		w.git(t, "config", "remote.origin.url", "ssh://git.example.invalid/x.git")
		w.git(t, "config", "core.sshCommand", program)
	case "gitproxy":
		w.git(t, "config", "remote.origin.url", "git://git.example.invalid/x.git")
		w.git(t, "config", "core.gitProxy", program)
	case "credential":
		// Held: a helper or askpass runs only once a transport asks.
		w.git(t, "config", "remote.origin.url", "https://git.example.invalid/x.git")
		w.git(t, "config", "credential.helper", "!"+program)
		w.git(t, "config", "core.askPass", program)
		w.git(t, "config", "http.proxy", "http://127.0.0.1:9")
	case "uploadpack":
		origin := filepath.Join(w.base, "origin.git")
		must(t, exec.Command("git", "init", "-q", "--bare", origin).Run())
		w.git(t, "config", "remote.origin.url", origin)
		w.git(t, "config", "remote.origin.uploadpack", program)
	}
	out, err := exec.Command("git", "-C", w.proj, "rev-parse", "HEAD:test_a.py").Output()
	must(t, err)
	id := strings.TrimSpace(string(out))
	must(t, os.Remove(filepath.Join(w.proj, ".git", "objects", id[:2], id[2:])))
}

func TestLazyFetchRunsNoTransport(t *testing.T) {
	requireSandbox(t)
	for _, how := range []string{"ext", "ssh", "uploadpack", "gitproxy", "credential"} {
		for _, m := range modes {
			t.Run(how+"/"+m.name, func(t *testing.T) {
				w := newWorld(t)
				w.repo(t)
				w.lazyFetch(t, how, w.script(t, "transport", "echo "+how+" $(readlink /proc/self/ns/pid) >> "+w.marker()))
				if m.name == "print" {
					w.write(t, "a.txt", "TWO\n")
				} else {
					w.change(t)
				}
				args := m.args(w, t)
				if m.name == "print" {
					script := filepath.Join(w.base, "model.script")
					must(t, os.WriteFile(script, []byte("call bash {\"command\": \"printf 'def test_a():\\\\n    assert 2 == 2\\\\n' > test_a.py\"}\n---\nsay Done.\n"), 0o644))
				}
				out, _ := w.chanto(t, 3*time.Minute, args...)
				w.assertNothingRan(t, how, out)
			})
		}
	}
}

// modelPlanted are the model's own bash calls (a prompt-injected model
// needs nothing more): each rewires what chanto's git, or the user's,
// reads as configuration.
var modelPlanted = []struct{ name, attack string }{
	{"git folder copy and commondir", `cp -r .git .g2
git config -f .g2/config filter.cd.clean "$PLANTED"
echo '* filter=cd' > .gitattributes
printf '#!/bin/sh\necho pre-commit $(readlink /proc/self/ns/pid) >> %s\n' "$MARKER" > .g2/hooks/pre-commit
chmod +x .g2/hooks/pre-commit
echo "$PWD/.g2" > .git/commondir`},
	{"info attributes and includes", `mkdir -p .git/info; echo '* filter=ia' > .git/info/attributes
printf '[filter "ia"]\n\tclean = "%s"\n' "$PLANTED" > .git/inc.cfg
echo "$PWD/elsewhere/objects" > .git/objects/info/alternates
printf '#!/bin/sh\necho hook >> %s\n' "$MARKER" > .git/hooks/post-index-change; chmod +x .git/hooks/post-index-change`},
	{"nested repository and gitlink", `git init -q nested && cd nested && git config filter.nr.clean "$PLANTED" &&
echo '* filter=nr' > .gitattributes && echo a > f && git add -A && git -c user.name=a -c user.email=a@a commit -qm x &&
echo b > f && cd .. && git add nested`},
}

func TestModelCannotPlantGitConfiguration(t *testing.T) {
	requireSandbox(t)
	for _, a := range modelPlanted {
		t.Run(a.name, func(t *testing.T) {
			w := newWorld(t)
			w.repo(t)
			w.change(t)
			attack := filepath.Join(w.base, "attack.sh")
			must(t, os.WriteFile(attack, []byte("PLANTED=\""+strings.ReplaceAll(w.planted("planted"), `"`, `\"`)+"\"\nMARKER="+w.marker()+"\n"+a.attack+"\necho owt > a.txt\n"), 0o644))
			script := filepath.Join(w.base, "model.script")
			must(t, os.WriteFile(script, []byte("call bash {\"command\": \"bash "+attack+"\"}\n---\nsay Done.\n"), 0o644))
			out, _ := w.chanto(t, 3*time.Minute, "-p", "do it", "--model", "scripted:"+script, "--permission-mode", "bypass", "--verify", "--verify-check", "true")
			w.assertNothingRan(t, "chanto -p", out)
			out, _ = w.chanto(t, 3*time.Minute, "verify", "--check", "true")
			w.assertNothingRan(t, "the next chanto verify", out)
			// The user's own next commit runs the hooks of whatever .git
			// leads to. (A nested repository's own filters run in the
			// user's git by design: docs/security.md, known limits.)
			if !strings.Contains(a.name, "nested") {
				w.git(t, "commit", "-qam", "user's commit", "--allow-empty")
				w.assertNothingRan(t, "the user's next git commit", out)
			}
		})
	}
}
