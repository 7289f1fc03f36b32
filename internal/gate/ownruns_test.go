package gate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

func TestParseOwnRun(t *testing.T) {
	checks := []string{"cargo clippy -- -D warnings"}
	tests := []struct {
		cmd     string
		isCheck bool
		runner  detect.Runner
		plain   bool
		all     bool
		targets []string
	}{
		{"go test ./...", true, detect.Go, true, true, nil},
		{"go test -count=1 -v ./...", true, detect.Go, true, true, nil},
		{"go test ./internal/parse ./cmd/x/", true, detect.Go, true, false, []string{"internal/parse", "cmd/x"}},
		{"go test ./internal/...", true, detect.Go, true, false, []string{"internal/..."}},
		{"go test", true, detect.Go, true, false, []string{"."}},
		{"go test -run TestFoo ./...", true, detect.Go, false, false, nil},
		{"go test -run=TestFoo ./...", true, detect.Go, false, false, nil},
		{"go test -short ./...", true, detect.Go, false, false, nil},
		{"go test ./... | tail -20", true, detect.Go, false, false, nil},
		{"go test ./... 2>&1 | grep FAIL", true, detect.Go, false, false, nil},
		{"go test ./... 2>&1", true, detect.Go, true, true, nil},
		{"cd sub && go test ./...", true, detect.Go, false, false, nil},
		{"go test ./... || true", true, detect.Go, false, false, nil},
		{"go test ./... ; echo done", true, detect.Go, false, false, nil},
		{"CGO_ENABLED=0 go test ./...", true, detect.Go, false, false, nil},
		{"go test $(go list ./...)", true, detect.Go, false, false, nil},
		{"go vet ./...", true, detect.GoVet, true, true, nil},
		{"python3 -m pytest", true, detect.Pytest, true, true, nil},
		{"/usr/bin/python3 -m pytest -q tests/", true, detect.Pytest, true, false, []string{"tests"}},
		{"pytest tests/test_a.py", true, detect.Pytest, true, false, []string{"tests/test_a.py"}},
		{"pytest -k roundtrip", true, detect.Pytest, false, false, nil},
		{"pytest tests/test_a.py::test_x", true, detect.Pytest, false, false, nil},
		{"pytest --collect-only", true, detect.Pytest, false, false, nil},
		{"pytest --co -q", true, detect.Pytest, false, false, nil},
		{"pytest -x -q", true, detect.Pytest, true, true, nil},
		{"pytest --some-plugin-flag", true, detect.Pytest, false, false, nil},
		{"python -m unittest", true, detect.Unittest, true, true, nil},
		{"python -m unittest tests.test_a", true, detect.Unittest, true, false, []string{"tests.test_a"}},
		{"cargo test", true, detect.Cargo, true, true, nil},
		{"cargo test -p core -p cli", true, detect.Cargo, true, false, []string{"core", "cli"}},
		{"cargo test parse_", true, detect.Cargo, false, false, nil},
		{"cargo test -- --skip slow", true, detect.Cargo, false, false, nil},
		{"cargo test --test integration", true, detect.Cargo, false, false, nil},
		{"npm test", true, detect.NPM, true, true, nil},
		{"npm run test", true, detect.NPM, true, true, nil},
		{"npm test -- -t parser", true, detect.NPM, false, false, nil},
		{"npx jest", true, detect.Jest, true, true, nil},
		{"npx jest -t parser", true, detect.Jest, false, false, nil},
		{"npx jest src/a.test.js", true, detect.Jest, false, false, nil},
		{"npx vitest run", true, detect.Vitest, true, true, nil},
		{"make test", true, detect.Make, true, true, nil},
		{"cargo clippy -- -D warnings", true, detect.Custom, true, true, nil},
		{"ls -la", false, "", false, false, nil},
		{"echo go test ./...", false, "", false, false, nil},
		{"go build ./...", false, "", false, false, nil},
	}
	for _, tt := range tests {
		r, ok := parseOwnRun(tt.cmd, "/p", checks)
		if ok != tt.isCheck {
			t.Errorf("%q: check run = %v, want %v", tt.cmd, ok, tt.isCheck)
			continue
		}
		if !ok {
			continue
		}
		if r.Runner != tt.runner || r.Plain != tt.plain || r.All != tt.all || !slices.Equal(r.Targets, tt.targets) {
			t.Errorf("%q: got runner=%s plain=%v (%s) all=%v targets=%v; want %s %v %v %v",
				tt.cmd, r.Runner, r.Plain, r.WhyNot, r.All, r.Targets, tt.runner, tt.plain, tt.all, tt.targets)
		}
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		cmd     string
		dir     string
		runner  detect.Runner
		full    bool
		targets []string
		want    bool
	}{
		{"go test ./...", "/p", detect.Go, true, nil, true},
		{"go test ./...", "/p", detect.Go, false, []string{"./a", "./b"}, true},
		{"go test ./...", "/q", detect.Go, false, []string{"./a"}, false},
		{"go test ./a ./b ./c", "/p", detect.Go, false, []string{"./a", "./b"}, true},
		{"go test ./a", "/p", detect.Go, false, []string{"./a", "./b"}, false},
		{"go test ./a", "/p", detect.Go, true, nil, false},
		{"go test ./internal/...", "/p", detect.Go, false, []string{"./internal/x", "./internal"}, true},
		{"go test ./internal/...", "/p", detect.Go, false, []string{"./cmd/x"}, false},
		{"go test ./...", "/p", detect.GoVet, true, nil, false},
		{"pytest tests/", "/p", detect.Pytest, false, []string{"tests/test_a.py"}, true},
		{"pytest tests/test_b.py", "/p", detect.Pytest, false, []string{"tests/test_a.py"}, false},
		{"pytest", "/p", detect.Pytest, true, nil, true},
		{"pytest -k x", "/p", detect.Pytest, true, nil, false},
		{"cargo test -p a -p b", "/p", detect.Cargo, false, []string{"a"}, true},
		{"cargo test -p a", "/p", detect.Cargo, false, []string{"a", "b"}, false},
		{"npm test", "/p", detect.Jest, false, []string{"src/a.js"}, true},
		{"npx jest", "/p", detect.Vitest, true, nil, false},
	}
	for _, tt := range tests {
		r, _ := parseOwnRun(tt.cmd, "/p", nil)
		if got := r.covers(tt.dir, tt.runner, tt.full, tt.targets); got != tt.want {
			t.Errorf("%q covers %s %v full=%v in %s = %v, want %v", tt.cmd, tt.runner, tt.targets, tt.full, tt.dir, got, tt.want)
		}
	}
}

