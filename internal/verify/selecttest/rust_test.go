package selecttest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chanto-dev/chanto/internal/run"
	"github.com/chanto-dev/chanto/internal/verify/detect"
)

// rustWorkspace has core ← mid ← app (app through a dev-dependency) and
// an unrelated crate, with enough integration tests to be narrowed.
func rustWorkspace(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"Cargo.toml":              "[workspace]\nmembers = [\"core\", \"mid\", \"app\", \"other\"]\nresolver = \"2\"\n",
		"core/Cargo.toml":         "[package]\nname = \"core_x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"core/src/lib.rs":         "pub fn one() -> i32 { 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { assert_eq!(super::one(), 1); }\n}\n",
		"mid/Cargo.toml":          "[package]\nname = \"mid\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ncore_x = { path = \"../core\" }\n",
		"mid/src/lib.rs":          "pub fn two() -> i32 { core_x::one() + 1 }\n",
		"app/Cargo.toml":          "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dev-dependencies]\nmid = { path = \"../mid\" }\n",
		"app/src/main.rs":         "fn main() {}\n",
		"other/Cargo.toml":        "[package]\nname = \"other\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"other/src/lib.rs":        "pub fn three() -> i32 { 3 }\n",
		"other/data/table.txt":    "1 2 3\n",
		"app/tests/smoke.rs":      "#[test]\nfn smoke() { assert_eq!(mid::two(), 2); }\n",
		"app/tests/common/mod.rs": "pub fn helper() {}\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("other/tests/t%02d.rs", i)] = "#[test]\nfn t() {}\n"
	}
	writeTree(t, dir, files)
	return dir
}

func cargoCheck(dir string) detect.Check {
	return detect.Check{Command: "cargo test", Args: []string{"cargo", "test"}, Dir: dir, Runner: detect.Cargo, Narrowable: true}
}

func TestCargoSelection(t *testing.T) {
	dir := rustWorkspace(t)
	cases := []struct {
		name    string
		changed []string
		command string
		reason  string
	}{
		{"crate and its reverse dependents", []string{"core/src/lib.rs"}, "cargo test -p app -p core_x -p mid", ""},
		{"leaf crate", []string{"other/src/lib.rs"}, "cargo test -p other", ""},
		{"integration test file only", []string{"other/tests/t03.rs", "other/tests/t01.rs"}, "cargo test -p other --test t01 --test t03", ""},
		{"integration test plus code elsewhere", []string{"other/tests/t03.rs", "mid/src/lib.rs"}, "cargo test -p app -p mid -p other", ""},
		{"shared test helper is the crate's code", []string{"app/tests/common/mod.rs"}, "cargo test -p app", ""},
		{"Cargo.toml", []string{"mid/Cargo.toml"}, "", "mid/Cargo.toml changed"},
		{"build.rs", []string{"core/build.rs"}, "", "core/build.rs changed"},
		{"Cargo.lock", []string{"Cargo.lock"}, "", "Cargo.lock changed"},
		{"not Rust", []string{"other/data/table.txt"}, "", "other/data/table.txt is not Rust code"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sel := mustSelect(t, Input{Check: cargoCheck(dir), Changed: tc.changed})
			if tc.command == "" {
				wantFull(t, sel, tc.reason)
				return
			}
			wantNarrow(t, sel, tc.command)
		})
	}
}

func TestCargoSmallProjectRunsFull(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"Cargo.toml": "[package]\nname = \"solo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": "#[test]\nfn t() {}\n",
	})
	sel := mustSelect(t, Input{Check: cargoCheck(dir), Changed: []string{"src/lib.rs"}})
	wantFull(t, sel, "the project has 20 or fewer test files")
}

// A crate in no workspace is selected without cargo metadata, as cargo
// metadata's crates select it; a change under tests/ still asks cargo.
func TestCargoSingleCrateNeedsNoMetadata(t *testing.T) {
	files := map[string]string{
		"Cargo.toml":   "[package]\nname = \"solo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs":   "pub fn one() -> i32 { 1 }\n",
		"src/parse.rs": "pub fn two() -> i32 { 2 }\n",
		"README.md":    "solo\n",
	}
	for i := 0; i < 21; i++ {
		files[fmt.Sprintf("tests/t%02d.rs", i)] = "#[test]\nfn t() {}\n"
	}
	big := t.TempDir()
	writeTree(t, big, files)
	small := t.TempDir()
	writeTree(t, small, map[string]string{"Cargo.toml": files["Cargo.toml"], "src/lib.rs": "#[test]\nfn t() {}\n", "README.md": "solo\n"})
	for _, tc := range []struct {
		dir     string
		changed []string
		reason  string
	}{
		{big, []string{"src/parse.rs"}, "the change reaches every crate"},
		{big, []string{"src/lib.rs", "README.md"}, "README.md is not Rust code"},
		{small, []string{"src/lib.rs"}, "the project has 20 or fewer test files"},
		{small, []string{"README.md"}, "the project has 20 or fewer test files"},
	} {
		in := Input{Check: cargoCheck(tc.dir), Changed: tc.changed}
		fast, ok := singleCrate(in)
		if !ok {
			t.Fatalf("%v: not answered without cargo metadata", tc.changed)
		}
		wantFull(t, fast, tc.reason)
		slow, err := selectCrates(t.Context(), &run.Runner{}, in)
		if err != nil {
			t.Fatal(err)
		}
		if slow.Full != fast.Full || slow.Reason.String() != fast.Reason.String() || slow.Command != fast.Command {
			t.Errorf("%v: without metadata %v %q (%s); with it %v %q (%s)", tc.changed, fast.Full, fast.Command, fast.Reason, slow.Full, slow.Command, slow.Reason)
		}
	}
	if _, ok := singleCrate(Input{Check: cargoCheck(big), Changed: []string{"tests/t03.rs"}}); ok {
		t.Error("a change under tests/ was answered without cargo metadata")
	}
	wantNarrow(t, mustSelect(t, Input{Check: cargoCheck(big), Changed: []string{"tests/t03.rs"}}), "cargo test -p solo --test t03")
	ws := rustWorkspace(t)
	for _, d := range []string{ws, ws + "/other"} {
		if _, ok := singleCrate(Input{Check: cargoCheck(d), Changed: []string{"src/lib.rs"}}); ok {
			t.Errorf("%s: a workspace or its member was answered without cargo metadata", d)
		}
	}
	withTests := t.TempDir()
	writeTree(t, withTests, map[string]string{"Cargo.toml": files["Cargo.toml"] + "\n[[test]]\nname = \"x\"\npath = \"src/x.rs\"\n", "src/lib.rs": ""})
	if _, ok := singleCrate(Input{Check: cargoCheck(withTests), Changed: []string{"src/x.rs"}}); ok {
		t.Error("a crate declaring [[test]] targets was answered without cargo metadata")
	}
}

