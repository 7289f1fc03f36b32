// Package snapshot_test measures the turn snapshot and change detection on
// a generated 10,000-file git repository (targets: Take ≤ 150 ms, Changes
// ≤ 30 ms). Run: go test -run '^$' -bench . ./bench/snapshot/
package snapshot_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

func repo(b *testing.B, files int) string {
	b.Helper()
	root := b.TempDir()
	for i := 0; i < files; i++ {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", i/50))
		if i%50 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		body := fmt.Sprintf("package pkg%03d\n\n// File %d.\nfunc F%d() int { return %d }\n%s", i/50, i, i, i, strings.Repeat("// padding line\n", 40))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "-c", "gc.auto=0", "-c", "maintenance.auto=false", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

func BenchmarkTake10k(b *testing.B) {
	root := repo(b, 10000)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		s, err := snapshot.Take(ctx, &run.Runner{}, root)
		if err != nil || s.Len() != 10000 {
			b.Fatal(err, s.Len())
		}
	}
}

func BenchmarkChanges10k(b *testing.B) {
	root := repo(b, 10000)
	ctx := context.Background()
	s, err := snapshot.Take(ctx, &run.Runner{}, root)
	if err != nil {
		b.Fatal(err)
	}
	edited := filepath.Join(root, "pkg007", "f350.go")
	if err := os.WriteFile(edited, []byte("package pkg007\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		c, err := s.Changes(ctx)
		if err != nil || len(c.Modified) != 1 {
			b.Fatal(err, c)
		}
	}
}