// TestOwnRunsOfChains: each stage of a passing && chain of plain check
// runs counts as a run of its own; anything that could hide a failing
// stage or change what a stage means keeps the line one run that is not
// plain.
func TestOwnRunsOfChains(t *testing.T) {
	type stage struct {
		cmd    string
		runner detect.Runner
		plain  bool
	}
	vet, test := stage{"go vet ./...", detect.GoVet, true}, stage{"go test ./...", detect.Go, true}
	notPlainVet := stage{"", detect.GoVet, false}
	tests := []struct {
		cmd    string
		passed bool
		want   []stage
	}{
		{"go vet ./... && go test ./...", true, []stage{vet, test}},
		{"go vet ./... &&\n  go test ./...", true, []stage{vet, test}},
		{"go vet ./... 2>&1 && go test ./... 2>&1", true, []stage{{"go vet ./... 2>&1", detect.GoVet, true}, {"go test ./... 2>&1", detect.Go, true}}},
		{"go vet ./... && go test ./... && /usr/bin/python3 -m pytest", true, []stage{vet, test, {"/usr/bin/python3 -m pytest", detect.Pytest, true}}},
		{"go test ./...", true, []stage{test}},
		// A failed chain does not say which stage failed.
		{"go vet ./... && go test ./...", false, []stage{notPlainVet}},
		{"go vet ./... ; go test ./...", true, []stage{notPlainVet}},
		{"go vet ./... || go test ./...", true, []stage{notPlainVet}},
		{"go vet ./... && go test ./... || true", true, []stage{notPlainVet}},
		{"go vet ./... | tail -5 && go test ./...", true, []stage{notPlainVet}},
		{"(go vet ./... && go test ./...)", true, []stage{notPlainVet}},
		{"{ go vet ./... && go test ./...; } > out.txt", true, []stage{notPlainVet}},
		{"! go vet ./... && go test ./...", true, []stage{notPlainVet}},
		{"go vet ./... && go test ./... &", true, []stage{notPlainVet}},
		{"go vet ./... && go test -run TestA ./...", true, []stage{notPlainVet}},
		{"go vet ./... && CGO_ENABLED=0 go test ./...", true, []stage{notPlainVet}},
		{"go vet ./... && go test $(go list ./...)", true, []stage{notPlainVet}},
		{"go vet ./... && go test ./... < /dev/null", true, []stage{notPlainVet}},
		{"go vet ./... && echo done", true, []stage{notPlainVet}},
		{"cd sub && go vet ./... && go test ./...", true, []stage{notPlainVet}},
		{"export GOFLAGS=-short && go vet ./... && go test ./...", true, []stage{notPlainVet}},
		{"ls && echo done", true, nil},
	}
	for _, tt := range tests {
		runs := OwnRunsOf(tt.cmd, "/p", nil, RunEnd{Passed: tt.passed})
		if len(runs) != len(tt.want) {
			t.Errorf("%q: %d runs, want %d: %+v", tt.cmd, len(runs), len(tt.want), runs)
			continue
		}
		for i, w := range tt.want {
			r := runs[i]
			cmd := w.cmd
			if cmd == "" {
				cmd = tt.cmd
			}
			if r.Command != cmd || r.Runner != w.runner || r.Plain != w.plain || r.Passed != tt.passed || r.Chained != (len(tt.want) > 1) {
				t.Errorf("%q stage %d: got %q runner=%s plain=%v (%s) passed=%v chained=%v; want %q %s plain=%v",
					tt.cmd, i, r.Command, r.Runner, r.Plain, r.WhyNot, r.Passed, r.Chained, cmd, w.runner, w.plain)
			}
		}
	}
}

