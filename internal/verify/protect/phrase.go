package protect

import (
	"strings"
	"unicode/utf8"
)

// phrases are the short words for each kind on the evidence line.
var phrases = map[Kind]string{
	TestFileDeleted:        "test file deleted",
	RenamedOutOfCollection: "renamed out of collection",
	TestRemoved:            "test removed",
	TestCommentedOut:       "test commented out",
	AssertionRemoved:       "assertion removed",
	AssertionLoosened:      "assertion loosened",
	ExpectedChanged:        "assertion changed",
	TableRowsChanged:       "table rows changed",
	ExpectationInverted:    "expectation inverted",
	SkipAdded:              "skip added",
	EarlyExit:              "early exit added",
	BodyChanged:            "test body changed",
	TestStrengthened:       "test strengthened (needs --allow-test-edits)",
	HarnessWeakened:        "test harness weakened",
	TestEnvCheck:           "code checks whether it runs under test",
	Unparsable:             "test file no longer parses",
}

// Phrase is k in a few words for people ("assertion changed").
func (k Kind) Phrase() string {
	if p, ok := phrases[k]; ok {
		return p
	}
	return strings.ReplaceAll(string(k), "_", " ")
}

// Short names v on one line: file, test and what happened
// ("p06/p06_test.go: TestV06: assertion changed"). What happened is the
// first clause of the message, which is more exact than the kind (an
// assertion changed is reported as a changed body), or the kind's phrase.
func (v Violation) Short() string {
	s := v.File
	if v.Test != "" {
		s += ": " + v.Test
	}
	what, _, _ := strings.Cut(v.Message, ";")
	what = strings.TrimSpace(strings.ReplaceAll(what, "\n", " "))
	if what == "" || utf8.RuneCountInString(what) > 80 {
		what = v.Kind.Phrase()
	}
	return s + ": " + what
}
