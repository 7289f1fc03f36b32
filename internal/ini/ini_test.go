package ini

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	src := "top = ignored\n[pytest]\naddopts = -q\ntestpaths =\n    tests\n\tintegration\n# comment\n; comment\n" +
		"python_files: check_*.py\r\n[tool:pytest]\nx = 1\n[pytest]\nmarkers = slow\naddopts = -x\nnot a key\n  lost continuation\n"
	want := File{
		"pytest":      {"addopts": "-x", "testpaths": "tests integration", "python_files": "check_*.py", "markers": "slow"},
		"tool:pytest": {"x": "1"},
	}
	if got := Parse(src); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if _, ok := Parse("[a]\n").Section("a"); !ok {
		t.Fatal("an empty section is not found")
	}
	if _, ok := Parse("[a]\n").Section("b"); ok {
		t.Fatal("a missing section is found")
	}
}
