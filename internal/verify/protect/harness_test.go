package protect

import (
	"strings"
	"testing"
)

const conftestBase = `import pytest


@pytest.fixture
def client():
    return make_client()
`

const pkgBase = `{
  "name": "calc",
  "scripts": {
    "build": "tsc",
    "test": "jest"
  },
  "jest": {
    "testEnvironment": "node"
  }
}
`

const jestConfigBase = `module.exports = {
  testMatch: ["**/__tests__/**/*.js", "**/*.test.js"],
  testPathIgnorePatterns: ["/node_modules/"],
};
`

const makeBase = `.PHONY: test build

build:
	go build ./...

test:
	go test ./...
`

const cargoBase = `[package]
name = "calc"
version = "0.1.0"
edition = "2021"

[[test]]
name = "integration"
path = "tests/integration.rs"
`

func TestHarnessEdits(t *testing.T) {
	cases := []edit{
		{"conftest new fixture", "conftest.py", conftestBase, conftestBase + "\n\n@pytest.fixture\ndef db():\n    return {}\n", ""},
		{"conftest collection hook", "tests/conftest.py", conftestBase, conftestBase + "\n\ndef pytest_collection_modifyitems(config, items):\n    items[:] = items[:1]\n", HarnessWeakened},
		{"conftest makereport", "conftest.py", conftestBase, conftestBase + "\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = \"passed\"\n", HarnessWeakened},
		{"conftest fixture skips", "conftest.py", conftestBase, sub(conftestBase, "    return make_client()", "    pytest.skip(\"no client\")"), HarnessWeakened},
		{"conftest fixture params narrowed", "conftest.py", "import pytest\n\n\n@pytest.fixture(params=[\"sqlite\", \"postgres\"])\ndef db(request):\n    return request.param\n", "import pytest\n\n\n@pytest.fixture(params=[\"sqlite\"])\ndef db(request):\n    return request.param\n", TableRowsChanged},
		{"conftest module exit", "conftest.py", conftestBase, conftestBase + "\nimport sys\nsys.exit(0)\n", EarlyExit},
		{"go init narrows run", "calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n", "package calc\n\nimport (\n\t\"flag\"\n\t\"testing\"\n)\n\nfunc init() { flag.Set(\"test.run\", \"TestA\") }\n\nfunc TestA(t *testing.T) {}\n", SkipAdded},
		{"go TestMain without m.Run", "calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n", "package calc\n\nimport \"testing\"\n\nfunc TestMain(m *testing.M) {}\n\nfunc TestA(t *testing.T) {}\n", SkipAdded},
		{"go TestMain honest", "calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n", "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n\nfunc TestA(t *testing.T) {}\n", ""},
		{"conftest collect_ignore", "conftest.py", conftestBase, conftestBase + "\ncollect_ignore = [\"tests/test_calc.py\"]\n", HarnessWeakened},
		{"pytest.ini honest", "pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q -ra\n", ""},
		{"pytest.ini deselect", "pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q --deselect tests/test_calc.py::test_add\n", HarnessWeakened},
		{".pytest.ini deselect", ".pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q --deselect tests/test_calc.py::test_add\n", HarnessWeakened},
		{"a second --deselect", "pytest.ini", "[pytest]\naddopts = --deselect tests/test_calc.py::test_add\n", "[pytest]\naddopts = --deselect tests/test_calc.py::test_add --deselect tests/test_calc.py::test_sub\n", HarnessWeakened},
		{"a plugin turned on", "pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q -p xdist\n", ""},
		{"a plugin turned off", "pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q -p no:randomly\n", HarnessWeakened},
		{"options reordered", "pytest.ini", "[pytest]\naddopts = --deselect a.py::t -q\n", "[pytest]\naddopts = -q --deselect a.py::t\n", ""},
		{"pytest.toml -k", "pytest.toml", "[pytest]\naddopts = [\"-q\"]\n", "[pytest]\naddopts = [\"-q\", \"-k\", \"not slow\"]\n", HarnessWeakened},
		{"pyproject -k", "pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"-q\"\n", "[tool.pytest.ini_options]\naddopts = \"-q -k 'not slow'\"\n", HarnessWeakened},
		{"setup.cfg ignore", "setup.cfg", "[tool:pytest]\ntestpaths = tests\n", "[tool:pytest]\ntestpaths = tests\naddopts = --ignore=tests/test_calc.py\n", HarnessWeakened},
		{"tox.ini testpaths narrowed", "tox.ini", "[pytest]\ntestpaths =\n    tests\n    integration\n", "[pytest]\ntestpaths =\n    tests\n", HarnessWeakened},
		{"pyproject unrelated", "pyproject.toml", "[project]\nname = \"calc\"\n", "[project]\nname = \"calc\"\nversion = \"1.0\"\n", ""},
		{"package.json honest", "package.json", pkgBase, sub(pkgBase, `"build": "tsc"`, `"build": "tsc -p ."`), ""},
		{"package.json coverage", "package.json", pkgBase, sub(pkgBase, `"test": "jest"`, `"test": "jest --coverage"`), ""},
		{"package.json passWithNoTests", "package.json", pkgBase, sub(pkgBase, `"test": "jest"`, `"test": "jest --passWithNoTests"`), HarnessWeakened},
		{"package.json echo", "package.json", pkgBase, sub(pkgBase, `"test": "jest"`, `"test": "echo ok"`), HarnessWeakened},
		{"package.json jest ignore", "package.json", pkgBase, sub(pkgBase, `"testEnvironment": "node"`, `"testEnvironment": "node", "testPathIgnorePatterns": ["calc"]`), HarnessWeakened},
		{"jest.config ignore", "jest.config.js", jestConfigBase, sub(jestConfigBase, `["/node_modules/"]`, `["/node_modules/", "calc"]`), HarnessWeakened},
		{"jest.config testMatch", "jest.config.js", jestConfigBase, sub(jestConfigBase, `, "**/*.test.js"`, ``), HarnessWeakened},
		{"jest.config passWithNoTests", "jest.config.js", jestConfigBase, sub(jestConfigBase, "};", "  passWithNoTests: true,\n};"), HarnessWeakened},
		{"jest.config honest", "jest.config.js", jestConfigBase, sub(jestConfigBase, "};", "  verbose: true,\n};"), ""},
		{"vitest exclude", "vitest.config.ts", "import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: { include: ['src/**/*.test.ts'] } })\n", "import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: { include: ['src/**/*.test.ts'], exclude: ['src/calc.test.ts'] } })\n", HarnessWeakened},
		{"Makefile honest", "Makefile", makeBase, sub(makeBase, "go build ./...", "go build -v ./..."), ""},
		{"Makefile test changed", "Makefile", makeBase, sub(makeBase, "\tgo test ./...", "\tgo test ./... || true"), HarnessWeakened},
		{"Cargo honest", "Cargo.toml", cargoBase, sub(cargoBase, `version = "0.1.0"`, `version = "0.2.0"`), ""},
		{"Cargo harness false", "Cargo.toml", cargoBase, sub(cargoBase, `path = "tests/integration.rs"`, "path = \"tests/integration.rs\"\nharness = false"), HarnessWeakened},
		{"Cargo test removed", "Cargo.toml", cargoBase, sub(cargoBase, "[[test]]\nname = \"integration\"\npath = \"tests/integration.rs\"\n", ""), HarnessWeakened},
		{"Cargo autotests", "Cargo.toml", cargoBase, sub(cargoBase, `edition = "2021"`, "edition = \"2021\"\nautotests = false"), HarnessWeakened},
		{"pom skipTests", "pom.xml", "<project>\n</project>\n", "<project>\n<properties><skipTests>true</skipTests></properties>\n</project>\n", HarnessWeakened},
		{"env check python", "calc/core.py", "def add(a, b):\n    return a + b\n", "import os\n\ndef add(a, b):\n    if 'PYTEST_CURRENT_TEST' in os.environ:\n        return 5\n    return a + b\n", TestEnvCheck},
		{"env check js", "src/calc.js", "exports.add = (a, b) => a + b;\n", "exports.add = (a, b) => process.env.JEST_WORKER_ID ? 5 : a + b;\n", TestEnvCheck},
		{"env check go", "calc/calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n", "package calc\n\nimport \"testing\"\n\nfunc Add(a, b int) int {\n\tif testing.Testing() {\n\t\treturn 5\n\t}\n\treturn a + b\n}\n", TestEnvCheck},
		{"env check rust", "src/main.rs", "fn main() {}\n", "fn main() {\n    if cfg!(test) { return; }\n}\n", TestEnvCheck},
		{"jest snapshot rewritten", "src/__snapshots__/view.test.js.snap", "// Jest Snapshot v1\n\nexports[`view renders 1`] = `\"<b>3</b>\"`;\n", "// Jest Snapshot v1\n\nexports[`view renders 1`] = `\"<b>4</b>\"`;\n", ExpectedChanged},
		{"jest snapshot entry added", "src/__snapshots__/view.test.js.snap", "// Jest Snapshot v1\n\nexports[`view renders 1`] = `\"<b>3</b>\"`;\n", "// Jest Snapshot v1\n\nexports[`view renders 1`] = `\"<b>3</b>\"`;\n\nexports[`view renders 2`] = `\"<i>x</i>\"`;\n", ""},
		{"golden rewritten", "testdata/report.golden", "total: 3\n", "total: 4\n", ExpectedChanged},
		{"new golden", "testdata/new.golden", "-", "total: 5\n", ""},
		{"prod refactor", "calc/core.py", "def add(a, b):\n    return a + b\n", "def add(x, y):\n    \"\"\"Sum.\"\"\"\n    return x + y\n", ""},
	}
	runEdits(t, cases)
}

