// Package scope says how much of a check's suite runs and why, as data:
// related or full, a reason from a closed set of codes with the files or
// setting it names, and what a related run took in beyond the import
// graph. Selection produces it, the check result carries it, and
// Reason.String is the one place it becomes the words of the evidence
// line and of the JSON report's reason.
package scope

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is how much of the suite ran, as the JSON and events spell it.
type Kind string

// The two kinds.
const (
	Related Kind = "related"
	Full    Kind = "full"
)

// Scope is a check's scope: the full suite or the related tests, and why.
type Scope struct {
	// Full is set when the whole suite runs.
	Full bool
	// Reason says why.
	Reason Reason
	// Widened lists, for a related run, why tests that no import reaches
	// were added ("./cmd/x: its tests run the project's programs"), and
	// for a full run that reaches every test package, those among them.
	// The scope's text names them.
	Widened []string
}

// Kind is Full or Related.
func (s Scope) Kind() Kind {
	if s.Full {
		return Full
	}
	return Related
}

// String is the reason as the evidence words it, with a related run's
// widenings: "related to your changes (including ./e2e: …)".
func (s Scope) String() string {
	text := s.Reason.String()
	if len(s.Widened) > 0 {
		text += " (including " + strings.Join(s.Widened, "; ") + ")"
	}
	return text
}

// Summary is the kind and the reason: "full (go.mod changed)".
func (s Scope) Summary() string {
	return string(s.Kind()) + " (" + s.String() + ")"
}

// Code names a reason. The set is closed: every code is rendered by
// Reason.String, and docs/verify.md lists them (the JSON's reason_code).
type Code string

