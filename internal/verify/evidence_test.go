package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/detect"
	"github.com/chanto-dev/chanto/internal/verify/scope"
)

func TestShortCommand(t *testing.T) {
	short := "go test ./a ./b"
	if got := shortCommand(short, []string{"./a", "./b"}); got != short {
		t.Errorf("a short command changed: %q", got)
	}
	var targets []string
	for i := 0; i < 300; i++ {
		targets = append(targets, fmt.Sprintf("pkg/tests/test_module_%03d.py", i))
	}
	cmd := "/usr/bin/python3 -m pytest " + strings.Join(targets, " ")
	got := shortCommand(cmd, targets)
	if len(got) > maxShownCommand+60 {
		t.Errorf("still %d bytes: %q", len(got), got)
	}
	if !strings.HasPrefix(got, "/usr/bin/python3 -m pytest pkg/tests/test_module_000.py pkg/tests/test_module_001.py") {
		t.Errorf("does not start with the first targets: %q", got)
	}
	shown := strings.Count(got, "test_module_")
	if want := fmt.Sprintf(" … (+%d more; --json has the whole command)", 300-shown); !strings.HasSuffix(got, want) {
		t.Errorf("got %q, want it to end with %q", got, want)
	}
	// A long command that is not a list of targets is cut at a word.
	long := "make " + strings.Repeat("VERY_LONG_VARIABLE=1 ", 20)
	if got := shortCommand(long, nil); !strings.HasSuffix(got, " … (--json has the whole command)") || len(got) > maxShownCommand+40 {
		t.Errorf("got %q", got)
	}
}

func TestScopeSuffixNamesWidening(t *testing.T) {
	goTest := detect.Check{Runner: detect.Go, Narrowable: true}
	related := scope.Because(scope.RelatedToChange)
	rep := &Report{Checks: []CheckRun{
		{Scope: scope.Scope{Full: true, Reason: scope.For(scope.AlwaysFull, "go vet")}, check: detect.Check{Runner: detect.GoVet}},
		{Scope: scope.Scope{Reason: related, Widened: []string{"./e2e: its tests run the project's programs"}}, check: goTest},
		{Scope: scope.Scope{Reason: related, Widened: []string{"./e2e: its tests run the project's programs", "tests/a.py: it loads modules by name"}}, check: goTest},
	}}
	// Each widening once.
	want := ", related to your changes (including ./e2e: its tests run the project's programs; tests/a.py: it loads modules by name); full suite not run."
	if got := scopeSuffix(rep, &engine{}); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	rep.Checks[1].Scope.Widened = nil
	rep.Checks[2].Scope.Widened = nil
	if got := scopeSuffix(rep, &engine{}); got != ", related to your changes; full suite not run." {
		t.Errorf("without widening: %q", got)
	}
}

func TestNamesOneLineEach(t *testing.T) {
	got := names([]Failure{
		{ID: "a.test.ts::adds", Name: "adds"},
		{ID: "b.test.ts::adds", Name: "adds"},
		{ID: "c", Name: "invalidates\n\tafter 7 calls"},
	})
	if want := []string{"adds", "invalidates after 7 calls"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A go vet finding is a whole message; the evidence line shows its start.
func TestEvidenceCutsALongFinding(t *testing.T) {
	long := "type_tests/struct_tags_test.go:12:2: struct field Field repeats json tag \"field\" also at struct_tags_test.go:11 " + strings.Repeat("and so on ", 30)
	got := nameList(names([]Failure{{ID: "vet", Name: long}, {ID: "t", Name: "TestShort"}}))
	if !strings.HasPrefix(got, "type_tests/struct_tags_test.go:12:2: struct field Field repeats json tag") || !strings.Contains(got, "…, TestShort") {
		t.Errorf("names = %q", got)
	}
	if n := len([]rune(strings.Split(got, ", TestShort")[0])); n != maxNameLen {
		t.Errorf("the long finding is %d characters, want %d", n, maxNameLen)
	}
}

// The not-run note names the changed packages, the module's root in words.
func TestNotRunNoteNamesTheRootPackage(t *testing.T) {
	for _, c := range []struct {
		targets []string
		want    string
	}{
		{[]string{"."}, "depend on the root package did not run yet (go test ./b ./c)"},
		{[]string{".", "./a"}, "depend on the root package, ./a did not run yet"},
		{[]string{"./a"}, "depend on ./a did not run yet"},
		{[]string{"./a", "./b", "./c", "./d"}, "depend on them did not run yet"},
	} {
		rep := &Report{Checks: []CheckRun{{Targets: c.targets}}, NotRun: []string{"go test ./b ./c"}}
		if got := notRunNote(rep); !strings.Contains(got, c.want) {
			t.Errorf("targets %q: %q, want it to hold %q", c.targets, got, c.want)
		}
	}
}
