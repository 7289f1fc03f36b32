package selecttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

func TestScanGoTestFileRelativePaths(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"joined literals name one folder", `filepath.Join("..", "d", "testdata")`, []string{"d/testdata"}},
		{"a slash path", `os.ReadFile("../d/in.txt")`, []string{"d/in.txt"}},
		{"a bare parent stands for the whole parent", `os.ReadDir("..")`, []string{"."}},
		{"a concatenated bare parent builds a string", `rel := ".." + string(filepath.Separator)`, nil},
		{"a glob keeps its folder", `filepath.Glob("../d/*.txt")`, []string{"d"}},
		{"a join stops at a non-literal", `filepath.Join("..", "d", name, "x")`, []string{"d"}},
		{"leaving the module names nothing", `os.ReadFile("../../../x")`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x_test.go")
			src := "package p\n\nfunc TestX(t *testing.T) {\n\t" + c.body + "\n}\n"
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			got, _ := scanGoTestFile(file, "pkg")
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("%s: got %q, want %q", c.body, got, c.want)
			}
		})
	}
}
