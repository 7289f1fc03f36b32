package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/chanto-dev/chanto/internal/run"
)

// goSkipFailing runs the module's tests once with -json and returns a
// -skip pattern for the tests that already fail here (for example tests
// that expect "permission denied" and run as root), so that mutations are
// judged against a passing suite. "" when everything passes.
func (b *bench) goSkipFailing(ctx context.Context, p *project) (string, error) {
	var out bytes.Buffer
	args := append([]string{"go", "test", "-json", "-count=1"}, "./...")
	if _, err := b.runner.Run(ctx, run.Spec{Args: args, Dir: p.dir, Purpose: run.Check, Stdout: &out, Timeout: b.opts.timeout}); err != nil {
		return "", err
	}
	failed := map[string]bool{}
	for _, line := range bytes.Split(out.Bytes(), []byte("\n")) {
		var ev struct{ Action, Test string }
		if json.Unmarshal(line, &ev) == nil && ev.Action == "fail" && ev.Test != "" {
			failed[ev.Test] = true
		}
	}
	// Keep leaves: failing tests none of whose subtests failed.
	var leaves []string
	for name := range failed {
		leaf := true
		for other := range failed {
			if strings.HasPrefix(other, name+"/") {
				leaf = false
				break
			}
		}
		if leaf {
			leaves = append(leaves, name)
		}
	}
	if len(leaves) == 0 {
		return "", nil
	}
	sort.Strings(leaves)
	parents := map[string][]string{}
	for _, l := range leaves {
		top, sub, _ := strings.Cut(l, "/")
		parents[top] = append(parents[top], sub)
	}
	if len(parents) == 1 {
		for top, subs := range parents {
			if subs[0] == "" || strings.Contains(strings.Join(subs, ""), "/") {
				break
			}
			for i := range subs {
				subs[i] = regexp.QuoteMeta(subs[i])
			}
			return "^" + regexp.QuoteMeta(top) + "$/^(" + strings.Join(subs, "|") + ")$", nil
		}
	}
	var tops []string
	for top := range parents {
		tops = append(tops, regexp.QuoteMeta(top))
	}
	sort.Strings(tops)
	return "^(" + strings.Join(tops, "|") + ")$", nil
}