// Real configurations write plain groups and ./ prefixes
// (@reduxjs/toolkit's jest testMatch and vitest include).
func TestDetectorMicromatchForms(t *testing.T) {
	for _, tc := range []struct{ file, config string }{
		{"jest.config.js", "module.exports = { testMatch: ['<rootDir>/src/**/*.(spec|test).[jt]s?(x)'] };\n"},
		{"vitest.config.ts", "export default defineConfig({ test: { include: ['./src/**/*.(spec|test).[jt]s?(x)'] } });\n"},
		{"jest.config.js", "module.exports = { testMatch: ['<rootDir>/src/**/!(fixtures)/*.(spec|test).[jt]s?(x)'] };\n"},
	} {
		d := NewDetector(mapSource{tc.file: tc.config})
		for p, want := range map[string]bool{
			"src/tests/isPlainObject.test.ts": true,
			"src/query/a.spec.tsx":            true,
			"src/query/a.ts":                  false,
			"test/a.test.ts":                  false,
		} {
			if got := d.IsTestFile(p); got != want {
				t.Errorf("%s: IsTestFile(%s) = %v, want %v", tc.file, p, got, want)
			}
		}
	}
}

func TestDetector(t *testing.T) {
	src := mapSource{
		"pytest.ini":     "[pytest]\npython_files = check_*.py\ntestpaths = qa\n",
		"jest.config.js": "module.exports = { testMatch: ['**/?(*.)+(spec|e2e).[jt]s?(x)'] };\n",
	}
	d := NewDetector(src)
	for p, want := range map[string]bool{
		"qa/check_calc.py":           true,
		"qa/test_calc.py":            false,
		"other/check_calc.py":        false,
		"conftest.py":                false,
		"src/a.e2e.ts":               true,
		"src/a.test.ts":              false,
		"node_modules/x/a.e2e.js":    false,
		"calc/calc_test.go":          true,
		"calc/calc.go":               false,
		"tests/it.rs":                true,
		"src/test/java/a/B.java":     true,
		"src/main/java/a/B.java":     false,
		"src/main/java/a/BTest.java": true,
	} {
		if got := d.IsTestFile(p); got != want {
			t.Errorf("IsTestFile(%s) = %v, want %v", p, got, want)
		}
	}
	if !IsTestFile("tests/test_x.py") || !IsTestFile("src/__tests__/a.js") || !IsTestFile("a.spec.tsx") || IsTestFile("src/a.js") ||
		!IsTestFile("test/calc.js") || !IsTestFile("lib/parse-test.mjs") {
		t.Error("default detector")
	}
	if !d.ShouldSnapshot("src/lib.rs") || !d.ShouldSnapshot("conftest.py") || d.ShouldSnapshot("README.md") {
		t.Error("ShouldSnapshot")
	}
}

