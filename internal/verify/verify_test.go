package verify

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chanto-dev/chanto/internal/event"
)

type recorder struct {
	mu  sync.Mutex
	evs []event.Event
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
}

func (r *recorder) types() []string {
	var out []string
	for _, e := range r.evs {
		out = append(out, e.Type)
	}
	return out
}

// TestRunEventsAndBaseline runs configured checks in a real repository:
// events come in order, a check that failed before the change is already
// failing, and it does not stop the chain (a new failure would).
func TestRunEventsAndBaseline(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	dir := gitRepo(t)
	put(t, dir, "state.txt", "broken\n")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	put(t, dir, "other.txt", "a change elsewhere\n")

	rec := &recorder{}
	rep, err := Run(context.Background(), Options{
		Root:      dir,
		Checks:    []string{"true", "grep -q fixed state.txt", "echo after"},
		Events:    rec,
		SessionID: "s1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != NotVerified || len(rep.Checks) != 3 {
		t.Fatalf("verdict %s, %d checks", rep.Verdict, len(rep.Checks))
	}
	want := regexp.MustCompile(`^⚠ Not verified: grep -q fixed state\.txt failed \(exit 1; already failing before this change\); true \([0-9.]+s\), echo after \([0-9.]+s\) passed \(configured checks\); ` + regexp.QuoteMeta(configuredOldHint) + `\.$`)
	if !want.MatchString(rep.Evidence) {
		t.Errorf("evidence = %q\nwant %s", rep.Evidence, want)
	}
	if b := rep.Checks[1].Baseline; b == nil || b.Kind != "copy" || !b.Ran {
		t.Errorf("baseline = %+v", b)
	}
	wantEvents := []string{event.VerifyStarted, event.VerifyCheck, event.VerifyCheck, event.VerifyBaseline, event.VerifyCheck, event.VerifyResult}
	if got := rec.types(); !reflect.DeepEqual(got, wantEvents) {
		t.Errorf("events = %v, want %v", got, wantEvents)
	}
	if st := rec.evs[0]; st.Scope != "full" || !reflect.DeepEqual(st.Checks, []string{"true", "grep -q fixed state.txt", "echo after"}) {
		t.Errorf("verify.started = %+v", st)
	}
	for _, e := range rec.evs {
		if e.SessionID != "s1" || e.Time.IsZero() {
			t.Errorf("event %s without session or time", e.Type)
		}
	}

	// Fixed: verified, and the change set says what changed.
	put(t, dir, "state.txt", "fixed\n")
	rep, err = Run(context.Background(), Options{Root: dir, Checks: []string{"grep -q fixed state.txt"}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Verified || !reflect.DeepEqual(rep.Changed, []string{"other.txt", "state.txt"}) {
		t.Errorf("verdict %s, changed %q, evidence %q", rep.Verdict, rep.Changed, rep.Evidence)
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		400 * time.Millisecond:  "0.4s",
		3 * time.Second:         "3s",
		40*time.Second + 400000: "40s",
		125 * time.Second:       "2m05s",
		600 * time.Second:       "10m00s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
	if got := formatLimit(600 * time.Second); got != "600s" {
		t.Errorf("limit: %q", got)
	}
}

// TestRunNewProjectBaseline: a project the change adds has no base to run
// in; its failures are new and the report says why no baseline ran.
func TestRunNewProjectBaseline(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := gitRepo(t)
	put(t, dir, "README.md", "hi\n")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")
	put(t, dir, "svc/go.mod", "module example.com/svc\n\ngo 1.22\n")
	put(t, dir, "svc/svc_test.go", "package svc\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) { t.Fatal(\"new\") }\n")
	rep, err := Run(context.Background(), Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if want := "⚠ Not verified: cd svc && go test ./... failed: TestNew."; rep.Evidence != want {
		t.Fatalf("evidence = %q, want %q", rep.Evidence, want)
	}
	b := rep.Checks[len(rep.Checks)-1].Baseline
	if b == nil || b.Ran || b.Note != "the project did not exist at the base" {
		t.Errorf("baseline = %+v", b)
	}
	if len(rep.NewFailures) != 1 || len(rep.AlreadyFailing) != 0 {
		t.Errorf("new %v, already %v", rep.NewFailures, rep.AlreadyFailing)
	}
}

func TestMissingProgram(t *testing.T) {
	for out, want := range map[string]string{
		"bash: line 1: no-such-tool: command not found\n":                             "no-such-tool",
		"> test\n\nsh: 1: jest: not found\n":                                          "jest",
		"/bin/sh: 1: vitest: not found\n":                                             "vitest",
		"/usr/bin/env: 'node': No such file or directory\n":                           "node",
		"chanto sandbox helper: exec /tmp/v/bin/python3: no such file or directory\n": "python3",
		"everything is fine\n":                                                        "",
	} {
		if got := missingProgram(out); got != want {
			t.Errorf("%q: %q, want %q", out, got, want)
		}
	}
}

// A changed module without tests of its own goes on to the modules that
// build against it: their tests are the ones related to the change.
func TestNoTestsGoesOnToDependents(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	t.Setenv("GOFLAGS", "")
	dir := gitRepo(t)
	put(t, dir, "go.work", "go 1.22\n\nuse (\n\t./a\n\t./b\n)\n")
	put(t, dir, "a/go.mod", "module example.com/a\n\ngo 1.22\n")
	put(t, dir, "a/a.go", "package a\n\nfunc N() int { return 1 }\n")
	put(t, dir, "b/go.mod", "module example.com/b\n\ngo 1.22\n\nrequire example.com/a v0.0.0\n")
	put(t, dir, "b/b.go", "package b\n\nimport \"example.com/a\"\n\nfunc M() int { return a.N() + 1 }\n")
	put(t, dir, "b/b_test.go", "package b\n\nimport \"testing\"\n\nfunc TestM(t *testing.T) {\n\tif M() != 2 {\n\t\tt.Fatal(M())\n\t}\n}\n")
	sh(t, dir, "git", "add", "-A")
	sh(t, dir, "git", "commit", "-qm", "init")

	put(t, dir, "a/a.go", "package a\n\n// N is one.\nfunc N() int { return 1 }\n")
	rep, err := Run(context.Background(), Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Verified || !strings.Contains(rep.Evidence, "cd a && go test ./... (no tests of its own), cd b && go vet") {
		t.Fatalf("%s: %s", rep.Verdict, rep.Evidence)
	}
	put(t, dir, "a/a.go", "package a\n\nfunc N() int { return 5 }\n")
	rep, err = Run(context.Background(), Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if want := "⚠ Not verified: cd b && go test ./... failed: TestM."; rep.Evidence != want {
		t.Fatalf("evidence = %q, want %q", rep.Evidence, want)
	}
}