// The reasons. Fields of Reason a code uses are named after it.
const (
	// RelatedToChange: the tests related to the change ran.
	RelatedToChange Code = "related"
	// Asked: the user asked for the full suite; Setting names how
	// ("--full", "--verify-full", `scope = "full"`, "/verify full").
	Asked Code = "asked"
	// NotGit: not a git repository, so every file counts as changed.
	NotGit Code = "not_git"
	// ChangeUnknown: the change set could not be worked out.
	ChangeUnknown Code = "change_unknown"
	// NoChange: no file changed (an answer that changed nothing).
	NoChange Code = "no_change"
	// ManyChanged: more than N files changed.
	ManyChanged Code = "many_changed"
	// SetupChanged: Files[0], shared setup (a manifest, a lockfile, a
	// conftest.py, a CI file), changed.
	SetupChanged Code = "setup_changed"
	// FastFullRun: a full run took Secs earlier this session.
	FastFullRun Code = "fast_full_run"
	// DependsOnChange: the project builds against a changed one; Detail is
	// how ("it builds against example.com/a from a/ (go.work), which changed").
	DependsOnChange Code = "depends_on_change"
	// ChangedOutside: Files[0] (and More others) changed outside the
	// check's folder, so nothing in it can be narrowed to.
	ChangedOutside Code = "changed_outside"
	// AlwaysFull: Setting's checks ("make", "configured", "team") always
	// run in full.
	AlwaysFull Code = "always_full"
	// NoRelatedMode: Setting ("mocha", "node's test runner") has no
	// related-test mode.
	NoRelatedMode Code = "no_related_mode"
	// UnknownScriptRunner: the npm test script runs nothing chanto can narrow.
	UnknownScriptRunner Code = "unknown_script_runner"
	// NotWorkedOut: the related tests could not be worked out; Detail is
	// the error, when it is shown.
	NotWorkedOut Code = "not_worked_out"
	// FewTestFiles: the project has N or fewer test files.
	FewTestFiles Code = "few_test_files"
	// NoRelatedTests: Files[0] has no related tests; with no file, the
	// change as a whole has none.
	NoRelatedTests Code = "no_related_tests"
	// NotCode: Files[0] is not code of the runner's language (Setting:
	// "Go", "Python", "Rust", "JavaScript or TypeScript").
	NotCode Code = "not_code"
	// InNoPackage: Files[0] is a Go file in no package of the module.
	InNoPackage Code = "in_no_package"
	// NoPackageChanged: no Go package changed.
	NoPackageChanged Code = "no_package_changed"
	// ReachesAll: the change reaches every Setting ("test package",
	// "package", "test file", "crate").
	ReachesAll Code = "reaches_all"
	// DeletedStillNamed: Files[0] was deleted and Files[1] still names it.
	DeletedStillNamed Code = "deleted_still_named"
	// UnimportedData: Files[0] is data no module imports, so the tests
	// that read it are unknown.
	UnimportedData Code = "unimported_data"
	// OnlyDeleted: only deleted files changed.
	OnlyDeleted Code = "only_deleted"
	// ManifestUnreadable: Files[0] (package.json) cannot be read.
	ManifestUnreadable Code = "manifest_unreadable"
	// ManifestInvalid: Files[0] (package.json) is not valid JSON.
	ManifestInvalid Code = "manifest_invalid"
	// ScriptNotSingle: the test script is not a single command.
	ScriptNotSingle Code = "script_not_single"
	// ScriptSetsEnv: the test script sets environment variables.
	ScriptSetsEnv Code = "script_sets_env"
	// NotDirect: the command does not run Setting (jest, vitest) directly.
	NotDirect Code = "not_direct"
	// ScriptNotPlain: the test script is not a plain Setting command.
	ScriptNotPlain Code = "script_not_plain"
	// OwnSubcommand: the Setting command has its own subcommand or filter.
	OwnSubcommand Code = "own_subcommand"
	// UnittestDiscovery: unittest discovers tests from Files[0], which
	// module names cannot narrow.
	UnittestDiscovery Code = "unittest_discovery"
	// NoModuleName: Files[0] has no importable module name.
	NoModuleName Code = "no_module_name"
	// FallbackMissing: the related run named a path or package that was
	// not found, so the full suite ran instead.
	FallbackMissing Code = "fallback_missing"
	// FallbackNoTests: the related run collected no tests, so the full
	// suite ran instead.
	FallbackNoTests Code = "fallback_no_tests"
	// OwnFullRun: the model's own run of the whole suite stood in.
	OwnFullRun Code = "own_full_run"
	// NamedByGoal: a goal named the test.
	NamedByGoal Code = "named_by_goal"
	// ConfiguredAsWritten: a configured command of a runner that narrows
	// is not a plain run of it, so it runs as written.
	ConfiguredAsWritten Code = "configured_as_written"
	// FailingOnly: a baseline ran only the tests that failed.
	FailingOnly Code = "failing_only"
	// RestOfSuite: the packages of a full go test run the change is not
	// in, run after the changed packages' own tests; Detail is why the
	// run was full.
	RestOfSuite Code = "rest_of_suite"
)

// Reason is why a check ran at its scope: a code and what it names. The
// zero Reason is no reason (a runner whose runs may be narrowed).
type Reason struct {
	Code Code
	// Files are the files it names, relative to the check's folder.
	Files []string
	// More counts changed files not named (ChangedOutside).
	More int
	// Setting is the flag, runner, language or unit the reason names.
	Setting string
	// Detail is text another part wrote: an error, how a project depends
	// on a changed one.
	Detail string
	// N is a count (ManyChanged, FewTestFiles).
	N int
	// Secs is a duration in seconds (FastFullRun).
	Secs float64
}

// Because is the reason code naming files.
func Because(c Code, files ...string) Reason { return Reason{Code: c, Files: files} }

// For is the reason code naming a setting, runner, language or unit.
func For(c Code, setting string, files ...string) Reason {
	return Reason{Code: c, Setting: setting, Files: files}
}

// Count is the reason code naming a number of files.
func Count(c Code, n int) Reason { return Reason{Code: c, N: n} }

