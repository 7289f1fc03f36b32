package verify

import (
	"archive/zip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// proxyEnv stands in for a sandbox by the network it gives go: its
// GOPROXY, and the same module cache for every command.
type proxyEnv struct{ goproxy, modcache string }

func (p proxyEnv) Wrap(cmd *exec.Cmd, _ run.Spec) error {
	cmd.Env = append(cmd.Env, "GOPROXY="+p.goproxy, "GOMODCACHE="+p.modcache, "GOSUMDB=off", "GOFLAGS=-mod=readonly")
	return nil
}

// moduleProxy writes a file:// module proxy serving example.com/dep
// v1.0.0, whose Answer returns 42.
func moduleProxy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proxy")
	v := filepath.Join(dir, "example.com", "dep", "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	put(t, v, "list", "v1.0.0\n")
	put(t, v, "v1.0.0.info", `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`)
	put(t, v, "v1.0.0.mod", "module example.com/dep\n\ngo 1.21\n")
	f, err := os.Create(filepath.Join(v, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range map[string]string{
		"go.mod": "module example.com/dep\n\ngo 1.21\n",
		"dep.go": "package dep\n\nfunc Answer() int { return 42 }\n",
	} {
		w, _ := zw.Create("example.com/dep@v1.0.0/" + name)
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return "file://" + filepath.ToSlash(dir)
}

// depProject is a committed Go module that needs example.com/dep, with an
// empty module cache.
func depProject(t *testing.T, goproxy string) (dir, modcache string) {
	dir = gitRepo(t)
	modcache = filepath.Join(t.TempDir(), "modcache")
	put(t, dir, "go.mod", "module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n")
	put(t, dir, "app.go", "package app\n\nimport \"example.com/dep\"\n\nfunc Twice() int { return 2 * dep.Answer() }\n")
	put(t, dir, "app_test.go", "package app\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice() != 84 {\n\t\tt.Fatal(Twice())\n\t}\n}\n")
	// go.sum, as the project would commit it.
	cmd := exec.Command("go", "mod", "download", "-json")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOPROXY="+goproxy, "GOMODCACHE="+modcache, "GOSUMDB=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	cmd = exec.Command("go", "mod", "tidy")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOPROXY="+goproxy, "GOMODCACHE="+modcache, "GOSUMDB=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	// The cache starts empty, as on a fresh clone.
	cmd = exec.Command("go", "clean", "-modcache")
	cmd.Env = append(os.Environ(), "GOMODCACHE="+modcache)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go clean -modcache: %v\n%s", err, out)
	}
	return dir, modcache
}

func TestChecksDownloadTheirDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs go")
	}
	t.Setenv("CHANTO_HOME", t.TempDir())
	goproxy := moduleProxy(t)
	const offline = "http://127.0.0.1:1" // connection refused: a denied network
	for _, tc := range []struct {
		name     string
		evidence string
		fetched  string
	}{
		{"downloaded", "Verified: go vet ./... (", "go mod download"},
		{"no download sandbox", "⚠ Not verified: go vet ./... could not run: its dependencies are not downloaded, and the sandbox gives checks no network to fetch them: run go mod download first.", ""},
		{"download fails", "⚠ Not verified: go vet ./... could not run: it could not download its dependencies: go mod download failed: ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, modcache := depProject(t, goproxy)
			put(t, dir, "app.go", "package app\n\nimport \"example.com/dep\"\n\n// Twice doubles the answer.\nfunc Twice() int { return 2 * dep.Answer() }\n")
			r := &run.Runner{Sandbox: proxyEnv{offline, modcache}}
			switch tc.name {
			case "downloaded":
				r.DownloadSandbox = proxyEnv{goproxy, modcache}
			case "download fails":
				r.DownloadSandbox = proxyEnv{offline, modcache}
			}
			rep, err := Run(context.Background(), Options{Root: dir, Runner: r})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(rep.Evidence, tc.evidence) {
				t.Fatalf("evidence = %q\nwant it to start %q", rep.Evidence, tc.evidence)
			}
			if got := rep.Checks[0].Downloaded; got != tc.fetched {
				t.Errorf("downloaded = %q, want %q", got, tc.fetched)
			}
			if tc.fetched != "" && (rep.Verdict != Verified || len(rep.Checks) != 2) {
				t.Errorf("verdict %s with %d checks, want both checks to pass after the download", rep.Verdict, len(rep.Checks))
			}
		})
	}
}