func TestAllowEdits(t *testing.T) {
	base := mapSource{"tests/test_calc.py": pyBase}
	cur := mapSource{}
	vs, err := Compare(base, cur, []string{"tests/test_calc.py"}, Options{AllowEdits: []string{"tests/*.py"}})
	if err != nil || len(vs) != 0 {
		t.Fatalf("allowed edit reported: %v %v", vs, err)
	}
	vs, _ = Compare(base, cur, []string{"tests/test_calc.py"}, Options{AllowEdits: []string{"other"}})
	if len(vs) != 1 {
		t.Fatalf("want one violation, got %v", vs)
	}
}

func TestHelperWeakening(t *testing.T) {
	goSrc := "package calc\n\nimport \"testing\"\n\nfunc check(t *testing.T, got, want int) {\n\tt.Helper()\n\tif got != want {\n\t\tt.Fatalf(\"got %d, want %d\", got, want)\n\t}\n}\n\nfunc TestAdd(t *testing.T) { check(t, Add(1, 2), 3) }\n"
	pySrc := "def assert_sorted(xs):\n    assert xs == sorted(xs)\n\n\ndef test_sort():\n    assert_sorted(sort([3, 1]))\n"
	runEdits(t, []edit{
		{"go helper stops failing", "calc_test.go", goSrc, sub(goSrc, "t.Fatalf(\"got %d, want %d\", got, want)", "t.Logf(\"got %d, want %d\", got, want)"), AssertionRemoved},
		{"go helper skips", "calc_test.go", goSrc, sub(goSrc, "\tt.Helper()\n", "\tt.Helper()\n\tt.SkipNow()\n"), SkipAdded},
		{"go helper refactor", "calc_test.go", goSrc, sub(goSrc, "t.Fatalf(\"got %d, want %d\", got, want)", "t.Fatalf(\"mismatch: got %d, want %d\", got, want)"), ""},
		{"python helper loosened", "test_sort.py", pySrc, sub(pySrc, "assert xs == sorted(xs)", "assert xs"), AssertionLoosened},
		{"python helper refactor", "test_sort.py", pySrc, sub(pySrc, "def assert_sorted(xs):\n", "def assert_sorted(xs):\n    \"\"\"Fails unless xs is sorted.\"\"\"\n"), ""},
	})
}

