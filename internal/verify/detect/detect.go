// Package detect finds the checks a project has: which test runner, which
// vet or lint step, where each runs (the nearest folder with a manifest
// above each changed file), and for Python which interpreter has pytest.
package detect

// Runner names a test runner chanto understands.
type Runner string

const (
	Go       Runner = "go"
	GoVet    Runner = "go-vet"
	Pytest   Runner = "pytest"
	Unittest Runner = "unittest"
	Cargo    Runner = "cargo"
	Jest     Runner = "jest"
	Vitest   Runner = "vitest"
	NodeTest Runner = "node-test"
	Mocha    Runner = "mocha"
	NPM      Runner = "npm" // npm test with a runner chanto does not know
	Make     Runner = "make"
	Custom   Runner = "custom" // configured by the user; always run in full
)

// Check is one command of a project.
type Check struct {
	// Command is the command line as shown to the user and run by bash.
	Command string
	// Args is the argv when the check was detected (nil for custom checks).
	Args []string
	// Dir is the absolute directory the check runs in (the project root).
	Dir string
	// Runner tells selection and failure parsing what produced the output.
	Runner Runner
	// Narrowable is true for test commands selection may narrow.
	Narrowable bool
}

// Project is a project root with its checks, in run order (cheapest first).
type Project struct {
	Root   string
	Checks []Check
}
