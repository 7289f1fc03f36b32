package selecttest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPruneCacheKeepsNewest(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, fmt.Sprintf("go-%d.json", i))
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, now, now.Add(time.Duration(i)*time.Minute))
	}
	pruneCache(dir, 2)
	left, _ := filepath.Glob(filepath.Join(dir, "go-*.json"))
	if len(left) != 2 || filepath.Base(left[0]) != "go-3.json" || filepath.Base(left[1]) != "go-4.json" {
		t.Fatalf("left %v, want go-3 and go-4", left)
	}
}
