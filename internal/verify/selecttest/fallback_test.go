package selecttest

import (
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

func TestFallbackReason(t *testing.T) {
	cases := []struct {
		runner detect.Runner
		exit   int
		out    string
		want   scope.Reason
	}{
		{detect.Pytest, 4, "ERROR: file or directory not found: tests/test_gone.py\n", FallbackMissing},
		{detect.Pytest, 5, "collected 0 items\n\n==== no tests ran in 0.01s ====\n", FallbackNoTests},
		{detect.Pytest, 1, "collected 3 items\n\ntests/test_a.py F..\n1 failed, 2 passed\n", scope.Reason{}},
		{detect.Unittest, 1, "ImportError: Failed to import test module: tests.test_gone\nTraceback...\nModuleNotFoundError: No module named 'tests.test_gone'\n\nRan 1 test in 0.000s\n\nFAILED (errors=1)\n", FallbackMissing},
		{detect.Unittest, 5, "\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n", FallbackNoTests},
		{detect.Unittest, 1, "F\nRan 1 test in 0.001s\nFAILED (failures=1)\n", scope.Reason{}},
		{detect.Go, 1, "stat /x/gone: directory not found\n", FallbackMissing},
		{detect.Go, 1, "go: warning: \"./gone/...\" matched no packages\n", FallbackMissing},
		{detect.Go, 0, "?   \texample.com/m/a\t[no test files]\n", FallbackNoTests},
		{detect.Go, 0, `{"Action":"start","Package":"example.com/m/a"}` + "\n" +
			`{"Action":"output","Package":"example.com/m/a","Output":"?   \texample.com/m/a\t[no test files]\n"}` + "\n" +
			`{"Action":"skip","Package":"example.com/m/a","Elapsed":0}` + "\n", FallbackNoTests},
		{detect.Go, 0, "?   \texample.com/m/a\t[no test files]\nok  \texample.com/m/b\t0.01s\n", scope.Reason{}},
		{detect.Go, 1, "--- FAIL: TestX (0.00s)\nFAIL\texample.com/m/b\t0.01s\n", scope.Reason{}},
		{detect.Cargo, 101, "error: package(s) `gone` not found in workspace `/x`\n", FallbackMissing},
		{detect.Cargo, 101, "error: no test target named `gone` in `core` package\n", FallbackMissing},
		{detect.Cargo, 0, "running 0 tests\n\ntest result: ok. 0 passed\n\nrunning 0 tests\n", FallbackNoTests},
		{detect.Cargo, 0, "running 2 tests\ntest a ... ok\n", scope.Reason{}},
		{detect.Jest, 1, "No tests found, exiting with code 1\nRun with `--passWithNoTests` to exit with code 0\n", FallbackNoTests},
		{detect.Vitest, 1, "No test files found, exiting with code 1\n", FallbackNoTests},
		{detect.Jest, 1, "FAIL src/a.test.js\n  ● adds\n", scope.Reason{}},
	}
	for _, tc := range cases {
		got, ok := FallbackReason(tc.runner, tc.exit, []byte(tc.out))
		if got.String() != tc.want.String() || ok != !tc.want.IsZero() {
			t.Errorf("%s exit %d %q: got (%q, %v), want %q", tc.runner, tc.exit, tc.out, got, ok, tc.want)
		}
	}
}
