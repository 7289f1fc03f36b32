package verify

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// TestRunNamedTestGo runs named tests with the real go command: a test
// that passed counts, a failing one, a missing one and a subtest's parent
// are told apart from the runner's results.
func TestRunNamedTestGo(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := gitRepo(t)
	put(t, dir, "go.mod", "module example.com/m\n\ngo 1.22\n")
	put(t, dir, "p/p_test.go", `package p

import "testing"

func TestA(t *testing.T) { t.Run("sub", func(t *testing.T) {}) }
func TestB(t *testing.T) { t.Fatal("B is broken") }
func TestSkipped(t *testing.T) { t.Skip("later") }
`)
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	cases := []struct {
		name   string
		passed bool
		why    string
	}{
		{"TestA", true, ""},
		{"p.TestA", true, ""},
		{"example.com/m/p.TestA", true, ""},
		{"TestA/sub", true, ""},
		{"q.TestA", false, "it did not run: no test of that name was collected"},
		{"TestB", false, "it failed"},
		{"TestSkipped", false, "it did not run: no test of that name was collected"},
		{"TestParse", false, "it did not run: no test of that name was collected"},
	}
	for _, c := range cases {
		nt, err := RunNamedTest(context.Background(), Options{Root: dir}, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if nt.Passed != c.passed || nt.Why != c.why {
			t.Errorf("%s: passed %v, why %q; want %v, %q (ran %s)", c.name, nt.Passed, nt.Why, c.passed, c.why, nt.Command)
		}
	}
}

// TestRunNamedTestPytest names tests by node id and by bare name.
func TestRunNamedTestPytest(t *testing.T) {
	if exec.Command("/usr/bin/python3", "-m", "pytest", "--version").Run() != nil {
		t.Fatal("/usr/bin/python3 has no pytest; scripts/test installs it")
	}
	t.Setenv("CHANTO_HOME", t.TempDir())
	t.Setenv("PATH", "/usr/bin:/bin")
	dir := gitRepo(t)
	put(t, dir, "pyproject.toml", "[project]\nname = \"m\"\nversion = \"0\"\n")
	put(t, dir, "tests/test_io.py", `import pytest

def test_roundtrip():
    assert True

def test_broken():
    assert False

class TestCodec:
    def test_decode(self):
        pass

@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n
`)
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	cases := []struct {
		name   string
		passed bool
		why    string
	}{
		{"tests/test_io.py::test_roundtrip", true, ""},
		{"test_roundtrip", true, ""},
		{"tests/test_io.py::TestCodec::test_decode", true, ""},
		{"test_param", true, ""},
		{"tests/test_io.py::test_broken", false, "it failed"},
		{"tests/test_io.py::test_missing", false, "it did not run"},
		{"test_missing", false, "it did not run: no test of that name was collected"},
	}
	for _, c := range cases {
		nt, err := RunNamedTest(context.Background(), Options{Root: dir}, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if nt.Passed != c.passed || !strings.HasPrefix(nt.Why, c.why) {
			t.Errorf("%s: passed %v, why %q; want %v, %q (ran %s)\n%s", c.name, nt.Passed, nt.Why, c.passed, c.why, nt.Command, nt.Output)
		}
	}
}
