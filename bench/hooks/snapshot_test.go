package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/snapshot"
)

// The in-process share of a hook's snapshot work on 10,000 files:
//
//	go test -run '^$' -bench . ./bench/hooks/
func BenchmarkTakeAndSave10k(b *testing.B) {
	root := gitRepo(filepath.Join(b.TempDir(), "big"), 10000)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		s, err := snapshot.TakeToSave(ctx, &run.Runner{}, root)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Save(filepath.Join(b.TempDir(), "turn")); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func BenchmarkLoadAndRescan10k(b *testing.B) {
	root := gitRepo(filepath.Join(b.TempDir(), "big"), 10000)
	ctx := context.Background()
	s, err := snapshot.Take(ctx, &run.Runner{}, root)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "turn")
	if err := s.Save(dir); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		l, err := snapshot.Load(ctx, &run.Runner{}, dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Rescan(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
