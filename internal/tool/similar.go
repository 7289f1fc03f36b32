package tool

import (
	"fmt"
	"sort"
	"strings"
)

// noMatch explains a failed edit: whether the text matches once
// whitespace is ignored, and otherwise which lines come closest.
func noMatch(name, content, old string) string {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	old = strings.ReplaceAll(old, "\r\n", "\n")
	lines := strings.Split(content, "\n")
	want := strings.Split(strings.Trim(old, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "old_string was not found in %s.", name)
	if at := whitespaceMatch(lines, want); at > 0 {
		fmt.Fprintf(&b, " It matches line %d if whitespace (indentation, tabs vs spaces, trailing blanks) is ignored; copy the exact text:\n", at)
		b.WriteString(numbered(lines, at, at+len(want)-1))
		return strings.TrimSuffix(b.String(), "\n")
	}
	starts := nearest(lines, want, 3)
	if len(starts) == 0 {
		return b.String() + " Read the file again and copy the text exactly."
	}
	b.WriteString(" The closest lines are:\n")
	for i, s := range starts {
		if i > 0 {
			b.WriteString("  ---\n")
		}
		b.WriteString(numbered(lines, s, min(len(lines), s+len(want)-1)))
	}
	if d := firstDifference(lines, want, starts[0]); d != "" {
		b.WriteString(d)
	}
	b.WriteString("Read the file again and copy the text exactly.")
	return b.String()
}

// whitespaceMatch returns the 1-based line where want matches when every
// run of whitespace is ignored, or 0.
func whitespaceMatch(lines, want []string) int {
	norm := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for i := 0; i+len(want) <= len(lines); i++ {
		ok := true
		for j, w := range want {
			if norm(lines[i+j]) != norm(w) {
				ok = false
				break
			}
		}
		if ok {
			return i + 1
		}
	}
	return 0
}

// nearest ranks block starts by the similarity of the file's lines to the
// wanted lines and returns up to k 1-based starts, best first.
func nearest(lines, want []string, k int) []int {
	anchor := 0
	for i, w := range want {
		if strings.TrimSpace(w) != "" {
			anchor = i
			break
		}
	}
	type cand struct {
		start int
		score float64
	}
	var cands []cand
	for i := range lines {
		start := i - anchor
		if start < 0 || start+len(want) > len(lines)+1 {
			continue
		}
		s := similarity(lines[i], want[anchor])
		if s < 0.5 {
			continue
		}
		cands = append(cands, cand{start + 1, s})
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	var out []int
	for _, c := range cands[:min(k, len(cands))] {
		out = append(out, c.start)
	}
	return out
}

// similarity is 1 minus the normalized edit distance of the trimmed lines.
func similarity(a, b string) float64 {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	ra, rb := []rune(a), []rune(b)
	ra, rb = ra[:min(len(ra), 200)], rb[:min(len(rb), 200)]
	longest := max(len(ra), len(rb))
	if longest == 0 {
		return 1
	}
	return 1 - float64(levenshtein(ra, rb))/float64(longest)
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// numbered renders lines[from..to] (1-based, inclusive) like read does.
func numbered(lines []string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to && i <= len(lines); i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, lines[i-1])
	}
	return b.String()
}

// firstDifference names the first line where the best candidate block
// differs from old_string.
func firstDifference(lines, want []string, start int) string {
	for j, w := range want {
		n := start + j
		if n > len(lines) {
			return fmt.Sprintf("old_string runs past the end of the file at line %d.\n", n)
		}
		if lines[n-1] != w {
			return fmt.Sprintf("First difference at line %d: the file has %q, old_string has %q.\n", n, lines[n-1], w)
		}
	}
	return ""
}