// TestChainedRunsStandIn: a passing chain settles each check it covers.
func TestChainedRunsStandIn(t *testing.T) {
	runs := OwnRunsOf("go vet ./... && go test ./...", "/p", nil, RunEnd{Passed: true})
	prior := priorRuns(runs, 0)
	for _, pl := range []verify.Planned{
		{Runner: detect.GoVet, Dir: "/p", Full: true, Command: "go vet ./..."},
		{Runner: detect.Go, Dir: "/p", Targets: []string{"./a"}, Command: "go test ./a"},
	} {
		if p := prior(pl); p == nil || !p.Passed || p.Command == "go vet ./... && go test ./..." {
			t.Errorf("%s: prior = %+v, want the stage's own passing run", pl.Command, p)
		}
	}
	failed := OwnRunsOf("go vet ./... && go test ./...", "/p", nil, RunEnd{Passed: false})
	if p := priorRuns(failed, 0)(verify.Planned{Runner: detect.Go, Dir: "/p", Full: true}); p != nil {
		t.Errorf("a failed chain stood in for go test: %+v", p)
	}
}

// TestConfiguredKnownRunnerCover: a configured check a known runner reads
// is covered by a plain run of that runner only when its own words are a
// plain run; `npx jest -c ci.config.js` is not what `npx jest` runs.
func TestConfiguredKnownRunnerCover(t *testing.T) {
	runs := OwnRunsOf("npx jest", "/p", nil, RunEnd{Passed: true})
	prior := priorRuns(runs, 0)
	if p := prior(verify.Planned{Runner: detect.Jest, Dir: "/p", Full: true, Command: "npx jest --ci", Configured: "npx jest --ci"}); p == nil || !p.Passed {
		t.Errorf("npx jest did not stand in for the configured npx jest --ci: %+v", p)
	}
	if p := prior(verify.Planned{Runner: detect.Jest, Dir: "/p", Full: true, Command: "npx jest -c ci.config.js", Configured: "npx jest -c ci.config.js"}); p != nil {
		t.Errorf("npx jest stood in for the configured npx jest -c ci.config.js: %+v", p)
	}
}

