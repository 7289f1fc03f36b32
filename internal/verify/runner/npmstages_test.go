package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptStage reads where a failed && chain of a test script stopped
// from what npm and the runners print.
func TestScriptStage(t *testing.T) {
	dir := t.TempDir()
	pkg := `{"scripts":{
		"test": "cross-env TZ=Pacific/Auckland npm run test-tz && cross-env TZ=Europe/London npm run test-tz && eslint . && jest --coverage",
		"test-tz": "date && jest test/timezone.test --coverage=false"}}`
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	header := "\n> p@1.0.0 test-tz\n> date && jest test/timezone.test --coverage=false\n\nWed Dec  2 07:30:00 NZDT 2026\n"
	passed := "PASS test/timezone.test.js\nTest Suites: 1 passed, 1 total\nTests:       3 passed, 3 total\nRan all test suites matching /test\\/timezone.test/i.\n"
	failed := "FAIL test/timezone.test.js\n  ● dst\nTest Suites: 1 failed, 1 total\nTests:       1 failed, 2 passed, 3 total\nRan all test suites matching /test\\/timezone.test/i.\n"
	top := "\n> p@1.0.0 test\n> cross-env TZ=Pacific/Auckland npm run test-tz && cross-env TZ=Europe/London npm run test-tz && eslint . && jest --coverage\n"
	cases := []struct {
		name      string
		output    string
		truncated bool
		want      Stage
	}{
		{"first", top + header + failed, false, Stage{Index: 1, Of: 4, Command: "cross-env TZ=Pacific/Auckland npm run test-tz", Sure: true}},
		{"second", top + header + passed + header + failed, false, Stage{Index: 2, Of: 4, Command: "cross-env TZ=Europe/London npm run test-tz", Sure: true}},
		// eslint prints no end of its own: after its start the failure is
		// eslint's or jest's, which prints no start.
		{"lint or later", top + header + passed + header + passed + "a.js: 1 problem\n", false, Stage{Index: 3, Of: 4, Command: "eslint .", Sure: false}},
		{"truncated", top + header + failed, true, Stage{Index: 1, Of: 4, Command: "cross-env TZ=Pacific/Auckland npm run test-tz", Sure: false}},
	}
	for _, tc := range cases {
		got, ok := ScriptStage(dir, []string{"npm", "test"}, tc.output, tc.truncated)
		if !ok || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, ok, tc.want)
		}
	}
	// The last stage, a jest run that failed: the stage before it ended.
	last := top + header + passed + header + passed + strings.Repeat("x\n", 3)
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(strings.Replace(pkg, "eslint . && ", "", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := ScriptStage(dir, []string{"npm", "test"}, last+failed, false); got.Index != 3 || !got.Sure {
		t.Errorf("last stage: got %+v", got)
	}
	for _, script := range []string{`"jest"`, `"jest; eslint ."`} {
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"test":`+script+`}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok := ScriptStage(dir, []string{"npm", "test"}, failed, false); ok {
			t.Errorf("%s: a stage %+v", script, got)
		}
	}
}