func TestLackedNetwork(t *testing.T) {
	cargoOffline := "    Updating crates.io index\nwarning: spurious network error (3 tries remaining): [6] Could not resolve hostname (Could not resolve host: index.crates.io)\nerror: failed to get `itoa` as a dependency of package `x v0.1.0 (/p)`\n\nCaused by:\n  download of config.json failed\n"
	for _, tc := range []struct {
		r    detect.Runner
		out  string
		want bool
	}{
		{detect.GoVet, `context.go:22:2: github.com/gin-contrib/sse@v0.1.0: Get "https://proxy.golang.org/github.com/gin-contrib/sse/@v/v0.1.0.zip": dial tcp: lookup proxy.golang.org on 10.255.255.53:53: dial udp 10.255.255.53:53: socket: address family not supported by protocol`, true},
		{detect.Go, `go: example.com/dep@v1.0.0: Get "http://127.0.0.1:1/example.com/dep/@v/v1.0.0.mod": dial tcp 127.0.0.1:1: connect: connection refused`, true},
		// A test of the project's own that fails to dial is not a download.
		{detect.Go, "--- FAIL: TestFetch (0.01s)\n    fetch_test.go:12: dial tcp 127.0.0.1:8080: connect: connection refused\nFAIL", false},
		{detect.Go, "--- FAIL: TestGet (0.01s)\n    get_test.go:9: Get \"https://example.com/\": dial tcp: lookup example.com: no such host\nFAIL", false},
		{detect.Go, `go: verifying module: example.com/dep@v1.0.0: Get "https://sum.golang.org/lookup/example.com/dep@v1.0.0": dial tcp: lookup sum.golang.org: no such host`, true},
		{detect.Cargo, cargoOffline, true},
		{detect.Cargo, "test net::fetch ... FAILED\nthread panicked: Could not resolve host: example.com\n", false},
		{detect.Pytest, `E   requests.exceptions.ConnectionError: Get "https://x": dial tcp`, false},
	} {
		if got := lackedNetwork(tc.r, tc.out); got != tc.want {
			t.Errorf("lackedNetwork(%s, %.60q…) = %v, want %v", tc.r, tc.out, got, tc.want)
		}
	}
}

func TestSweepReportDirs(t *testing.T) {
	git := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(git, fmt.Sprintf("chanto-verify-%d-123", gone.Process.Pid))
	live := filepath.Join(git, fmt.Sprintf("chanto-verify-%d-456", os.Getpid()))
	other := filepath.Join(git, "chanto-verify-notes")
	for _, d := range []string{left, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A fresh folder may belong to a run in another pid namespace.
	sweepReportDirs(git)
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("a folder younger than an hour was removed")
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, d := range []string{left, live, other} {
		os.Chtimes(d, old, old)
	}
	sweepReportDirs(git)
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the folder of a process that is gone was kept")
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", filepath.Base(d), err)
		}
	}
}

func TestCargoRunsPrograms(t *testing.T) {
	for _, tc := range []struct{ file, body, want string }{
		{".cargo/config.toml", "[build]\nrustc-wrapper = \"./wrap.sh\"\n", ".cargo/config.toml"},
		{".cargo/config", "[registries.my]\ncredential-provider = [\"./get-token\"]\n", ".cargo/config"},
		{"rust-toolchain.toml", "[toolchain]\npath = \"./toolchain\"\n", "rust-toolchain.toml"},
		{"rust-toolchain.toml", "[toolchain]\nchannel = \"1.80\"\n", ""},
		{".cargo/config.toml", "[alias]\nt = \"test\"\n[target.x86_64-unknown-linux-gnu]\nlinker = \"clang\"\n", ""},
		{".cargo/config.toml", "[build\n", ".cargo/config.toml"},
	} {
		root := t.TempDir()
		put(t, root, tc.file, tc.body)
		crate := filepath.Join(root, "crates", "a")
		if err := os.MkdirAll(crate, 0o755); err != nil {
			t.Fatal(err)
		}
		if got := cargoRunsPrograms(root, crate); got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.file, tc.body, got, tc.want)
		}
	}
}

// A download may rewrite go.mod, go.sum or Cargo.lock (go mod download in a
// module that needs go mod tidy, on minify's bindings/js/go); the project's
// bytes are put back, and what the download left new stays.
func TestDownloadPutsManifestsBack(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "go.mod", "module example.com/app\n\nrequire example.com/dep v1.0.0\n")
	put(t, dir, "go.sum", "example.com/dep v1.0.0/go.mod h1:abc=\n")
	kept := keepManifests(dir)
	put(t, dir, "go.mod", "module example.com/app\n\nrequire example.com/dep v1.2.0\n")
	put(t, dir, "go.sum", "example.com/dep v1.2.0/go.mod h1:def=\n")
	put(t, dir, "Cargo.lock", "# new\n")
	kept.restore()
	for name, want := range map[string]string{
		"go.mod":     "module example.com/app\n\nrequire example.com/dep v1.0.0\n",
		"go.sum":     "example.com/dep v1.0.0/go.mod h1:abc=\n",
		"Cargo.lock": "# new\n",
	} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s after the download: %q, %v; want %q", name, got, err, want)
		}
	}
}
