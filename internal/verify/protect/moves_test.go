package protect

import (
	"strings"
	"testing"
)

const moveBase = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n\nfunc TestSub(t *testing.T) {\n\tif Sub(3, 2) != 1 {\n\t\tt.Fatal(\"Sub(3, 2) != 1\")\n\t}\n}\n"

const moveRest = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n"

const moveSub = "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(3, 2) != 1 {\n\t\tt.Fatal(\"Sub(3, 2) != 1\")\n\t}\n}\n"

func TestMovedTests(t *testing.T) {
	cases := []struct {
		name string
		dest string // path of the file TestSub moves to
		body string // its content
		want Kind   // "" for an honest move
	}{
		{"moved intact to a new test file", "sub_test.go", moveSub, ""},
		{"moved and weakened", "sub_test.go", strings.Replace(moveSub, "t.Fatal(", "t.Log(", 1), TestRemoved},
		{"moved under a build constraint", "sub_test.go", "//go:build never\n\n" + moveSub, TestRemoved},
		{"moved into a file go test does not compile", "sub.go", moveSub, TestRemoved},
		{"moved with a skip", "sub_test.go", strings.Replace(moveSub, "{\n\tif", "{\n\tt.Skip()\n\tif", 1), TestRemoved},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := mapSource{"calc_test.go": moveBase}
			cur := mapSource{"calc_test.go": moveRest, c.dest: c.body}
			vs, err := Compare(base, cur, []string{"calc_test.go", c.dest}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []Kind
			for _, v := range vs {
				kinds = append(kinds, v.Kind)
			}
			if c.want == "" && len(vs) > 0 {
				t.Fatalf("honest move reported: %v", vs)
			}
			if c.want != "" && (len(vs) == 0 || vs[0].Kind != c.want) {
				t.Fatalf("want %s, got %v", c.want, kinds)
			}
		})
	}
}

func TestMovedTestsPython(t *testing.T) {
	base := mapSource{"tests/test_a.py": "def test_one():\n    assert f(1) == 2\n\ndef test_two():\n    assert f(2) == 3\n"}
	cur := mapSource{
		"tests/test_a.py": "def test_one():\n    assert f(1) == 2\n",
		"tests/test_b.py": "def test_two():\n    assert f(2) == 3\n",
	}
	changed := []string{"tests/test_a.py", "tests/test_b.py"}
	if vs, _ := Compare(base, cur, changed, Options{}); len(vs) > 0 {
		t.Fatalf("honest move reported: %v", vs)
	}
	cur["tests/test_b.py"] = "def test_two():\n    assert f(2) == 4\n"
	if vs, _ := Compare(base, cur, changed, Options{}); len(vs) != 1 || vs[0].Kind != TestRemoved {
		t.Fatalf("moved and changed: want test_removed, got %v", vs)
	}
}

func TestNewFileHarness(t *testing.T) {
	base := mapSource{"calc_test.go": moveBase}
	cases := []struct {
		name, body string
		want       Kind
	}{
		{"TestMain that exits", "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n", EarlyExit},
		{"TestMain that never runs the tests", "package calc\n\nimport \"testing\"\n\nfunc TestMain(m *testing.M) {}\n", SkipAdded},
		{"init that exits", "package calc\n\nimport \"os\"\n\nfunc init() { os.Exit(0) }\n", EarlyExit},
		{"TestMain that runs the tests", "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n", ""},
		{"new test that starts skipped", "package calc\n\nimport \"testing\"\n\nfunc TestLater(t *testing.T) { t.Skip(\"later\") }\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cur := mapSource{"calc_test.go": moveBase, "main_test.go": c.body}
			vs, err := Compare(base, cur, []string{"main_test.go"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" && len(vs) > 0 {
				t.Fatalf("honest new file reported: %v", vs)
			}
			if c.want != "" && (len(vs) == 0 || vs[0].Kind != c.want) {
				t.Fatalf("want %s, got %v", c.want, vs)
			}
		})
	}
}