// IsZero reports whether r is no reason.
func (r Reason) IsZero() bool { return r.Code == "" }

// file is the i-th named file, or "".
func (r Reason) file(i int) string {
	if i < len(r.Files) {
		return r.Files[i]
	}
	return ""
}

// String is the reason in the evidence's words.
func (r Reason) String() string {
	f := r.file(0)
	switch r.Code {
	case "":
		return ""
	case RelatedToChange:
		return "related to your changes"
	case Asked:
		if r.Setting == "" {
			return "--full"
		}
		return r.Setting
	case NotGit:
		return "not a git repository, so everything counts as changed"
	case ChangeUnknown:
		return "the change set is unknown"
	case NoChange:
		return "no files changed"
	case ManyChanged:
		return fmt.Sprintf("more than %d files changed", r.N)
	case SetupChanged:
		return f + " changed"
	case FastFullRun:
		return "a full run took " + formatSecs(r.Secs) + " earlier this session"
	case DependsOnChange:
		return r.Detail
	case ChangedOutside:
		if r.More > 0 {
			return fmt.Sprintf("%s and %d more changed outside its folder", f, r.More)
		}
		return f + " changed outside its folder"
	case AlwaysFull:
		return r.Setting + " checks always run in full"
	case NoRelatedMode:
		return r.Setting + " has no related-test mode"
	case UnknownScriptRunner:
		return "the npm test script has no known related-test mode"
	case NotWorkedOut:
		if r.Detail != "" {
			return "the related tests could not be worked out: " + r.Detail
		}
		return "the related tests could not be worked out"
	case FewTestFiles:
		return fmt.Sprintf("the project has %d or fewer test files", r.N)
	case NoRelatedTests:
		if f == "" {
			return "no related tests for the change"
		}
		return f + " has no related tests"
	case NotCode:
		return f + " is not " + r.Setting + " code"
	case InNoPackage:
		return f + " is in no package of the module"
	case NoPackageChanged:
		return "no Go package changed"
	case ReachesAll:
		return "the change reaches every " + r.Setting
	case RestOfSuite:
		return "the rest of the full suite (" + r.Detail + ")"
	case DeletedStillNamed:
		return f + " was deleted and " + r.file(1) + " still names it"
	case UnimportedData:
		return f + " is imported by no module, so the tests that read it are unknown"
	case OnlyDeleted:
		return "only deleted files changed, so no file is left to relate tests to"
	case ManifestUnreadable:
		return f + " cannot be read"
	case ManifestInvalid:
		return f + " is not valid JSON"
	case ScriptNotSingle:
		return "the test script is not a single command"
	case ScriptSetsEnv:
		return "the test script sets environment variables"
	case NotDirect:
		return "the command does not run " + r.Setting + " directly"
	case ScriptNotPlain:
		return "the test script is not a plain " + r.Setting + " command"
	case OwnSubcommand:
		return "the " + r.Setting + " command has its own subcommand or filter"
	case UnittestDiscovery:
		return "unittest discovers tests from " + f + ", which module names cannot narrow"
	case NoModuleName:
		return f + " has no importable module name"
	case FallbackMissing:
		return "the related run named a path or package that was not found"
	case FallbackNoTests:
		return "the related run collected no tests"
	case OwnFullRun:
		return "your own run covered the whole suite"
	case NamedByGoal:
		return "named by the goal"
	case FailingOnly:
		return "the failing tests only"
	case ConfiguredAsWritten:
		return "the configured " + r.Setting + " command runs as written: it " + r.Detail
	}
	return string(r.Code)
}

// formatSecs is "3.2s" under ten seconds, "12s" above.
func formatSecs(s float64) string {
	if s < 10 {
		return strconv.FormatFloat(float64(int(s*10+0.5))/10, 'f', -1, 64) + "s"
	}
	return strconv.Itoa(int(s+0.5)) + "s"
}
