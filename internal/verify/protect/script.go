package protect

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// Script tests are testscript archives under a testdata directory: a Go
// test (rogpeppe/go-internal/testscript, the go command's own script tests
// and the many projects that copy them) runs the archive's leading comment
// line by line, and its files are the inputs and the expected output that
// cmp and stdout compare against. Each archive is a test, named by its file
// name; a removed or rewritten command or file is a weakened test however
// the Go harness around it reads.

// scriptCommands are testscript's own commands; a .txt file under
// testdata counts as a script only when it uses one.
var scriptCommands = map[string]bool{
	"cd": true, "chmod": true, "cmp": true, "cmpenv": true, "cp": true, "env": true, "exec": true,
	"exists": true, "grep": true, "mkdir": true, "mv": true, "rm": true, "skip": true, "stderr": true,
	"stdin": true, "stdout": true, "stop": true, "symlink": true, "unquote": true, "wait": true,
	"kill": true, "ttyin": true, "ttyout": true, "go": true, "cat": true, "echo": true,
}

// assertionCommands compare or test something; removing one removes an
// assertion, not a step.
var assertionCommands = map[string]bool{
	"cmp": true, "cmpenv": true, "exists": true, "grep": true, "stderr": true, "stdout": true, "ttyout": true,
}

// isScriptPath reports whether p is where a script test lives: a .txtar or
// .txt file in or below a testdata directory.
func isScriptPath(p string) bool {
	if !strings.Contains("/"+p, "/testdata/") {
		return false
	}
	ext := path.Ext(p)
	return ext == ".txtar" || ext == ".txt"
}

// isScriptTest reports whether p, with base content b and current content
// a (nil when absent), is a script test.
func isScriptTest(p string, b, a []byte) bool {
	if !isScriptPath(p) {
		return false
	}
	if path.Ext(p) == ".txtar" {
		return true
	}
	return looksLikeScript(b) || looksLikeScript(a)
}

// looksLikeScript reports whether data is a txtar archive that holds at
// least one file and whose comment uses a testscript command (the others
// may be the harness's own).
func looksLikeScript(data []byte) bool {
	if data == nil {
		return false
	}
	ar := txtar.Parse(data)
	if len(ar.Files) == 0 {
		return false
	}
	for _, l := range scriptLines(ar.Comment) {
		if _, word, _ := scriptCommand(l.text); scriptCommands[word] {
			return true
		}
	}
	return false
}

type scriptLine struct {
	text string // trimmed
	line int    // 1-based, in the file
}

// scriptLines are the command lines of a script: not blank, not comments.
func scriptLines(comment []byte) []scriptLine {
	var out []scriptLine
	for i, l := range strings.Split(string(comment), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, scriptLine{text: l, line: i + 1})
	}
	return out
}

// scriptCommand splits a script line into its conditions ("[short]",
// "[!windows]"), the command word and whether it is negated ("! exec" or
// "? exec").
func scriptCommand(l string) (conds []string, word string, negated bool) {
	fields := strings.Fields(l)
	for len(fields) > 0 && strings.HasPrefix(fields[0], "[") {
		conds = append(conds, fields[0])
		fields = fields[1:]
	}
	if len(fields) > 0 && (fields[0] == "!" || fields[0] == "?") {
		negated = true
		fields = fields[1:]
	}
	if len(fields) > 0 {
		word = fields[0]
	}
	return conds, word, negated
}

// checkScript reports the weakening of script test p between base b and
// current a; inBase and inCur say whether each exists.
func checkScript(p string, b, a []byte, inBase, inCur bool) []Violation {
	name := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if !inBase {
		return nil // a new script is a new test
	}
	ba := txtar.Parse(normalizeNewlines(b))
	if !inCur {
		first := ""
		if ls := scriptLines(ba.Comment); len(ls) > 0 {
			first = ls[0].text
		}
		return []Violation{{File: p, Test: name, Line: 1, Kind: TestFileDeleted, Before: first,
			Message: fmt.Sprintf("script test deleted (%s in its script); %s", plural(len(scriptLines(ba.Comment)), "command"), Instruction)}}
	}
	aa := txtar.Parse(normalizeNewlines(a))
	var out []Violation
	out = append(out, scriptChanges(p, name, ba.Comment, aa.Comment)...)
	afiles := map[string][]byte{}
	for _, f := range aa.Files {
		afiles[f.Name] = f.Data
	}
	for _, f := range ba.Files {
		cur, ok := afiles[f.Name]
		switch {
		case !ok:
			out = append(out, Violation{File: p, Test: name, Line: 1, Kind: ExpectedChanged, Before: "-- " + f.Name + " --",
				Message: fmt.Sprintf("file %s removed from the script test; %s", f.Name, Instruction)})
		case !bytes.Equal(cur, f.Data):
			l := fileLine(a, f.Name) + firstDiffLine(string(f.Data), string(cur))
			out = append(out, Violation{File: p, Test: name, Line: l, Kind: ExpectedChanged,
				Before: lineAt(string(f.Data), firstDiffLine(string(f.Data), string(cur))), After: lineAt(string(cur), firstDiffLine(string(f.Data), string(cur))),
				Message: fmt.Sprintf("file %s of the script test rewritten (its input or the expected output); %s", f.Name, Instruction)})
		}
	}
	return out
}

