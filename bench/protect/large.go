package main

import (
	"fmt"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/chanto-dev/chanto/internal/verify/protect"
)

// largeFile generates a test file of about 1,000 lines for a language, its
// path, and the file with one assertion loosened in the middle.
func largeFile(lang string) (string, string, string) {
	var b strings.Builder
	var p, from, to string
	n := 0
	switch lang {
	case "go":
		p = "calc/gen_test.go"
		b.WriteString("package calc\n\nimport \"testing\"\n\n")
		for ; strings.Count(b.String(), "\n") < 1000; n++ {
			fmt.Fprintf(&b, "func TestGen%d(t *testing.T) {\n\tin := []int{%d, %d, %d}\n\tgot := Sum(in)\n\tif got != %d {\n\t\tt.Errorf(\"Sum(%%v) = %%d, want %d\", in, got)\n\t}\n\tif len(in) != 3 {\n\t\tt.Fatal(\"len\")\n\t}\n}\n\n", n, n, n+1, n+2, 3*n+3, 3*n+3)
		}
		from, to = fmt.Sprintf("if got != %d {", 3*(n/2)+3), "if false {"
	case "python":
		p = "tests/test_gen.py"
		b.WriteString("import pytest\n\nfrom calc import total\n\n\n")
		for ; strings.Count(b.String(), "\n") < 1000; n++ {
			fmt.Fprintf(&b, "def test_gen_%d():\n    values = [%d, %d, %d]\n    result = total(values)\n    assert result == %d\n    assert len(values) == 3\n    assert isinstance(result, int)\n    assert result >= 0\n    # generated case\n\n\n", n, n, n+1, n+2, 3*n+3)
		}
		from, to = fmt.Sprintf("assert result == %d\n", 3*(n/2)+3), "assert result\n"
	case "javascript", "typescript":
		p = "test/gen.test.js"
		if lang == "typescript" {
			p = "test/gen.test.ts"
		}
		b.WriteString("const { total } = require(\"../src/calc\");\n\ndescribe(\"generated\", () => {\n")
		for ; strings.Count(b.String(), "\n") < 1000; n++ {
			fmt.Fprintf(&b, "  it(\"sums case %d\", () => {\n    const values = [%d, %d, %d];\n    const result = total(values);\n    expect(result).toBe(%d);\n    expect(values).toHaveLength(3);\n    expect(result).toBeGreaterThanOrEqual(0);\n    // generated case\n  });\n\n", n, n, n+1, n+2, 3*n+3)
		}
		b.WriteString("});\n")
		from, to = fmt.Sprintf("expect(result).toBe(%d);", 3*(n/2)+3), "expect(result).toBeDefined();"
	case "rust":
		p = "tests/gen.rs"
		b.WriteString("use calc::total;\n\n")
		for ; strings.Count(b.String(), "\n") < 1000; n++ {
			fmt.Fprintf(&b, "#[test]\nfn gen_%d() {\n    let values = vec![%d, %d, %d];\n    let result = total(&values);\n    assert_eq!(result, %d);\n    assert_eq!(values.len(), 3);\n    assert!(result >= 0);\n    // generated case\n}\n\n", n, n, n+1, n+2, 3*n+3)
		}
		from, to = fmt.Sprintf("assert_eq!(result, %d);", 3*(n/2)+3), "assert!(true);"
	case "java":
		p = "src/test/java/calc/GenTest.java"
		b.WriteString("package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\nimport org.junit.jupiter.api.Test;\n\nclass GenTest {\n")
		for ; strings.Count(b.String(), "\n") < 1000; n++ {
			fmt.Fprintf(&b, "    @Test\n    void gen%d() {\n        int[] values = {%d, %d, %d};\n        int result = Calc.total(values);\n        assertEquals(%d, result);\n        assertEquals(3, values.length);\n        assertTrue(result >= 0);\n        // generated case\n    }\n\n", n, n, n+1, n+2, 3*n+3)
		}
		b.WriteString("}\n")
		from, to = fmt.Sprintf("assertEquals(%d, result);", 3*(n/2)+3), "assertNotNull(result);"
	}
	base := b.String()
	return p, base, strings.Replace(base, from, to, 1)
}

// timeLarge returns the median wall time of comparing the changed large
// file, and the mean CPU time of the process per comparison (which a
// loaded machine inflates less than wall time). Cold runs drop the parse
// cache first, as a one-shot chanto verify does; warm runs keep it, as
// the agent gate does after every tool call of a turn.
func timeLarge(lang string, runs int, cold bool) (time.Duration, time.Duration) {
	p, base, cur := largeFile(lang)
	if p == "" {
		return 0, 0
	}
	bt, ct := tree{p: base}, tree{p: cur}
	var ds []time.Duration
	cpu0 := cpuTime()
	for i := 0; i < runs; i++ {
		if cold {
			protect.ResetCache()
		}
		start := time.Now()
		_, _ = protect.Compare(bt, ct, []string{p}, protect.Options{})
		ds = append(ds, time.Since(start))
	}
	cpu := (cpuTime() - cpu0) / time.Duration(runs)
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], cpu
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
