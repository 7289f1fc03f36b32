package protect

import (
	"strings"
	"testing"
)

// TestCollects checks each runner's collection rules, with the config
// shapes of real projects (written anew here): a file the runner collects,
// and one it does not.
func TestCollects(t *testing.T) {
	cases := []struct {
		name  string
		tree  mapSource
		yes   []string
		no    []string
		doubt string // a file listed as not understood
	}{
		{name: "go: _ and . prefixes, testdata, vendor",
			tree: mapSource{},
			yes:  []string{"calc/calc_test.go", "a/b/c_test.go"},
			no:   []string{"calc/_calc_test.go", "calc/.calc_test.go", "calc/testdata/x_test.go", "_old/calc_test.go", "vendor/x/y_test.go", "calc/calc.go"}},
		{name: "cargo: tests/*.rs and tests/*/main.rs",
			tree: mapSource{"Cargo.toml": "[package]\nname = \"x\"\n"},
			yes:  []string{"tests/it.rs", "tests/cli/main.rs", "src/lib.rs"},
			no:   []string{"tests/cli/parse.rs", "tests/a/b/c.rs"}},
		{name: "cargo: autotests = false keeps only [[test]]",
			tree: mapSource{"crates/c/Cargo.toml": "[package]\nname = \"c\"\nautotests = false\n\n[[test]]\nname = \"smoke\"\n\n[[test]]\nname = \"deep\"\npath = \"tests/deep/run.rs\"\n"},
			yes:  []string{"crates/c/tests/smoke.rs", "crates/c/tests/deep/run.rs"},
			no:   []string{"crates/c/tests/other.rs"}},
		{name: "mocha: ./test not recursive",
			tree: mapSource{"package.json": `{"scripts":{"test":"mocha"}}`},
			yes:  []string{"test/a.js", "test/b.mjs"},
			no:   []string{"test/sub/a.js", "lib/a.test.js", "test/a.ts"}},
		{name: "mocha: --recursive in the script",
			tree: mapSource{"package.json": `{"scripts":{"test":"nyc --reporter=lcov mocha --recursive --timeout 5000"}}`},
			yes:  []string{"test/sub/a.js"},
			no:   []string{"spec/a.js"}},
		{name: "mocha: spec in .mocharc.yml",
			tree: mapSource{"package.json": `{"scripts":{"test":"mocha"}}`, ".mocharc.yml": "spec: 'spec/**/*.spec.js'\nrecursive: true\n"},
			yes:  []string{"spec/x/a.spec.js"},
			no:   []string{"test/a.js", "spec/x/a.js"}},
		{name: "mocha: spec in package.json",
			tree: mapSource{"package.json": `{"scripts":{"test":"mocha"},"mocha":{"spec":["tests/unit/*.js"]}}`},
			yes:  []string{"tests/unit/a.js"},
			no:   []string{"test/a.js"}},
		{name: "vitest: include beside coverage.include",
			tree: mapSource{"package.json": `{"scripts":{"test":"vitest run"}}`,
				"vitest.config.mts": "import { defineConfig } from 'vitest/config'\nexport default defineConfig({\n  test: {\n    include: ['tests/**/*.test.{ts,tsx}'],\n    coverage: { include: ['src/lib/**'], thresholds: { lines: 80 } },\n  },\n})\n"},
			yes: []string{"tests/unit/a.test.ts"},
			no:  []string{"src/lib/a.ts", "src/lib/a.test.ts", "tests/unit/a.ts"}},
		{name: "vitest: test.dir",
			tree: mapSource{"package.json": `{"scripts":{"test":"vitest"}}`,
				"vitest.config.ts": "export default { test: { dir: './packages', include: ['**/*.check.ts'] } }\n"},
			yes: []string{"packages/a/x.check.ts"}},
		{name: "vitest: workspace projects with their own root",
			tree: mapSource{"package.json": `{"scripts":{"test":"vitest run"}}`,
				"vitest.workspace.ts": "import { defineWorkspace } from 'vitest/config'\nexport default defineWorkspace([\n  { test: { name: 'engine', root: './packages/engine', include: ['src/**/*.test.ts'] } },\n  { test: { name: 'e2e', include: ['./e2e/**/*.e2e.ts'] } },\n])\n"},
			yes: []string{"packages/engine/src/a/b.test.ts", "e2e/login.e2e.ts"},
			no:  []string{"packages/engine/test/b.ts"}},
		{name: "vitest: test.projects inside the config",
			tree: mapSource{"package.json": `{"devDependencies":{"vitest":"^3"}}`,
				"vitest.config.ts": "import { defineConfig } from 'vitest/config'\nexport default defineConfig({ test: { projects: [{ extends: true, test: { name: 'unit', include: ['test/unit/**/*.spec.ts'] } }] } })\n"},
			yes: []string{"test/unit/a.spec.ts"},
			no:  []string{"test/a.ts"}},
		{name: "vitest: mergeConfig with the vite config is not understood",
			tree: mapSource{"package.json": `{"scripts":{"test":"vitest"}}`,
				"vitest.config.ts": "import { defineConfig, mergeConfig } from 'vitest/config'\nimport viteConfig from './vite.config'\nexport default mergeConfig(viteConfig, defineConfig({ test: { include: ['__tests__/**/*.ts'] } }))\n"},
			yes:   []string{"__tests__/a.ts", "src/a.test.ts"},
			no:    []string{"src/a.ts"},
			doubt: "vitest.config.ts"},
		{name: "vitest: include from an imported helper is not understood",
			tree: mapSource{"package.json": `{"scripts":{"test":"vitest"}}`,
				"vitest.config.mjs": "import { testGlobs } from './scripts/globs.mjs'\nexport default { test: { include: testGlobs } }\n"},
			yes:   []string{"src/a.test.mjs", "src/b.spec.ts"},
			doubt: "vitest.config.mjs"},
		{name: "vitest: workspace of imported configs is not understood",
			tree: mapSource{"package.json": `{"scripts":{"test":"vitest"}}`,
				"vitest.workspace.ts": "import { defineWorkspace } from 'vitest/config'\nimport sqlite from './vitest.sqlite.config.ts'\nexport default defineWorkspace([sqlite])\n"},
			yes:   []string{"src/db.test.ts"},
			doubt: "vitest.workspace.ts"},
		{name: "vitest: computed root is not understood",
			tree: mapSource{"package.json": `{"scripts":{"test":"vitest"}}`,
				"vitest.config.cts": "const root = process.cwd()\nmodule.exports = { test: { root: root + '/x', include: ['a/*.ts'] } }\n"},
			yes:   []string{"a/b.ts", "src/b.test.ts"},
			doubt: "vitest.config.cts"},
		{name: "vitest: a config held in a constant is understood",
			tree: mapSource{"package.json": `{"scripts":{"test":"vitest run"}}`,
				"vite.config.ts": "import { defineConfig } from 'vite'\nconst config = defineConfig({ test: { include: ['spec/**/*.ts'], exclude: ['spec/fixtures/**'] } })\nexport default config\n"},
			yes: []string{"spec/a.ts"},
			no:  []string{"spec/fixtures/a.ts", "src/a.test.ts"}},
		{name: "jest: projects with testMatch, roots",
			tree: mapSource{"package.json": `{"scripts":{"test":"jest"}}`,
				"jest.config.ts": "import type { Config } from 'jest'\nconst config: Config = {\n  projects: [\n    { displayName: 'unit', testMatch: ['<rootDir>/src/**/*.unit.ts'] },\n    { displayName: 'int', testRegex: 'integration/.*\\\\.ts$' },\n  ],\n  testPathIgnorePatterns: ['/fixtures/'],\n}\nexport default config\n"},
			yes: []string{"src/a/b.unit.ts", "integration/x.ts"},
			no:  []string{"src/a/b.test.ts", "src/fixtures/b.unit.ts"}},
		{name: "jest: config in package.json, a script through npm run",
			tree: mapSource{"package.json": `{"scripts":{"test":"npm run test:unit","test:unit":"cross-env NODE_ENV=test jest --ci"},"jest":{"testMatch":["**/spec/**/*.js"]}}`},
			yes:  []string{"lib/spec/a.js"},
			no:   []string{"lib/a.test.js"}},
		{name: "jest: a config computed by a function is not understood",
			tree: mapSource{"package.json": `{"scripts":{"test":"jest"}}`,
				"jest.config.js": "const base = require('../../jest.base')\nmodule.exports = { ...base, testMatch: ['**/*.it.js'] }\n"},
			yes:   []string{"a.it.js", "src/__tests__/a.js", "src/a.test.js"},
			doubt: "jest.config.js"},
		{name: "karma files, mocha behind a node wrapper script",
			tree: mapSource{"package.json": `{"scripts":{"test":"npm run test:mocha && npm run test:karma","test:mocha":"node bin/hotfix.js mocha test/unit/**/*.js --timeout 30000","test:karma":"node bin/hotfix.js cross-env X=1 karma start karma.conf.cjs --single-run"}}`,
				"karma.conf.cjs": "module.exports = function (config) {\n  config.set({\n    frameworks: ['jasmine'],\n    files: [\n      {pattern: 'test/specs/__helpers.js', watched: false},\n      {pattern: 'test/specs/**/*.spec.js', watched: false}\n    ],\n  });\n};\n"},
			yes: []string{"test/unit/a/b.js", "test/specs/core/a.spec.js"},
			no:  []string{"test/specs/a.cases.js", "test/module/x.js"}},
		{name: "node --test defaults",
			tree: mapSource{"package.json": `{"scripts":{"test":"node --test"}}`},
			yes:  []string{"test/a.js", "lib/a.test.mjs", "lib/test-a.cjs"},
			no:   []string{"lib/a.js", "spec/a.js"}},
		{name: "nested package: its own runner",
			tree: mapSource{"package.json": `{"scripts":{"test":"turbo run test"}}`,
				"packages/a/package.json": `{"scripts":{"test":"mocha"}}`},
			yes: []string{"packages/a/test/x.js", "packages/b/test/sub/x.js"},
			no:  []string{"packages/a/test/sub/x.js"}},
		{name: "pytest: python_files, testpaths, norecursedirs in pyproject",
			tree: mapSource{"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\npython_files = [\"test_*.py\", \"check_*.py\"]\nnorecursedirs = [\"tests/data\", \"legacy*\"]\n"},
			yes:  []string{"tests/test_a.py", "tests/sub/check_b.py"},
			no:   []string{"src/test_a.py", "tests/legacy_x/test_a.py", "tests/a_test.py"}},
		{name: "pytest: setup.cfg and default norecursedirs",
			tree: mapSource{"setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -ra\n"},
			yes:  []string{"pkg/tests/test_a.py", "pkg/a_test.py"},
			no:   []string{"build/test_a.py", ".hidden/test_a.py", "pkg/testa.py"}},
		{name: "pytest: tox.ini section",
			tree: mapSource{"tox.ini": "[tox]\nenvlist = py3\n\n[pytest]\ntestpaths = t\n"},
			yes:  []string{"t/test_a.py"},
			no:   []string{"tests/test_a.py"}},
		{name: "pytest: a broken pyproject is not understood",
			tree:  mapSource{"pyproject.toml": "[tool.pytest.ini_options\ntestpaths = ['x']\n"},
			yes:   []string{"tests/test_a.py", "tests/testa.py"},
			doubt: "pyproject.toml"},
		{name: "unittest without a pytest config",
			tree: mapSource{},
			yes:  []string{"tests/testcalc.py", "tests/test_calc.py"},
			no:   []string{"tests/calc_check.py"}},
		{name: "maven surefire includes",
			tree: mapSource{"pom.xml": "<project><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><configuration><includes><include>**/*Spec.java</include></includes></configuration></plugin></plugins></build></project>"},
			yes:  []string{"src/test/java/a/CalcTest.java", "src/test/java/a/TestCalc.java", "src/test/java/a/CalcSpec.java", "src/test/java/a/CalcTestCase.java"},
			no:   []string{"src/test/java/a/CalcCheck.java", "src/main/java/a/CalcTest.java"}},
		{name: "gradle runs every class under src/test",
			tree: mapSource{"build.gradle.kts": "plugins { java }\n"},
			yes:  []string{"src/test/java/a/CalcCheck.java"},
			no:   []string{"src/main/java/a/Calc.java"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDetector(c.tree)
			for _, p := range c.yes {
				if ok, why := d.Collects(p); !ok {
					t.Errorf("%s not collected: %s", p, why)
				}
			}
			for _, p := range c.no {
				if ok, _ := d.Collects(p); ok {
					t.Errorf("%s collected", p)
				}
			}
			doubts := d.Doubts()
			switch {
			case c.doubt == "" && len(doubts) > 0:
				t.Errorf("doubted: %v", doubts)
			case c.doubt != "" && (len(doubts) != 1 || doubts[0].File != c.doubt || doubts[0].Reason == ""):
				t.Errorf("want %s doubted, got %v", c.doubt, doubts)
			}
		})
	}
}

