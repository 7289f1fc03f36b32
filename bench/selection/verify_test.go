package main

import (
	"reflect"
	"testing"
)

func TestJSFailures(t *testing.T) {
	report := `{"testResults":[
	 {"name":"/p/test/a.test.js","status":"failed","assertionResults":[{"fullName":"a adds","status":"failed"},{"fullName":"a keeps","status":"passed"}]},
	 {"name":"/p/test/b.test.js","status":"failed","message":"SyntaxError","assertionResults":[]},
	 {"name":"/p/test/c.test.js","status":"passed","assertionResults":[{"fullName":"c","status":"passed"}]}]}`
	got, err := jsFailures("/p", []byte(report))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"test test/a.test.js a adds": true, "file test/b.test.js": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jsFailures = %v, want %v", got, want)
	}
}

// A fault counts as caught only when chanto names a new failure; outside
// the sample a catch stands for the full suite's; ratios come from the
// sample only.
func TestVerifyRowAdd(t *testing.T) {
	var r verifyRow
	for _, o := range []outcome{
		{Sample: true, ChantoNew: true, FullRan: true, FullNew: []string{"test X"}, ChantoSecs: 1, FullSecs: 4},
		{Sample: true, FullRan: true, ChantoSecs: 1, FullSecs: 2},
		{ChantoNew: true}, // inferred
		{OldFailure: true, FullRan: true, FullNew: []string{"test Y"}}, // exit 3 on an old failure only: a miss
		{ChantoTimedOut: true, FullRan: true, FullTimedOut: true},
		{FullRan: true, FullSecs: 3}, // passing, outside the sample: no ratio
	} {
		r.add(o)
	}
	if r.caughtFull != 4 || r.caught != 3 || r.inferred != 1 || r.timeoutCatches != 1 || len(r.misses) != 1 || r.oldSeen != 1 {
		t.Errorf("row = %+v", r)
	}
	if len(r.failRatios) != 1 || r.failRatios[0] != 0.25 || len(r.passRatios) != 1 || r.passRatios[0] != 0.5 {
		t.Errorf("ratios: failing %v, passing %v", r.failRatios, r.passRatios)
	}
}
