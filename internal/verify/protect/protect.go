// Package protect detects test tampering: it compares the test files of a
// base tree against the current tree, per language from syntax trees, and
// reports removed, weakened, skipped or otherwise changed tests and a
// weakened harness (DESIGN §6).
package protect

// Kind classifies a violation.
type Kind string

// Violation is one finding, actionable by a person and a model.
type Violation struct {
	File    string `json:"file"`
	Test    string `json:"test,omitempty"`
	Line    int    `json:"line,omitempty"`
	Kind    Kind   `json:"kind"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	Message string `json:"message"`
}

// Source reads a file of a tree by slash-separated path relative to the
// project root; a missing file returns an error wrapping fs.ErrNotExist.
type Source interface {
	ReadFile(path string) ([]byte, error)
}
