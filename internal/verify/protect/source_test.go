package protect

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestSnapshotSymlinksAndCompare(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("real/tests/test_calc.py", pyBase)
	write("calc.py", "def add(a, b):\n    return a + b\n")
	if err := os.Symlink(filepath.Join(root, "real", "tests"), filepath.Join(root, "tests")); err != nil {
		t.Fatal(err)
	}
	// A loop: real/tests/again -> real
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "real", "tests", "again")); err != nil {
		t.Fatal(err)
	}
	snap, err := TakeSnapshot(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap["tests/test_calc.py"]; !ok {
		t.Fatalf("snapshot misses the symlinked test file: %v", keys(snap))
	}
	if _, ok := snap["calc.py"]; ok {
		t.Fatal("snapshot keeps production code")
	}
	write("real/tests/test_calc.py", sub(pyBase, "assert add(2, 3) == 5", "assert add(2, 3)"))
	vs, err := Compare(snap, DirSource(root), []string{"tests/test_calc.py"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Kind != AssertionLoosened {
		t.Fatalf("got %v", vs)
	}
	if _, err := DirSource(root).ReadFile("real/tests/again/tests/again/tests/test_calc.py"); err != nil {
		t.Fatalf("bounded link chain: %v", err)
	}
}

func keys(s Snapshot) []string {
	var out []string
	for k := range s {
		out = append(out, k)
	}
	return out
}

func TestHugeGeneratedFile(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < MaxDeepSize+1024; i++ {
		b.WriteString("def test_gen_")
		b.WriteString(strings.Repeat("x", 1))
		b.WriteString(itoaTest(i))
		b.WriteString("():\n    assert compute(")
		b.WriteString(itoaTest(i))
		b.WriteString(") == ")
		b.WriteString(itoaTest(i * 2))
		b.WriteString("\n\n")
	}
	base := b.String()
	cur := strings.Replace(base, "def test_gen_x7():", "def check_gen_x7():", 1)
	cur = strings.Replace(cur, "== 200\n", "== 201\n", 1)
	// Its time is measured by bench/protect, not asserted here (the
	// machine's load decides it).
	vs, err := Compare(mapSource{"tests/test_gen.py": base}, mapSource{"tests/test_gen.py": cur}, []string{"tests/test_gen.py"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var removed, note bool
	for _, v := range vs {
		removed = removed || (v.Kind == TestRemoved && v.Test == "test_gen_x7")
		note = note || strings.Contains(v.Message, "too large")
	}
	if !removed || !note {
		t.Fatalf("want removal and a too-large note, got %v", vs)
	}
}

func itoaTest(i int) string { return strconv.Itoa(i) }