// The narrowed command is one cargo accepts: it runs the selected
// integration tests offline.
func TestCargoNarrowedCommandRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a crate")
	}
	dir := rustWorkspace(t)
	sel := mustSelect(t, Input{Check: cargoCheck(dir), Changed: []string{"other/tests/t01.rs"}})
	res, err := (&run.Runner{}).Run(t.Context(), run.Spec{Args: append(sel.Args, "--offline", "-q"), Dir: dir,
		Env: []string{"CARGO_TARGET_DIR=" + t.TempDir()}, Purpose: run.Check})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !strings.Contains(string(res.Output), "1 passed") {
		t.Fatalf("%s: exit %d\n%s", sel.Command, res.ExitCode, res.Output)
	}
}

// A file in tests/ is a test target of its own and can also be a module of
// other targets (mod util; #[path = ...]); a change to it runs those too.
func TestCargoSharedTestModule(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"Cargo.toml":         "[package]\nname = \"solo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs":         "pub fn three() -> i32 { 3 }\n",
		"tests/util.rs":      "pub fn expected() -> i32 { 3 }\n",
		"tests/uses_util.rs": "mod util;\n#[test]\nfn t() { assert_eq!(solo::three(), util::expected()); }\n",
		"tests/deep.rs":      "#[path = \"helpers.rs\"]\nmod helpers;\n#[test]\nfn t() {}\n",
		"tests/helpers.rs":   "#[allow(dead_code)]\n#[path = \"util.rs\"]\nmod util;\n",
		"tests/myutil.rs":    "#[test]\nfn t() {}\n",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("tests/t%02d.rs", i)] = "#[test]\nfn t() {}\n"
	}
	writeTree(t, dir, files)
	cases := []struct {
		changed []string
		command string
	}{
		{[]string{"tests/util.rs", "tests/t05.rs"}, "cargo test -p solo --test deep --test helpers --test t05 --test uses_util --test util"},
		{[]string{"tests/uses_util.rs"}, "cargo test -p solo --test uses_util"},
		{[]string{"tests/myutil.rs"}, "cargo test -p solo --test myutil"},
	}
	for _, tc := range cases {
		sel := mustSelect(t, Input{Check: cargoCheck(dir), Changed: tc.changed})
		wantNarrow(t, sel, tc.command)
	}
}

// cargo refuses --test NAME for a target whose required-features are off,
// and runs one with test = false, while the full suite skips both: a change
// to either runs its crate, and that command passes.
func TestCargoTestWithRequiredFeatures(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"Cargo.toml":                "[workspace]\nmembers = [\"feat\", \"other\"]\nresolver = \"2\"\n",
		"feat/Cargo.toml":           "[package]\nname = \"feat\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\nextra = []\n\n[[test]]\nname = \"needs_extra\"\nrequired-features = [\"extra\"]\n\n[[test]]\nname = \"off\"\ntest = false\n",
		"feat/tests/off.rs":         "#[test]\nfn off() { assert_eq!(1, 2); }\n",
		"feat/src/lib.rs":           "pub fn one() -> i32 { 1 }\n",
		"feat/tests/plain.rs":       "#[test]\nfn plain() { assert_eq!(feat::one(), 1); }\n",
		"feat/tests/needs_extra.rs": "#[test]\nfn x() { assert_eq!(feat::one(), 1); }\n",
		"other/Cargo.toml":          "[package]\nname = \"other\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"other/src/lib.rs":          "",
	}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("other/tests/t%02d.rs", i)] = "#[test]\nfn t() {}\n"
	}
	writeTree(t, dir, files)
	sel := mustSelect(t, Input{Check: cargoCheck(dir), Changed: []string{"feat/tests/needs_extra.rs"}})
	wantNarrow(t, sel, "cargo test -p feat")
	sel = mustSelect(t, Input{Check: cargoCheck(dir), Changed: []string{"feat/tests/plain.rs"}})
	wantNarrow(t, sel, "cargo test -p feat --test plain")
	sel = mustSelect(t, Input{Check: cargoCheck(dir), Changed: []string{"feat/tests/off.rs", "feat/tests/plain.rs"}})
	wantNarrow(t, sel, "cargo test -p feat")
	if testing.Short() {
		return
	}
	res, err := (&run.Runner{}).Run(t.Context(), run.Spec{Args: append(sel.Args, "--offline", "-q"), Dir: dir,
		Env: []string{"CARGO_TARGET_DIR=" + t.TempDir()}, Purpose: run.Check})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("%s: exit %d\n%s", sel.Command, res.ExitCode, res.Output)
	}
}
