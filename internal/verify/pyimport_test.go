package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// TestImportReason: the package under test in a folder Python does not
// search is named with the fix for the runner and config at hand; a
// failing test or a missing submodule is the tests' own failure.
func TestImportReason(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"lib/shop/__init__.py": "", "pytest.ini": "[pytest]\ntestpaths = tests\n", "pyproject.toml": "[project]\nname = \"Shop\"\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := "E   ModuleNotFoundError: No module named 'shop'\n"
	pytest := detect.Check{Dir: dir, Runner: detect.Pytest, Args: []string{"python3", "-m", "pytest"}}
	unittest := detect.Check{Dir: dir, Runner: detect.Unittest, Args: []string{"/opt/py/bin/python", "-m", "unittest"}}
	collection := []Failure{{ID: "tests.test_shop", Name: "tests.test_shop (collection error)"}}
	cases := []struct {
		name string
		c    detect.Check
		cr   CheckRun
		text string
		want string
	}{
		{"pytest.ini", pytest, CheckRun{ExitCode: 2, Failures: collection}, missing, "the package under test, shop (lib/shop), cannot be imported: it is not installed for python3 and lib/ is not on the import path; install it (python3 -m pip install -e .) or set pythonpath = lib under [pytest] in pytest.ini"},
		{"unittest", unittest, CheckRun{ExitCode: 1, Failures: []Failure{{ID: "unittest.loader._FailedTest.test_shop"}}}, "ImportError: Failed to import test module: test_shop\n" + missing, "install it (/opt/py/bin/python -m pip install -e .) or run the tests with PYTHONPATH=lib"},
		{"a test failed", pytest, CheckRun{ExitCode: 1, Failures: []Failure{{ID: "tests.test_shop::test_x", Name: "test_x"}}}, missing, ""},
		{"a submodule", pytest, CheckRun{ExitCode: 2, Failures: collection}, "ModuleNotFoundError: No module named 'shop.gone'\n", ""},
		{"metadata", pytest, CheckRun{ExitCode: 2, Failures: collection}, "E   importlib.metadata.PackageNotFoundError: No package metadata was found for shop\n", "the package under test, shop, is not installed for python3, and its tests read its metadata (PackageNotFoundError: No package metadata was found for shop); install it (python3 -m pip install -e .)"},
		{"metadata of another", pytest, CheckRun{ExitCode: 2, Failures: collection}, "PackageNotFoundError: No package metadata was found for other\n", ""},
		{"passed", pytest, CheckRun{ExitCode: 0}, missing, ""},
	}
	for _, tc := range cases {
		got := importReason(tc.c, tc.cr, tc.text)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: importReason = %q, want %q", tc.name, got, tc.want)
		}
	}
}
