package verify

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/verify/runner"
)

// A change that makes a test hang is stopped by the -timeout chanto sets
// from the package's earlier time, and the test that hung is named as the
// new failure; without an earlier time no -timeout is set.
func TestHangGuardNamesTheTestThatHung(t *testing.T) {
	defer func(steps []time.Duration) { hangSteps = steps }(hangSteps)
	hangSteps = []time.Duration{3 * time.Second}
	dir := stagedModule(t, aTestV)
	hang := "package a\n\n// V is one.\nfunc V() int {\n\tfor {\n\t}\n}\n\n// W is two.\nfunc W() int { return 2 }\n"

	if rep := runStagedModule(t, dir); rep.Verdict != Verified {
		t.Fatalf("at HEAD: %s", rep.Evidence)
	} else if got := rep.Checks[len(rep.Checks)-1].HangLimitSecs; got != 0 {
		t.Errorf("the first run, with no times recorded, set -timeout %ds", got)
	}
	put(t, dir, "a/a.go", hang)
	start := time.Now()
	rep, err := Run(context.Background(), Options{Root: dir, Timeout: 2 * time.Minute, Progress: func(s string) { t.Logf("%s %s", time.Since(start).Round(time.Millisecond), s) }})
	if err != nil {
		t.Fatal(err)
	}
	last := rep.Checks[len(rep.Checks)-1]
	if got := ids(rep.NewFailures); !reflect.DeepEqual(got, []string{"example.com/s/a.TestV"}) || last.HangLimitSecs != 3 {
		t.Fatalf("new failures %q, -timeout %ds; evidence %s", got, last.HangLimitSecs, rep.Evidence)
	}
	if want := "go test ./a failed: TestV (did not finish: go test's -timeout of 3s stopped it)."; !strings.Contains(rep.Evidence, want) || strings.Contains(last.Command, "-timeout") {
		t.Errorf("evidence %q, command %q; want the evidence to hold %q, the command no -timeout", rep.Evidence, last.Command, want)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("took %s", took)
		for _, c := range rep.Checks {
			t.Logf("%s: %dms, baseline %+v", c.Command, c.DurationMS, c.Baseline)
		}
	}

	// The user's own -timeout is theirs.
	t.Setenv("GOFLAGS", "-mod=mod -timeout=4s")
	rep = runStagedModule(t, dir)
	if last := rep.Checks[len(rep.Checks)-1]; last.HangLimitSecs != 0 || len(rep.NewFailures) != 1 || !strings.Contains(rep.Evidence, "-timeout of 4s") {
		t.Errorf("with GOFLAGS -timeout: limit %ds, evidence %s", last.HangLimitSecs, rep.Evidence)
	}
}

func TestHangGuardLimits(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"go", "test", "./..."}, false},
		{[]string{"go", "test", "-timeout", "30s", "./a"}, true},
		{[]string{"go", "test", "-timeout=30s", "./a"}, true},
		{[]string{"go", "test", "--bench=.", "./a"}, true},
		{[]string{"go", "test", "-fuzz=FuzzX", "./a"}, true},
		{[]string{"go", "test", "-run=Timeout", "./a"}, false},
	} {
		if got := setsTimeout(c.args); got != c.want {
			t.Errorf("setsTimeout(%q) = %v", c.args, got)
		}
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"go", "test", "-run", "^(TestV)$", "./a", "./b"}, []string{"./a", "./b"}},
		{[]string{"go", "test", "-run=X", "-count", "1", "-v", "."}, []string{"."}},
		{[]string{"go", "test", "./a", "-args", "-x", "y"}, []string{"./a"}},
		{[]string{"go", "vet", "./a"}, nil},
	} {
		if got := runner.GoTestPackages(c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("GoTestPackages(%q) = %q, want %q", c.args, got, c.want)
		}
	}
	if got := runner.WithGoTestFlags([]string{"go", "test", "-json", "./a"}, "-timeout=1m0s"); !reflect.DeepEqual(got, []string{"go", "test", "-timeout=1m0s", "-json", "./a"}) {
		t.Errorf("WithGoTestFlags: %q", got)
	}
}
