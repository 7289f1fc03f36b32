package pytestconf

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// folders are configurations whose winner depends on pytest's version.
var folders = []struct {
	name  string
	files map[string]string
	// want is the winner by version: 6.0, 7.2, 9.0.
	want [3]string
}{
	{"an empty pytest.ini wins", map[string]string{
		"pytest.ini": "", "pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"--tb=short\"\n",
	}, [3]string{"pytest.ini", "pytest.ini", "pytest.ini"}},
	{"the hidden .pytest.ini", map[string]string{
		".pytest.ini": "[pytest]\ntestpaths = tests docs\n", "pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"--tb=short\"\n",
	}, [3]string{"pyproject.toml", ".pytest.ini", ".pytest.ini"}},
	{"an empty .pytest.ini", map[string]string{
		".pytest.ini": "", "tox.ini": "[tox]\n\n[pytest]\naddopts = --tb=short\n",
	}, [3]string{"tox.ini", "tox.ini", ".pytest.ini"}},
	{"pyproject without the table", map[string]string{
		"pyproject.toml": "[project]\nname = \"x\"\n", "setup.cfg": "[tool:pytest]\naddopts = --tb=short\n",
	}, [3]string{"setup.cfg", "setup.cfg", "setup.cfg"}},
	{"pytest.toml", map[string]string{
		"pytest.toml": "[pytest]\naddopts = [\"--tb=short\"]\n", "tox.ini": "[pytest]\naddopts = --tb=short\n",
	}, [3]string{"tox.ini", "tox.ini", "pytest.toml"}},
	{"pyproject's native table", map[string]string{
		"pyproject.toml": "[tool.pytest]\naddopts = [\"--tb=short\"]\n", "tox.ini": "[pytest]\naddopts = --tb=short\n",
	}, [3]string{"tox.ini", "tox.ini", "pyproject.toml"}},
}

func reader(files map[string]string) func(string) ([]byte, bool) {
	return func(name string) ([]byte, bool) {
		s, ok := files[name]
		return []byte(s), ok
	}
}

func TestFindByVersion(t *testing.T) {
	for _, f := range folders {
		for i, v := range []Version{{6, 0}, {7, 2}, {9, 0}} {
			if got, _ := Find(v, reader(f.files)); got != f.want[i] {
				t.Errorf("%s, pytest %s: %q, want %q", f.name, v, got, f.want[i])
			}
		}
	}
	if _, opts := Find(Version{9, 0}, reader(folders[4].files)); opts["addopts"] != "--tb=short" {
		t.Errorf("pytest.toml's addopts = %q, want --tb=short", opts["addopts"])
	}
}

func TestParseVersion(t *testing.T) {
	for s, want := range map[string]Version{"7.2.1": {7, 2}, "9.0.0.dev3": {9, 0}, "8.3": {8, 3}, "": {}, "x.y": {}} {
		if got := ParseVersion(s); got != want {
			t.Errorf("ParseVersion(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestFindAgreesWithPytest asks the real pytest which file it read in each
// folder (its header's "configfile:") and compares Find for its version.
func TestFindAgreesWithPytest(t *testing.T) {
	const py = "/usr/bin/python3"
	out, err := exec.Command(py, "-c", "import pytest; print(pytest.__version__)").Output()
	if err != nil {
		t.Skip("needs /usr/bin/python3 with pytest")
	}
	v := ParseVersion(string(out))
	configfile := regexp.MustCompile(`(?m)^rootdir: .*?(?:, configfile: (\S+))?$`)
	for _, f := range folders {
		dir := t.TempDir()
		for name, body := range f.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "test_a.py"), []byte("def test_a(): pass\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(py, "-m", "pytest", "--co", "-p", "no:cacheprovider")
		cmd.Dir = dir
		res, _ := cmd.CombinedOutput()
		m := configfile.FindStringSubmatch(string(res))
		if m == nil {
			t.Fatalf("%s: no rootdir line in pytest's output:\n%s", f.name, res)
		}
		if got, _ := Find(v, func(name string) ([]byte, bool) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			return b, err == nil
		}); got != m[1] {
			t.Errorf("%s: Find for pytest %s says %q, pytest read %q", f.name, v, got, m[1])
		}
	}
}