// TestOwnRunsAfterCd: cd DIR && CHECK is the check's run in DIR, passed or
// failed; cd stages before a passing chain move every stage. A cd that
// may go elsewhere (no such folder, -, ~, an expansion, redirected)
// keeps the command one run that is not plain.
func TestOwnRunsAfterCd(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd     string
		passed  bool
		dirs    []string // one per run; "" for a run that is not plain
		runners []detect.Runner
	}{
		{"cd sub && go test ./...", true, []string{sub}, []detect.Runner{detect.Go}},
		{"cd sub && go test ./...", false, []string{sub}, []detect.Runner{detect.Go}},
		{"cd " + sub + " && go test ./...", true, []string{sub}, []detect.Runner{detect.Go}},
		{"cd './sub/deep' && /usr/bin/python3 -m pytest", true, []string{filepath.Join(sub, "deep")}, []detect.Runner{detect.Pytest}},
		{"cd sub && cd .. && go test ./...", true, []string{root}, []detect.Runner{detect.Go}},
		{"cd sub && go vet ./... && go test ./...", true, []string{sub, sub}, []detect.Runner{detect.GoVet, detect.Go}},
		{"cd sub && go vet ./... && go test ./...", false, []string{""}, []detect.Runner{detect.GoVet}},
		{"cd sub && go test -run TestA ./...", true, []string{""}, []detect.Runner{detect.Go}},
		{"cd missing && go test ./...", true, []string{""}, []detect.Runner{detect.Go}},
		{"cd - && go test ./...", true, []string{""}, []detect.Runner{detect.Go}},
		{"cd ~ && go test ./...", true, []string{""}, []detect.Runner{detect.Go}},
		{"cd $SUB && go test ./...", true, []string{""}, []detect.Runner{detect.Go}},
		{"cd sub 2>/dev/null && go test ./...", true, []string{""}, []detect.Runner{detect.Go}},
		{"cd sub; go test ./...", true, []string{""}, []detect.Runner{detect.Go}},
		{"cd sub && go test ./... || true", true, []string{""}, []detect.Runner{detect.Go}},
		{"cd sub && ls", true, nil, nil},
	}
	for _, tt := range tests {
		runs := OwnRunsOf(tt.cmd, root, nil, RunEnd{Passed: tt.passed})
		if len(runs) != len(tt.dirs) {
			t.Errorf("%q: %d runs, want %d: %+v", tt.cmd, len(runs), len(tt.dirs), runs)
			continue
		}
		for i, r := range runs {
			plain := tt.dirs[i] != ""
			if r.Plain != plain || r.Runner != tt.runners[i] || r.Passed != tt.passed || (plain && r.Dir != tt.dirs[i]) {
				t.Errorf("%q run %d: dir=%s runner=%s plain=%v (%s) passed=%v; want dir=%q runner=%s plain=%v",
					tt.cmd, i, r.Dir, r.Runner, r.Plain, r.WhyNot, r.Passed, tt.dirs[i], tt.runners[i], plain)
			}
		}
	}
	// A passing cd run stands in for the gate's check in that folder only.
	prior := priorRuns(OwnRunsOf("cd sub && go test ./...", root, nil, RunEnd{Passed: true}), 0)
	if p := prior(verify.Planned{Runner: detect.Go, Dir: sub, Full: true, Command: "go test ./..."}); p == nil || !p.Passed {
		t.Errorf("cd sub && go test ./... did not stand in for go test ./... in sub: %+v", p)
	}
	if p := prior(verify.Planned{Runner: detect.Go, Dir: root, Full: true, Command: "go test ./..."}); p != nil {
		t.Errorf("cd sub && go test ./... stood in for go test ./... in the parent: %+v", p)
	}
}