// scriptChanges compares the command lines of two scripts as multisets: a
// command of the base missing from the current script was removed or
// changed; a new skip or stop ends the test early. Added commands are new
// checks and fine.
func scriptChanges(p, name string, bc, ac []byte) []Violation {
	bl, al := scriptLines(bc), scriptLines(ac)
	// added counts the current lines the base lacks; kept are the base
	// lines the current script still has.
	added := map[string]int{}
	for _, l := range al {
		added[l.text]++
	}
	kept := map[*scriptLine]bool{}
	for i := range bl {
		if added[bl[i].text] > 0 {
			added[bl[i].text]--
			kept[&bl[i]] = true
		}
	}
	var out []Violation
	for i := range bl {
		l := bl[i]
		if kept[&bl[i]] {
			continue
		}
		conds, word, neg := scriptCommand(l.text)
		kind, what := BodyChanged, "script command removed or changed"
		if assertionCommands[word] {
			kind, what = AssertionRemoved, "script assertion removed or changed"
		}
		if inv := inverted(l.text, conds, word, neg, added); inv != "" {
			kind, what = ExpectationInverted, "script expectation inverted"
		}
		after := strings.TrimSpace(lineAt(string(ac), l.line))
		if added[after] == 0 {
			after = "" // the line there now was there before: a removal
		}
		out = append(out, Violation{File: p, Test: name, Line: l.line, Kind: kind, Before: l.text, After: after,
			Message: fmt.Sprintf("%s; %s", what, Instruction)})
	}
	for _, l := range al {
		if added[l.text] == 0 {
			continue
		}
		added[l.text]--
		_, word, _ := scriptCommand(l.text)
		switch word {
		case "skip":
			out = append(out, Violation{File: p, Test: name, Line: l.line, Kind: SkipAdded, After: l.text,
				Message: "skip added to the script test; " + Instruction})
		case "stop":
			out = append(out, Violation{File: p, Test: name, Line: l.line, Kind: EarlyExit, After: l.text,
				Message: "stop added: the script test ends before its checks; " + Instruction})
		}
	}
	return out
}

// inverted reports the added line that is removed line l with its
// negation flipped, if the change added one.
func inverted(l string, conds []string, word string, neg bool, added map[string]int) string {
	for a, n := range added {
		if n == 0 || a == l {
			continue
		}
		ac, aw, an := scriptCommand(a)
		if aw == word && an != neg && strings.Join(ac, " ") == strings.Join(conds, " ") &&
			strings.Join(strings.Fields(strings.TrimLeft(stripConds(a), "!? ")), " ") == strings.Join(strings.Fields(strings.TrimLeft(stripConds(l), "!? ")), " ") {
			return a
		}
	}
	return ""
}

func stripConds(l string) string {
	l = strings.TrimSpace(l)
	for strings.HasPrefix(l, "[") {
		i := strings.Index(l, "]")
		if i < 0 {
			break
		}
		l = strings.TrimSpace(l[i+1:])
	}
	return l
}

// fileLine is the line of the "-- name --" marker in data.
func fileLine(data []byte, name string) int {
	for i, l := range strings.Split(string(normalizeNewlines(data)), "\n") {
		if strings.TrimSpace(l) == "-- "+name+" --" {
			return i + 1
		}
	}
	return 1
}

// scriptMoved reports whether deleted script p reappears byte for byte as a
// script the same change added: a rename the harness still runs.
func (c *comparer) scriptMoved(p string, files []string) bool {
	b, ok, err := read(c.base, p)
	if err != nil || !ok {
		return false
	}
	for _, f := range files {
		if f == p || !isScriptPath(f) {
			continue
		}
		if _, inBase, err := read(c.base, f); err != nil || inBase {
			continue
		}
		if a, ok, err := read(c.cur, f); err == nil && ok && bytes.Equal(normalizeNewlines(a), normalizeNewlines(b)) {
			return true
		}
	}
	return false
}
