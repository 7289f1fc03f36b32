package protect

import (
	"strings"
	"testing"
)

const ghWorkflow = `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        go: ['1.22', '1.23']
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: ${{ matrix.go }}
      - name: Test
        run: |
          go vet ./...
          go test -race -count=1 ./...
  python:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install -e .[test]
      - name: pytest
        run: python -m pytest tests --cov=pkg --cov-fail-under=90
`

const gitlabCI = `stages: [test]
unit:
  stage: test
  image: node:20
  script:
    - npm ci
    - npx jest --ci
`

const makefile = `.PHONY: test lint

lint:
	golangci-lint run

test: lint
	@go test ./...
	cargo test --workspace
`

const toxINI = `[tox]
envlist = py311, py312

[testenv]
deps = pytest
commands =
    pytest {posargs:tests}
`

const noxfile = `import nox

@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install(".[test]")
    session.run("pytest", "tests", *session.posargs)
`

const jenkinsfile = `pipeline {
    agent any
    stages {
        stage('Test') {
            steps {
                sh 'mvn -B verify'
                sh """
                    go test ./...
                """
            }
        }
    }
}
`

const justfile = `test:
    cargo test --all-features

lint:
    cargo clippy
`

const circleCI = `version: 2.1
jobs:
  build:
    docker:
      - image: cimg/rust:1.80
    steps:
      - checkout
      - run:
          name: tests
          command: cargo test --locked
`

const azure = `trigger: [main]
pool:
  vmImage: ubuntu-latest
steps:
  - script: mvn -B test
    displayName: tests
`

