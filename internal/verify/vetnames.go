package verify

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// vetRepeat splits a go vet finding's ID into the finding and its count:
// "a.go: unreachable code (2)" is "a.go: unreachable code" and 2.
var vetRepeat = regexp.MustCompile(`^(.*) \((\d+)\)$`)

// vetName reads a finding's name: "a.go:12: unreachable code".
var vetName = regexp.MustCompile(`^(\S+\.go):(\d+): `)

// nameNewVetRepeats puts the right lines on new go vet findings that repeat
// an old one. Their IDs count repeats in file order, so a finding added
// above an old one of the same text takes the old one's count and the new
// ID the old one's line: right about how many are new, wrong about where.
// Among each file's equal findings, those on lines the change added or
// rewrote are the new ones; when they are exactly as many as the new IDs,
// the new IDs take their names (the IDs, and so the verdict, stay as they
// are), and the old IDs the names left over; newF and oldF, copies of
// last's failures, follow. Otherwise the names stay in file order.
func (e *engine) nameNewVetRepeats(last *CheckRun, newF, oldF []Failure) {
	if last.check.Runner != detect.GoVet || len(newF) == 0 {
		return
	}
	isNew := map[string]bool{}
	for _, f := range newF {
		isNew[f.ID] = true
	}
	groups := map[string][]int{} // finding → indexes into last.Failures, in file order
	for i, f := range last.Failures {
		base := f.ID
		if m := vetRepeat.FindStringSubmatch(f.ID); m != nil {
			base = m[1]
		}
		groups[base] = append(groups[base], i)
	}
	names := map[string]string{} // new ID → its name
	for _, idx := range groups {
		var newAt []int
		for _, i := range idx {
			if isNew[last.Failures[i].ID] {
				newAt = append(newAt, i)
			}
		}
		if len(newAt) == 0 || len(newAt) == len(idx) {
			continue // nothing old beside them to confuse
		}
		m := vetName.FindStringSubmatch(last.Failures[idx[0]].Name)
		if m == nil {
			continue
		}
		changed := e.changedLines(last.check.Dir, m[1])
		var onChanged []string
		for _, i := range idx {
			if vm := vetName.FindStringSubmatch(last.Failures[i].Name); vm != nil {
				if n, _ := strconv.Atoi(vm[2]); changed[n] {
					onChanged = append(onChanged, last.Failures[i].Name)
				}
			}
		}
		if len(onChanged) != len(newAt) {
			continue
		}
		for k, i := range newAt {
			names[last.Failures[i].ID] = onChanged[k]
		}
	}
	if len(names) == 0 {
		return
	}
	// The old IDs of a group take the names left over, in file order.
	for _, idx := range groups {
		var taken []string
		for _, i := range idx {
			if n, ok := names[last.Failures[i].ID]; ok {
				taken = append(taken, n)
			}
		}
		if len(taken) == 0 {
			continue
		}
		var left []string
		for _, i := range idx {
			if !slices.Contains(taken, last.Failures[i].Name) {
				left = append(left, last.Failures[i].Name)
			}
		}
		for _, i := range idx {
			if n, ok := names[last.Failures[i].ID]; ok {
				last.Failures[i].Name = n
			} else if len(left) > 0 {
				last.Failures[i].Name, left = left[0], left[1:]
			}
		}
	}
	byID := map[string]string{}
	for _, f := range last.Failures {
		byID[f.ID] = f.Name
	}
	for _, fs := range [][]Failure{newF, oldF} {
		for k := range fs {
			if n, ok := byID[fs[k].ID]; ok {
				fs[k].Name = n
			}
		}
	}
}

// changedLines are the line numbers of file (relative to the check folder
// dir) that the change added or rewrote, against the base; nil when
// either side cannot be read.
func (e *engine) changedLines(dir, file string) map[int]bool {
	rel := path.Join(e.relDir(dir), filepath.ToSlash(file))
	cur, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil || e.src == nil {
		return nil
	}
	base, err := e.src.ReadFile(rel)
	if err != nil {
		base = nil // a new file: every line is the change's
	}
	out := map[int]bool{}
	line, inHunk := 0, false
	for _, l := range bytes.Split(diff.Diff("base", base, "cur", cur), []byte("\n")) {
		switch {
		case bytes.HasPrefix(l, []byte("@@")):
			// @@ -a,b +c,d @@
			inHunk = true
			fields := strings.Fields(string(l))
			if len(fields) >= 3 {
				start, _, _ := strings.Cut(strings.TrimPrefix(fields[2], "+"), ",")
				line, _ = strconv.Atoi(start)
			}
		case !inHunk: // the --- and +++ header
		case bytes.HasPrefix(l, []byte("+")):
			out[line] = true
			line++
		case bytes.HasPrefix(l, []byte(" ")):
			line++
		}
	}
	return out
}