// TestRenamedOutOfCollection: a move the runner no longer collects names
// every test; a move to another collected name is allowed.
func TestRenamedOutOfCollection(t *testing.T) {
	goTest := "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\nfunc TestSub(t *testing.T) {\n\tif Sub(3, 2) != 1 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n"
	rsTest := "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n"
	jsTest := "const assert = require('assert');\ndescribe('calc', () => {\n  it('adds', () => {\n    assert.strictEqual(add(1, 2), 3);\n  });\n});\n"
	pyTest := "def test_add():\n    assert add(1, 2) == 3\n"
	javaTest := "package a;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass CalcTest {\n    @Test\n    void adds() {\n        assertEquals(3, Calc.add(1, 2));\n    }\n}\n"
	cases := []struct {
		name, from, to, body string
		extra                mapSource
		want                 int // renamed_out_of_collection reports; 0: no report at all
	}{
		{"go: underscore prefix", "calc/calc_test.go", "calc/_calc_test.go", goTest, nil, 2},
		{"go: into testdata", "calc/calc_test.go", "calc/testdata/calc_test.go", goTest, nil, 2},
		{"go: another collected name", "calc/calc_test.go", "calc/arith_test.go", goTest, nil, 0},
		{"cargo: into a subfolder", "tests/calc.rs", "tests/calc/calc.rs", rsTest, mapSource{"Cargo.toml": "[package]\nname = \"calc\"\n"}, 1},
		{"cargo: to a main.rs", "tests/calc.rs", "tests/calc/main.rs", rsTest, mapSource{"Cargo.toml": "[package]\nname = \"calc\"\n"}, 0},
		{"mocha: into test/sub", "test/calc.js", "test/sub/calc.js", jsTest, mapSource{"package.json": `{"scripts":{"test":"mocha"}}`}, 1},
		{"mocha: recursive keeps test/sub", "test/calc.js", "test/sub/calc.js", jsTest, mapSource{"package.json": `{"scripts":{"test":"mocha --recursive"}}`}, 0},
		{"pytest: out of testpaths", "tests/test_calc.py", "scripts/test_calc.py", pyTest, mapSource{"pytest.ini": "[pytest]\ntestpaths = tests\n"}, 1},
		{"pytest: out of .pytest.ini's testpaths", "tests/test_calc.py", "scripts/test_calc.py", pyTest, mapSource{".pytest.ini": "[pytest]\ntestpaths = tests\n", "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = [\"scripts\"]\n"}, 1},
		{"pytest: into a norecursedir", "tests/test_calc.py", "tests/build/test_calc.py", pyTest, nil, 1},
		{"unittest: testcalc.py still discovered", "tests/test_calc.py", "tests/testcalc.py", pyTest, nil, 0},
		{"surefire: to a name it does not include", "src/test/java/a/CalcTest.java", "src/test/java/a/CalcChecks.java", javaTest, mapSource{"pom.xml": "<project/>"}, 1},
		{"surefire: to Tests", "src/test/java/a/CalcTest.java", "src/test/java/a/CalcTests.java", javaTest, mapSource{"pom.xml": "<project/>"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, cur := mapSource{c.from: c.body}, mapSource{c.to: c.body}
			for k, v := range c.extra {
				base[k], cur[k] = v, v
			}
			vs, err := Compare(base, cur, []string{c.from, c.to}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == 0 {
				if len(vs) > 0 {
					t.Fatalf("honest move reported: %v", vs)
				}
				return
			}
			if len(vs) != c.want {
				t.Fatalf("want %d reports, got %v", c.want, vs)
			}
			for _, v := range vs {
				if v.Kind != RenamedOutOfCollection || v.Test == "" || v.After != c.to || !strings.Contains(v.Message, "not collected") {
					t.Errorf("bad report: %s", v)
				}
			}
		})
	}
}