func TestHelperWithoutAssertionsGainsSkip(t *testing.T) {
	src := "package calc\n\nimport \"testing\"\n\nfunc setup(t *testing.T) *DB {\n\treturn open()\n}\n\nfunc TestAdd(t *testing.T) { _ = setup(t) }\n"
	runEdits(t, []edit{
		{"skip in setup", "calc_test.go", src, sub(src, "\treturn open()\n", "\tt.Skip(\"no db\")\n\treturn open()\n"), SkipAdded},
		{"setup refactor", "calc_test.go", src, sub(src, "\treturn open()\n", "\tdb := open()\n\treturn db\n"), ""},
	})
}

func TestProbeOf(t *testing.T) {
	tests := []struct {
		lang, line, want string
	}{
		{"go", `if os.Getenv("PYTEST_CURRENT_TEST") != "" {`, "PYTEST_CURRENT_TEST"},
		{"go", `return "import org.junit.jupiter.api.Test; JEST_WORKER_ID PYTEST_CURRENT_TEST"`, ""},
		{"go", `b.WriteString("import static org.junit.jupiter.api.Assertions.*;\n")`, ""},
		{"go", `if testing.Testing() {`, "testing.Testing()"},
		{"python", `if "PYTEST_CURRENT_TEST" in os.environ:`, "PYTEST_CURRENT_TEST"},
		{"python", `print("set PYTEST_CURRENT_TEST to debug")`, ""},
		{"python", `if os.environ.get("MY_PYTEST_CURRENT_TEST_X"):`, ""},
		{"typescript", `const fake = process.env.JEST_WORKER_ID ? 5 : real;`, "JEST_WORKER_ID"},
		{"js", `if (process.env.NODE_ENV === "test") return;`, `NODE_ENV === "test"`},
		{"javascript", `if (process.env.NODE_ENV === "production") {`, ""},
		{"java", `if (System.getProperty("surefire.test.class.path") != null)`, `getProperty("surefire`},
		{"java", `Class.forName("org.junit.Test");`, `Class.forName("org.junit`},
		{"rust", `if cfg!(test) { return; }`, "cfg!(test)"},
		{"rust", `let t = std::env::var("RUST_TEST_THREADS");`, "RUST_TEST_THREADS"},
	}
	for _, tt := range tests {
		if got := probeOf(tt.lang, normProbe(tt.line)); got != tt.want {
			t.Errorf("probeOf(%s, %q) = %q, want %q", tt.lang, tt.line, got, tt.want)
		}
	}
}

// Each option gained is named with its value: two --deselects are two
// findings, each naming its test.
func TestPytestAddoptsNamesWhatWasGained(t *testing.T) {
	vs := checkPytestConfig("pytest.ini", []byte("[pytest]\naddopts = -q\n"),
		[]byte("[pytest]\naddopts = -q --deselect tests/t.py::test_a --deselect tests/t.py::test_b\n"))
	var got []string
	for _, v := range vs {
		got = append(got, v.Message)
	}
	if len(got) != 2 || !strings.Contains(got[0], "gained --deselect tests/t.py::test_a") || !strings.Contains(got[1], "gained --deselect tests/t.py::test_b") {
		t.Errorf("messages %q", got)
	}
}
