package baseline

import (
	"slices"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name             string
		current, base    []string
		wantNew, wantOld []string
	}{
		{"nothing fails", nil, []string{"pkg/TestA"}, nil, nil},
		{"clean base", []string{"pkg/TestA"}, nil, []string{"pkg/TestA"}, nil},
		{"already failing", []string{"pkg/TestA"}, []string{"pkg/TestA"}, nil, []string{"pkg/TestA"}},
		{"mixed, order of current",
			[]string{"tests/test_b.py::test_y", "tests/test_a.py::test_x", "pkg/TestZ"},
			[]string{"tests/test_a.py::test_x", "other::gone"},
			[]string{"tests/test_b.py::test_y", "pkg/TestZ"}, []string{"tests/test_a.py::test_x"}},
		{"subtest is its own identity", []string{"pkg/TestA", "pkg/TestA/case_2"}, []string{"pkg/TestA", "pkg/TestA/case_1"},
			[]string{"pkg/TestA/case_2"}, []string{"pkg/TestA"}},
		{"duplicates and blanks dropped", []string{"a", " a ", "", "b", "b"}, []string{"a"}, []string{"b"}, []string{"a"}},
		{"unicode and spaces", []string{"tests/tést ü.py::test_ß"}, []string{"tests/tést ü.py::test_ß"}, nil, []string{"tests/tést ü.py::test_ß"}},
		{"case matters", []string{"pkg/TestA"}, []string{"pkg/testa"}, []string{"pkg/TestA"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotNew, gotOld := Classify(tt.current, tt.base)
			if !slices.Equal(gotNew, tt.wantNew) || !slices.Equal(gotOld, tt.wantOld) {
				t.Errorf("Classify(%q, %q) = new %q, old %q; want new %q, old %q", tt.current, tt.base, gotNew, gotOld, tt.wantNew, tt.wantOld)
			}
		})
	}
}

func TestClassifyAgainstBaselineThatDidNotRun(t *testing.T) {
	cur := []string{"pkg/TestA", "pkg/TestB"}
	// The failure list of a run that timed out is not evidence of anything.
	gotNew, gotOld := ClassifyAgainst(cur, Run{Failures: []string{"pkg/TestA"}, Ran: false})
	if !slices.Equal(gotNew, cur) || gotOld != nil {
		t.Errorf("baseline not run: new %q old %q, want all new", gotNew, gotOld)
	}
	gotNew, gotOld = ClassifyAgainst(cur, Run{Failures: []string{"pkg/TestA"}, Ran: true})
	if !slices.Equal(gotNew, []string{"pkg/TestB"}) || !slices.Equal(gotOld, []string{"pkg/TestA"}) {
		t.Errorf("baseline ran: new %q old %q", gotNew, gotOld)
	}
}

func TestRestoredMessage(t *testing.T) {
	r := Restored{PID: 1234, Files: []string{"a.go", "b.go", "c.go"}}
	want := "restored 3 files left put back by an interrupted run (pid 1234): a.go, b.go, c.go"
	if got := r.Message(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	r.Files = r.Files[:1]
	if got := r.Message(); got != "restored 1 file left put back by an interrupted run (pid 1234): a.go" {
		t.Errorf("singular: %q", got)
	}
}
