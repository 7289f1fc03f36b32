package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chanto-dev/chanto/internal/durable"
)

// TrustFile lists the trusted folders: a JSON array of absolute,
// symlink-resolved paths.
func TrustFile() string { return filepath.Join(Home(), "trusted.json") }

// canonical makes dir absolute and resolves its symlinks.
func canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return real, nil
}

func readTrusted() ([]string, error) {
	data, err := os.ReadFile(TrustFile())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var dirs []string
	if err := json.Unmarshal(data, &dirs); err != nil {
		return nil, fmt.Errorf("%s: not a JSON list of folders: %v", TrustFile(), err)
	}
	return dirs, nil
}

// IsTrusted reports whether dir, or a folder above it, is trusted.
func IsTrusted(dir string) (bool, error) {
	real, err := canonical(dir)
	if err != nil {
		return false, err
	}
	dirs, err := readTrusted()
	if err != nil {
		return false, err
	}
	for _, d := range dirs {
		if real == d || strings.HasPrefix(real, strings.TrimSuffix(d, "/")+"/") {
			return true, nil
		}
	}
	return false, nil
}

// Trust adds dir to the trust store and returns its canonical path.
func Trust(dir string) (string, error) {
	real, err := canonical(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("trust: %s is not a folder", real)
	}
	dirs, err := readTrusted()
	if err != nil {
		return "", err
	}
	if slices.Contains(dirs, real) {
		return real, nil
	}
	dirs = append(dirs, real)
	slices.Sort(dirs)
	data, _ := json.MarshalIndent(dirs, "", "  ")
	if err := os.MkdirAll(Home(), 0o700); err != nil {
		return "", err
	}
	// Temp file, fsync, rename: a crash never leaves an empty or half
	// trust store.
	if err := durable.WriteFile(TrustFile(), append(data, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return real, nil
}

// FindProjectRoot returns the project folder for dir: the nearest folder at
// or above it holding .chanto/ or .git, else dir itself. chanto's own home
// (~/.chanto) does not make ~ a project.
func FindProjectRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	home, _ := filepath.Abs(Home())
	for d := abs; ; d = filepath.Dir(d) {
		if c := filepath.Join(d, ".chanto"); c != home && isDir(c) {
			return d
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return abs
		}
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
