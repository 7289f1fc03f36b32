package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// The generated projects have n packages of three modules each (score,
// calc, label). score chains to the previous package's score in runs of
// three, so a change reaches other packages' tests through imports; the
// package __init__ re-exports every function. Tests assert exact values at
// the boundaries, so every non-equivalent mutation can be caught, and each
// test file also checks its function over a table of 100 cases
// (parametrized, as real suites do), so a test file costs tens of
// milliseconds rather than nothing: with empty tests the runner's start-up
// is all there is to time, and no real project looks like that.

// scoreOf mirrors the generated score function.
func scoreOf(k, x int) int {
	total := k
	for i := 0; i < x; i++ {
		if i%3 == 0 {
			total += i
		}
	}
	if x > 10+k {
		total--
	}
	if chained(k) {
		total += scoreOf(k-1, x)
	}
	return total
}

func chained(k int) bool { return k%3 != 0 }

func calcOf(a, b int) int {
	switch {
	case a >= b:
		return a - b + 2
	case a == 0:
		return b * 3
	}
	return a + b
}

func labelOf(n int) string {
	switch {
	case n < 0:
		return "neg"
	case n <= 5:
		return "small"
	}
	return "big"
}

func scoreInputs(k int) []int { return []int{0, 1, 4, 10 + k, 11 + k, 12 + k, 20} }

var calcInputs = [][2]int{{5, 3}, {3, 3}, {0, 4}, {1, 4}, {2, 3}}
var labelInputs = []int{-1, 0, 1, 5, 6}

// tableCases is how many cases each table test checks.
const tableCases = 100

