package protect

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// isGoldenFile reports whether p holds expected output that tests compare
// against: jest/vitest/syrupy/insta snapshots and golden files. Rewriting
// one to match broken output passes the test as surely as editing it.
func isGoldenFile(p string) bool {
	base := path.Base(p)
	switch {
	case strings.Contains("/"+p, "/__snapshots__/"), strings.HasSuffix(base, ".snap"), strings.HasSuffix(base, ".golden"),
		strings.HasSuffix(base, ".expected"), strings.Contains(base, ".approved."):
		return true
	}
	return false
}

// checkGolden reports changed or removed entries of an existing golden
// file; new files and new snapshot entries are new expectations and fine.
func checkGolden(p string, b, a []byte) []Violation {
	if b == nil || a == nil {
		return nil
	}
	bs, as := string(normalizeNewlines(b)), string(normalizeNewlines(a))
	if bs == as {
		return nil
	}
	be, ae := snapEntries(bs), snapEntries(as)
	if be == nil || ae == nil {
		l := firstDiffLine(bs, as)
		return []Violation{{File: p, Line: l, Kind: ExpectedChanged, Before: lineAt(bs, l), After: lineAt(as, l),
			Message: "golden file changed: the expected output was rewritten; " + Instruction}}
	}
	var out []Violation
	for _, name := range sortedKeysStr(be) {
		cur, ok := ae[name]
		if ok && cur == be[name] {
			continue
		}
		what := "changed"
		if !ok {
			what = "removed"
		}
		out = append(out, Violation{File: p, Test: name, Line: lineOf(a, name), Kind: ExpectedChanged, Before: firstLineOf(strings.TrimSpace(be[name])), After: firstLineOf(strings.TrimSpace(cur)),
			Message: fmt.Sprintf("snapshot %s: the expected output was rewritten; %s", what, Instruction)})
	}
	return out
}

// snapEntries splits a jest-style snapshot file into named entries; nil
// when the file is not in that format.
func snapEntries(s string) map[string]string {
	if !strings.Contains(s, "exports[`") {
		return nil
	}
	out := map[string]string{}
	for _, part := range strings.Split(s, "exports[`")[1:] {
		i := strings.Index(part, "`]")
		if i < 0 {
			return nil
		}
		out[part[:i]] = strings.TrimSpace(part[i:])
	}
	return out
}

func sortedKeysStr(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	n := len(al)
	if len(bl) < n {
		n = len(bl)
	}
	return n + 1
}

func lineAt(s string, n int) string {
	ls := strings.Split(s, "\n")
	if n <= 0 || n > len(ls) {
		return ""
	}
	return strings.TrimSpace(ls[n-1])
}
