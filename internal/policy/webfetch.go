package policy

import (
	"encoding/json"
	"net/url"
	"strings"
)

// decideFetch rules on a web_fetch call by the URL's host:
// WebFetch(domain:HOST) rules, "*." wildcards for subdomains. Without a
// rule a fetch asks (bypass allows it): it sends a request out of the
// machine. The network setting is the tool's own check, apart from this.
func (p *Policy) decideFetch(input json.RawMessage) outcome {
	var in struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(input, &in)
	u, err := url.Parse(strings.TrimSpace(in.URL))
	host := ""
	if err == nil {
		host = strings.ToLower(u.Hostname())
	}
	subject := in.URL
	if host == "" {
		return outcome{verdict: Ask, reason: "web_fetch without a valid URL", rule: "mode:" + p.mode, subject: subject}
	}
	match := func(r rule) bool { return r.pattern == "" || wildcard(r.pattern, host) }
	suggest := "WebFetch(domain:" + host + ")"
	if r, ok := firstMatch(p.deny, "WebFetch", match); ok {
		return outcome{verdict: Deny, reason: "web_fetch refused: " + host + " matches deny rule " + r.text, rule: r.text, subject: subject}
	}
	if r, ok := firstMatch(p.ask, "WebFetch", match); ok {
		return outcome{verdict: Ask, reason: "fetching from " + host + " needs approval (rule " + r.text + ")", rule: r.text, subject: subject, suggest: suggest}
	}
	if p.mode == ModeBypass {
		return outcome{verdict: Allow, reason: "bypass mode", rule: "mode:bypass", subject: subject}
	}
	if r, ok := firstMatch(p.allow, "WebFetch", match); ok {
		return outcome{verdict: Allow, reason: "allowed by " + r.text, rule: r.text, explicit: true, subject: subject}
	}
	return outcome{verdict: Ask, reason: "fetching from " + host + " needs approval", rule: "mode:" + p.mode, subject: subject, suggest: suggest}
}
