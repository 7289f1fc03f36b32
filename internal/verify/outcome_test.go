package verify

import "testing"

func TestOutcome(t *testing.T) {
	cases := []struct {
		run                                 CheckRun
		want                                Outcome
		verified, retryable, ends, baseline bool
	}{
		{CheckRun{Passed: true}, CheckPassed, true, false, false, false},
		{CheckRun{ExitCode: 1}, CheckFailed, false, true, false, true},
		{CheckRun{TimedOut: true, ExitCode: -1}, CheckTimedOut, false, false, true, false},
		{CheckRun{NotFound: "jest", ExitCode: -1}, CheckNotInstalled, false, false, true, false},
		{CheckRun{CouldNotRun: "no report", ExitCode: 0}, CheckCouldNotRun, false, false, true, false},
		{CheckRun{Refused: true, ExitCode: -1}, CheckRefused, false, false, true, false},
		{CheckRun{NoTests: true, ExitCode: 5}, CheckNoTests, false, false, true, false},
	}
	for _, c := range cases {
		o := c.run.Outcome()
		if o != c.want || o.Verified() != c.verified || o.Retryable() != c.retryable || o.Ends() != c.ends || o.HasBaseline() != c.baseline {
			t.Errorf("%+v: %s (verified %v retryable %v ends %v baseline %v)", c.run, o, o.Verified(), o.Retryable(), o.Ends(), o.HasBaseline())
		}
	}
}