func TestHarnessInCI(t *testing.T) {
	cases := []struct {
		name, file, base, cur string
		want                  string // a part of the message; "" for an honest edit
	}{
		{"gh: -run narrows", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "go test -race -count=1 ./...", "go test -race -count=1 -run TestParse ./..."), "gained -run TestParse"},
		{"gh: a package instead of ./...", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "-count=1 ./...", "-count=1 ./parser"), "no longer runs ./..."},
		{"gh: || true", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "-count=1 ./...", "-count=1 ./... || true"), "|| true"},
		{"gh: ; exit 0", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "-count=1 ./...\n", "-count=1 ./...\n          exit 0\n"), "exit 0"},
		{"gh: set +e", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "          go vet ./...\n", "          set +e\n          go vet ./...\n"), "set +e"},
		{"gh: continue-on-error on the step", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "      - name: Test\n", "      - name: Test\n        continue-on-error: true\n"), "continue-on-error"},
		{"gh: -k deselects", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "pytest tests --cov", "pytest tests -k 'not slow' --cov"), "gained -k not slow"},
		{"gh: --deselect", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "pytest tests --cov", "pytest tests --deselect tests/test_a.py::test_x --cov"), "--deselect"},
		{"gh: coverage floor lowered", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "--cov-fail-under=90", "--cov-fail-under=60"), "coverage threshold went from 90 to 60"},
		{"gh: coverage floor removed", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, " --cov-fail-under=90", ""), "coverage threshold went from 90 to none"},
		{"gh: test step removed", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "          go test -race -count=1 ./...\n", ""), "test command removed"},
		{"gh: workflow deleted", ".github/workflows/ci.yml", ghWorkflow, "", "deleted"},
		{"gh: honest: new Go version, -v, a step", ".github/workflows/ci.yml", ghWorkflow, sub(sub(ghWorkflow, "'1.23'", "'1.23', '1.24'"), "go test -race", "go test -v -race"), ""},
		{"gh: honest: step renamed and moved", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "      - name: Test\n", "      - name: Unit tests\n"), ""},
		{"gh: honest: coverage raised", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "--cov-fail-under=90", "--cov-fail-under=95"), ""},
		{"gh: a template expression in the command", ".github/workflows/ci.yml", sub(ghWorkflow, "go test -race -count=1 ./...", "go test -race ${{ matrix.flags }} ./..."), sub(ghWorkflow, "go test -race -count=1 ./...", "go test -race ${{ matrix.flags }} ./... || true"), "|| true"},
		{"gh: uv run with a group, make richtest", ".github/workflows/ci.yml", sub(ghWorkflow, "python -m pytest tests --cov=pkg --cov-fail-under=90", "uv run --locked --group dev tox run\n      - run: make richtest"), sub(ghWorkflow, "python -m pytest tests --cov=pkg --cov-fail-under=90", "uv run --locked --group dev tox run || true\n      - run: make richtest || true"), "|| true"},
		{"gh: no longer parses", ".github/workflows/ci.yml", ghWorkflow, sub(ghWorkflow, "    runs-on: ubuntu-latest\n    strategy:", "    runs-on: ubuntu-latest\n   strategy: ["), "no longer parses"},
		{"gitlab: allow_failure", ".gitlab-ci.yml", gitlabCI, sub(gitlabCI, "  stage: test\n", "  stage: test\n  allow_failure: true\n"), "allow_failure"},
		{"gitlab: a named test file", ".gitlab-ci.yml", gitlabCI, sub(gitlabCI, "npx jest --ci", "npx jest --ci src/a.test.js"), "runs only src/a.test.js"},
		{"gitlab: honest: another script line", ".gitlab-ci.yml", gitlabCI, sub(gitlabCI, "    - npm ci\n", "    - npm ci\n    - npm run lint\n"), ""},
		{"make: - prefix", "Makefile", makefile, sub(makefile, "\t@go test ./...", "\t-@go test ./..."), "- prefix"},
		{"make: filter", "Makefile", makefile, sub(makefile, "cargo test --workspace", "cargo test --workspace parser"), "runs only parser"},
		{"make: honest: lint target changed", "Makefile", makefile, sub(makefile, "golangci-lint run", "golangci-lint run --timeout 5m"), ""},
		{"make: honest: -v added", "Makefile", makefile, sub(makefile, "@go test ./...", "@go test -v ./..."), ""},
		{"tox: - prefix", "tox.ini", toxINI, sub(toxINI, "    pytest {posargs", "    - pytest {posargs"), "- prefix"},
		{"tox: -k", "tox.ini", toxINI, sub(toxINI, "pytest {posargs:tests}", "pytest -k smoke {posargs:tests}"), "gained -k smoke"},
		{"nox: a single file", "noxfile.py", noxfile, sub(noxfile, `"pytest", "tests"`, `"pytest", "tests/test_fast.py"`), "no longer runs tests"},
		{"nox: success_codes", "noxfile.py", noxfile, sub(noxfile, "*session.posargs)", "*session.posargs, success_codes=[0, 1])"), "success_codes"},
		{"nox: honest: another install", "noxfile.py", noxfile, sub(noxfile, `session.install(".[test]")`, `session.install(".[test]", "pytest-xdist")`), ""},
		{"jenkins: -Dtest", "Jenkinsfile", jenkinsfile, sub(jenkinsfile, "mvn -B verify", "mvn -B verify -Dtest=FastTest"), "-Dtest"},
		{"jenkins: || true", "Jenkinsfile", jenkinsfile, sub(jenkinsfile, "go test ./...", "go test ./... || true"), "|| true"},
		{"jenkins: honest: -B dropped", "Jenkinsfile", jenkinsfile, sub(jenkinsfile, "mvn -B verify", "mvn --batch-mode verify"), ""},
		{"just: - prefix", "justfile", justfile, sub(justfile, "    cargo test", "    -cargo test"), "- prefix"},
		{"circleci: --skip", ".circleci/config.yml", circleCI, sub(circleCI, "cargo test --locked", "cargo test --locked -- --skip slow"), "--skip"},
		{"azure: continueOnError", "azure-pipelines.yml", azure, sub(azure, "    displayName: tests\n", "    displayName: tests\n    continueOnError: true\n"), "continueOnError"},
		{"azure: the test goal dropped", "azure-pipelines.yml", azure, sub(azure, "mvn -B test", "mvn -B compile"), "test command removed"},
		{"package.json: || true", "package.json", `{"scripts":{"test":"vitest run"}}`, `{"scripts":{"test":"vitest run || true"}}`, "|| true"},
		{"package.json: -t", "package.json", `{"scripts":{"test":"jest --ci"}}`, `{"scripts":{"test":"jest --ci -t parser"}}`, "gained -t parser"},
		{"package.json: honest: --coverage", "package.json", `{"scripts":{"test":"jest --ci"}}`, `{"scripts":{"test":"jest --ci --coverage"}}`, ""},
		{"coveragerc: fail_under lowered", ".coveragerc", "[run]\nbranch = true\n\n[report]\nfail_under = 85\n", "[run]\nbranch = true\n\n[report]\nfail_under = 50\n", "fail_under lowered from 85 to 50"},
		{"pyproject: fail_under removed", "pyproject.toml", "[tool.coverage.report]\nfail_under = 90\nshow_missing = true\n", "[tool.coverage.report]\nshow_missing = true\n", "fail_under lowered from 90 to removed"},
		{"jest: coverageThreshold lowered", "jest.config.js", "module.exports = { coverageThreshold: { global: { lines: 90, branches: 80 } } };\n", "module.exports = { coverageThreshold: { global: { lines: 70, branches: 80 } } };\n", "coverageThreshold.global.lines lowered from 90 to 70"},
		{"vitest: thresholds removed", "vitest.config.ts", "export default { test: { coverage: { thresholds: { lines: 80 } } } }\n", "export default { test: { coverage: {} } }\n", "thresholds.lines lowered from 80 to removed"},
		{"mocharc: recursive off", ".mocharc.yml", "spec: test\nrecursive: true\n", "spec: test\n", "recursive turned off"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cur := mapSource{}
			if c.cur != "" {
				cur[c.file] = c.cur
			}
			if c.cur == c.base {
				t.Fatal("edit did not apply")
			}
			vs, err := Compare(mapSource{c.file: c.base}, cur, []string{c.file}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if len(vs) > 0 {
					t.Fatalf("honest edit reported: %v", vs)
				}
				return
			}
			for _, v := range vs {
				if v.Kind == HarnessWeakened && strings.Contains(v.Message, c.want) && v.Line > 0 {
					return
				}
			}
			t.Fatalf("want harness_weakened with %q, got %v", c.want, vs)
		})
	}
}
