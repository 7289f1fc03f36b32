package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoEnvFilesAgreesWithGoEnv checks the in-process reading of the go
// command's settings against go env itself, in the layouts that move the
// caches: the defaults, a user env file, environment variables, a GOPATH
// list, GOENV=off.
func TestGoEnvFilesAgreesWithGoEnv(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("go is not on PATH")
	}
	envFile := filepath.Join(t.TempDir(), "goenv")
	if err := os.WriteFile(envFile, []byte("GOCACHE=/tmp/chanto-goenv-test/cache\nGOMODCACHE=/tmp/chanto-goenv-test/mod\n# a comment\nbad line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: the go command may leave a telemetry child writing
	// under HOME after it exits, and a cleanup that fails fails the test.
	home, err := os.MkdirTemp("", "chanto-goenv-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	cases := []struct {
		name string
		env  map[string]string
	}{
		{"defaults", map[string]string{"HOME": home, "XDG_CONFIG_HOME": "", "XDG_CACHE_HOME": "", "GOENV": "", "GOPATH": "", "GOCACHE": "", "GOMODCACHE": ""}},
		{"user env file", map[string]string{"HOME": home, "GOENV": envFile, "GOPATH": "", "GOCACHE": "", "GOMODCACHE": ""}},
		{"environment beats the file", map[string]string{"HOME": home, "GOENV": envFile, "GOCACHE": "/tmp/chanto-goenv-test/envcache", "GOMODCACHE": "", "GOPATH": ""}},
		{"GOPATH list", map[string]string{"HOME": home, "GOENV": "off", "GOPATH": "/tmp/chanto-goenv-test/a:/tmp/chanto-goenv-test/b", "GOCACHE": "", "GOMODCACHE": ""}},
		{"XDG folders", map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_CACHE_HOME": filepath.Join(home, "cache"), "GOENV": "", "GOPATH": "", "GOCACHE": "", "GOMODCACHE": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			t.Setenv("GOFLAGS", "")
			cache, mod, gopath, ok := goEnvFiles(gobin, os.Getenv)
			if !ok {
				t.Fatal("declined a usual installation")
			}
			wc, wm, wp, ok := askGoEnv(gobin)
			if !ok {
				t.Fatal("go env failed")
			}
			got, want := strings.Join([]string{cache, mod, gopath}, " "), strings.Join([]string{wc, wm, wp}, " ")
			if got != want {
				t.Fatalf("read %s, go env says %s", got, want)
			}
		})
	}
}

func TestGoEnvFilesDeclines(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("go is not on PATH")
	}
	t.Setenv("GOROOT", t.TempDir())
	if _, _, _, ok := goEnvFiles(gobin, os.Getenv); ok {
		t.Error("a GOROOT other than go's own installation was not declined")
	}
	t.Setenv("GOROOT", "")
	t.Setenv("GOENV", "off")
	t.Setenv("GOCACHE", "relative/cache")
	if _, _, _, ok := goEnvFiles(gobin, os.Getenv); ok {
		t.Error("a relative GOCACHE was not declined")
	}
	fake := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", "")
	if _, _, _, ok := goEnvFiles(fake, os.Getenv); ok {
		t.Error("a go outside any GOROOT/bin was not declined")
	}
}
