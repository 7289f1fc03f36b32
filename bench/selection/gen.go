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
// the boundaries, so every non-equivalent mutation can be caught.

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
		fmt.Fprintf(&sb, "from %s import score\n\n\ndef test_score():\n", pkg)
		for _, x := range scoreInputs(k) {
			fmt.Fprintf(&sb, "    assert score(%d) == %d\n", x, scoreOf(k, x))
		}
		files[fmt.Sprintf("tests/test_%s_core.py", pkg)] = sb.String()
		sb.Reset()
		fmt.Fprintf(&sb, "from %s import calc\n\n\ndef test_calc():\n", pkg)
		for _, in := range calcInputs {
			fmt.Fprintf(&sb, "    assert calc(%d, %d) == %d\n", in[0], in[1], calcOf(in[0], in[1]))
		}
		files[fmt.Sprintf("tests/test_%s_calc.py", pkg)] = sb.String()
		sb.Reset()
		fmt.Fprintf(&sb, "from %s import label\n\n\ndef test_label():\n", pkg)
		for _, x := range labelInputs {
			fmt.Fprintf(&sb, "    assert label(%d) == %q\n", x, labelOf(x))
		}
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
		files[fmt.Sprintf("tests/%s.core.test.js", pkg)] = sb.String() + "});\n"
		sb.Reset()
		fmt.Fprintf(&sb, "const { calc } = require('../%s');\n\ntest('calc', () => {\n", pkg)
		for _, in := range calcInputs {
			fmt.Fprintf(&sb, "  expect(calc(%d, %d)).toBe(%d);\n", in[0], in[1], calcOf(in[0], in[1]))
		}
		files[fmt.Sprintf("tests/%s.calc.test.js", pkg)] = sb.String() + "});\n"
		sb.Reset()
		fmt.Fprintf(&sb, "const { label } = require('../%s');\n\ntest('label', () => {\n", pkg)
		for _, x := range labelInputs {
			fmt.Fprintf(&sb, "  expect(label(%d)).toBe(%q);\n", x, labelOf(x))
		}
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
