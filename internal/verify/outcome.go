package verify

// Outcome is how a check run ended: one of a closed set, derived once
// from the run (CheckRun.Outcome), so callers ask it what they need
// instead of re-reading the run's flags.
type Outcome int

// The outcomes, in the order the evidence tells them apart.
const (
	CheckPassed       Outcome = iota
	CheckFailed               // tests or the command failed
	CheckNotInstalled         // the program is missing (NotFound)
	CheckTimedOut             // it hit timeout_secs
	CheckCouldNotRun          // it could not start, or verified nothing (CouldNotRun)
	CheckRefused              // the permission policy, a hook or lockdown refused it
	CheckNoTests              // it collected no tests
)

// Outcome is how c ended.
func (c CheckRun) Outcome() Outcome {
	switch {
	case c.NotFound != "":
		return CheckNotInstalled
	case c.TimedOut:
		return CheckTimedOut
	case c.CouldNotRun != "":
		return CheckCouldNotRun
	case c.Refused:
		return CheckRefused
	case c.NoTests:
		return CheckNoTests
	case !c.Passed:
		return CheckFailed
	}
	return CheckPassed
}

// Verified reports an outcome that counts as verified.
func (o Outcome) Verified() bool { return o == CheckPassed }

// Retryable reports an outcome worth sending back to the model: a failure
// it can fix. The others would hang, fail the same way again or need the
// user.
func (o Outcome) Retryable() bool { return o == CheckFailed }

// Ends reports an outcome that ends the turn unverified at once, with no
// send-back: neither a pass nor a failure the model could fix.
func (o Outcome) Ends() bool { return o != CheckPassed && o != CheckFailed }

// HasBaseline reports an outcome a baseline run can classify (new or
// already failing); the others get none.
func (o Outcome) HasBaseline() bool { return o == CheckFailed }

// Fallback reports an outcome after which a narrowed run may fall back
// to the full suite (it ran and did not pass, or collected nothing).
func (o Outcome) Fallback() bool { return o == CheckFailed || o == CheckNoTests }

func (o Outcome) String() string {
	return [...]string{"passed", "failed", "not installed", "timed out", "could not run", "refused", "no tests"}[o]
}
