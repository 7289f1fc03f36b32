package verify

import (
	"encoding/json"

	"github.com/chanto-dev/chanto/internal/verify/scope"
)

// MarshalJSON writes a check with its scope spelled out: scope (related
// or full), reason (the evidence's words, a related run's widenings
// included), reason_code and what the reason names (reason_files,
// reason_setting), widened, and full_retry (the reason, when a related run
// could not run and the full suite ran instead). docs/verify.md lists the
// fields and the codes.
func (c CheckRun) MarshalJSON() ([]byte, error) {
	type fields CheckRun // the struct's own fields, without this method
	out := struct {
		fields
		Scope         scope.Kind `json:"scope"`
		Reason        string     `json:"reason"`
		ReasonCode    scope.Code `json:"reason_code"`
		ReasonFiles   []string   `json:"reason_files,omitempty"`
		ReasonSetting string     `json:"reason_setting,omitempty"`
		Widened       []string   `json:"widened,omitempty"`
		FullRetry     string     `json:"full_retry,omitempty"`
	}{fields: fields(c), Scope: c.Scope.Kind(), Reason: c.Scope.String(), ReasonCode: c.Scope.Reason.Code,
		ReasonFiles: c.Scope.Reason.Files, ReasonSetting: c.Scope.Reason.Setting, Widened: c.Scope.Widened}
	if c.FullRetry {
		out.FullRetry = c.Scope.Reason.String()
	}
	return json.Marshal(out)
}