// scoreTable, calcTable and labelTable write the table cases as a list
// literal of pairs, in Python or JavaScript (the same syntax for both).
func scoreTable(k int) string {
	var parts []string
	for i := 0; i < tableCases; i++ {
		parts = append(parts, fmt.Sprintf("[%d, %d]", 3*i, scoreOf(k, 3*i)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func calcTable() string {
	var parts []string
	for a := -5; a < 5; a++ {
		for b := -5; b < 5; b++ {
			parts = append(parts, fmt.Sprintf("[%d, %d, %d]", a, b, calcOf(a, b)))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func labelTable() string {
	var parts []string
	for n := -30; n < 70; n++ {
		parts = append(parts, fmt.Sprintf("[%d, %q]", n, labelOf(n)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// pythonProject writes and commits an n-package Python project.
func (b *bench) pythonProject(n int) (*project, error) {
	dir := filepath.Join(b.work, "python")
	files := map[string]string{
		"pyproject.toml": "[project]\nname = \"gen\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\npythonpath = [\".\"]\n",
	}
	p := &project{name: "python", dir: dir, packages: n}
	for k := 0; k < n; k++ {
		pkg := fmt.Sprintf("pkg%02d", k)
		files[pkg+"/__init__.py"] = "from .core import score\nfrom .calc import calc\nfrom .text import label\n"
		core := ""
		if chained(k) {
			core += fmt.Sprintf("from pkg%02d import score as dep_score\n", k-1)
		}
		core += fmt.Sprintf("\nLIMIT = %d\nOFFSET = %d\n\n\ndef score(x):\n    total = OFFSET\n    for i in range(x):\n"+
			"        if i %% 3 == 0:\n            total += i\n    if x > LIMIT:\n        total -= 1\n", 10+k, k)
		if chained(k) {
			core += "    total += dep_score(x)\n"
		}
		core += "    return total\n"
		files[pkg+"/core.py"] = core
		files[pkg+"/calc.py"] = "def calc(a, b):\n    if a >= b:\n        return a - b + 2\n    if a == 0:\n        return b * 3\n    return a + b\n"
		files[pkg+"/text.py"] = "def label(n):\n    if n < 0:\n        return 'neg'\n    if n <= 5:\n        return 'small'\n    return 'big'\n"
		var sb strings.Builder
		fmt.Fprintf(&sb, "import pytest\n\nfrom %s import score\n\n\ndef test_score():\n", pkg)
		for _, x := range scoreInputs(k) {
			fmt.Fprintf(&sb, "    assert score(%d) == %d\n", x, scoreOf(k, x))
		}
		fmt.Fprintf(&sb, "\n\n@pytest.mark.parametrize('x,want', %s)\ndef test_score_table(x, want):\n    assert score(x) == want\n", scoreTable(k))
		files[fmt.Sprintf("tests/test_%s_core.py", pkg)] = sb.String()
		sb.Reset()
		fmt.Fprintf(&sb, "import pytest\n\nfrom %s import calc\n\n\ndef test_calc():\n", pkg)
		for _, in := range calcInputs {
			fmt.Fprintf(&sb, "    assert calc(%d, %d) == %d\n", in[0], in[1], calcOf(in[0], in[1]))
		}
		fmt.Fprintf(&sb, "\n\n@pytest.mark.parametrize('a,b,want', %s)\ndef test_calc_table(a, b, want):\n    assert calc(a, b) == want\n", calcTable())
		files[fmt.Sprintf("tests/test_%s_calc.py", pkg)] = sb.String()
		sb.Reset()
		fmt.Fprintf(&sb, "import pytest\n\nfrom %s import label\n\n\ndef test_label():\n", pkg)
		for _, x := range labelInputs {
			fmt.Fprintf(&sb, "    assert label(%d) == %q\n", x, labelOf(x))
		}
		fmt.Fprintf(&sb, "\n\n@pytest.mark.parametrize('n,want', %s)\ndef test_label_table(n, want):\n    assert label(n) == want\n", labelTable())
		files[fmt.Sprintf("tests/test_%s_text.py", pkg)] = sb.String()
		p.sources = append(p.sources, pkg+"/core.py", pkg+"/calc.py", pkg+"/text.py")
		p.testFiles += 3
	}
	if err := writeFiles(dir, files); err != nil {
		return nil, err
	}
	if err := b.gitInit(context.Background(), dir); err != nil {
		return nil, err
	}
	py := "/usr/bin/python3"
	p.check = detect.Check{Args: []string{py, "-m", "pytest", "-q", "-p", "no:cacheprovider"}, Dir: dir,
		Runner: detect.Pytest, Narrowable: true}
	p.anyFile = "pkg01/core.py"
	return p, nil
}

// nodeProject writes an n-package CommonJS project tested by jest and
// installs jest from npm.
func (b *bench) nodeProject(ctx context.Context, n int) (*project, error) {
	dir := filepath.Join(b.work, "node")
	files := map[string]string{
		"package.json": `{"name":"gen","private":true,"scripts":{"test":"jest"},"jest":{"testEnvironment":"node"}}` + "\n",
		".gitignore":   "node_modules/\n",
	}
	p := &project{name: "node", dir: dir, packages: n, js: true}
	for k := 0; k < n; k++ {
		pkg := fmt.Sprintf("pkg%02d", k)
		// Not `...require('./core')`: jest's dependency extractor does not
		// see a require right after a dot, so related mode would find nothing.
		files[pkg+"/index.js"] = "const core = require('./core');\nconst calc = require('./calc');\nconst text = require('./text');\n\n" +
			"module.exports = { score: core.score, calc: calc.calc, label: text.label };\n"
		core := ""
		if chained(k) {
			core += fmt.Sprintf("const dep = require('../pkg%02d');\n", k-1)
		}
		core += fmt.Sprintf("\nconst LIMIT = %d;\nconst OFFSET = %d;\n\nfunction score(x) {\n  let total = OFFSET;\n"+
			"  for (let i = 0; i < x; i++) {\n    if (i %% 3 === 0) {\n      total += i;\n    }\n  }\n"+
			"  if (x > LIMIT) {\n    total -= 1;\n  }\n", 10+k, k)
		if chained(k) {
			core += "  total += dep.score(x);\n"
		}
		core += "  return total;\n}\n\nmodule.exports = { score };\n"
		files[pkg+"/core.js"] = core
		files[pkg+"/calc.js"] = "function calc(a, b) {\n  if (a >= b) {\n    return a - b + 2;\n  }\n  if (a === 0) {\n    return b * 3;\n  }\n  return a + b;\n}\n\nmodule.exports = { calc };\n"
		files[pkg+"/text.js"] = "function label(n) {\n  if (n < 0) {\n    return 'neg';\n  }\n  if (n <= 5) {\n    return 'small';\n  }\n  return 'big';\n}\n\nmodule.exports = { label };\n"
		var sb strings.Builder
		fmt.Fprintf(&sb, "const { score } = require('../%s');\n\ntest('score', () => {\n", pkg)
		for _, x := range scoreInputs(k) {
			fmt.Fprintf(&sb, "  expect(score(%d)).toBe(%d);\n", x, scoreOf(k, x))
		}
		fmt.Fprintf(&sb, "});\n\ntest.each(%s)('score(%%i)', (x, want) => {\n  expect(score(x)).toBe(want);\n", scoreTable(k))
		files[fmt.Sprintf("tests/%s.core.test.js", pkg)] = sb.String() + "});\n"
		sb.Reset()
		fmt.Fprintf(&sb, "const { calc } = require('../%s');\n\ntest('calc', () => {\n", pkg)
		for _, in := range calcInputs {
			fmt.Fprintf(&sb, "  expect(calc(%d, %d)).toBe(%d);\n", in[0], in[1], calcOf(in[0], in[1]))
		}
		fmt.Fprintf(&sb, "});\n\ntest.each(%s)('calc(%%i, %%i)', (a, b, want) => {\n  expect(calc(a, b)).toBe(want);\n", calcTable())
		files[fmt.Sprintf("tests/%s.calc.test.js", pkg)] = sb.String() + "});\n"
		sb.Reset()
		fmt.Fprintf(&sb, "const { label } = require('../%s');\n\ntest('label', () => {\n", pkg)
		for _, x := range labelInputs {
			fmt.Fprintf(&sb, "  expect(label(%d)).toBe(%q);\n", x, labelOf(x))
		}
		fmt.Fprintf(&sb, "});\n\ntest.each(%s)('label(%%i)', (n, want) => {\n  expect(label(n)).toBe(want);\n", labelTable())
		files[fmt.Sprintf("tests/%s.text.test.js", pkg)] = sb.String() + "});\n"
		p.sources = append(p.sources, pkg+"/core.js", pkg+"/calc.js", pkg+"/text.js")
		p.testFiles += 3
	}
	if err := writeFiles(dir, files); err != nil {
		return nil, err
	}
	b.logf("node: installing jest from npm")
	if _, err := b.cmd(ctx, dir, "npm", "install", "--no-audit", "--no-fund", "--silent", "--save-dev", "jest@30"); err != nil {
		return nil, err
	}
	if err := b.gitInit(ctx, dir); err != nil {
		return nil, err
	}
	p.check = detect.Check{Args: []string{"npx", "jest", "--ci", "--no-watchman"}, Dir: dir, Runner: detect.Jest, Narrowable: true}
	p.anyFile = "pkg01/core.js"
	return p, nil
}
