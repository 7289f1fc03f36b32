package attack

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The dependency download chanto starts when a check lacked its
// dependencies reaches the package registries only: a project naming a
// git source or a registry at a host listener must not make it send a
// request there.
func TestDownloadNeverReachesTheHost(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("cargo"); err != nil {
		t.Fatal("cargo is needed (scripts/test installs it)")
	}
	cases := []struct{ name, files string }{
		{"git dependency", `-- Cargo.toml --
[package]
name = "victim"
version = "0.1.0"
edition = "2021"
[dependencies]
x = { git = "http://127.0.0.1:PORT/x.git" }
`},
		{"registry replaced", `-- Cargo.toml --
[package]
name = "victim"
version = "0.1.0"
edition = "2021"
[dependencies]
itoa = "1"
-- .cargo/config.toml --
[source.crates-io]
replace-with = "mine"
[source.mine]
registry = "sparse+http://127.0.0.1:PORT/index/"
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			l := listen(t)
			files := strings.ReplaceAll(c.files, "PORT", strconv.Itoa(l.port)) + "-- src/lib.rs --\n" + lib("1")
			for _, f := range strings.Split(files, "-- ")[1:] {
				name, body, _ := strings.Cut(f, " --\n")
				w.write(t, name, body)
			}
			w.git(t, "add", "-A")
			w.git(t, "commit", "-qm", "init")
			w.write(t, "src/lib.rs", lib("2 - 1"))
			// cargo's own caches under the world's home, writable in the
			// sandbox as ~/.cargo/registry and ~/.cargo/git are.
			for _, d := range []string{"registry", "git"} {
				must(t, os.MkdirAll(filepath.Join(w.home, ".cargo", d), 0o755))
			}
			out, _ := w.chantoEnv(t, []string{"CARGO_HOME=" + filepath.Join(w.home, ".cargo"), "RUSTUP_HOME=" + rustupHome()}, "verify")
			t.Logf("chanto said:\n%s", out)
			if n := l.hits.Load(); n != 0 {
				t.Errorf("the download reached the host listener (%d connections):\n%s", n, out)
			}
		})
	}
}

func lib(one string) string {
	return "pub fn one() -> i32 { " + one + " }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { assert_eq!(super::one(), 1); }\n}\n"
}

// rustupHome keeps the toolchain reachable under the world's fake HOME.
func rustupHome() string {
	out, err := exec.Command("rustup", "show", "home").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
