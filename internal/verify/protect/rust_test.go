package protect

import (
	"strings"
	"testing"
)

const rustBase = `pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

fn twice(x: i32) -> i32 {
    x * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 3), 5);
        assert_eq!(add(-1, 1), 0);
    }

    #[test]
    fn doubles() {
        let v = twice(2);
        assert!(v == 4, "twice(2) = {}", v);
    }

    #[test]
    fn parses() {
        let r: Result<i32, _> = "12".parse();
        assert!(r.is_ok());
        assert_eq!(r.unwrap(), 12);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflows() {
        add(i32::MAX, 1);
    }
}
`

func TestRustEdits(t *testing.T) {
	f := "src/lib.rs"
	base := rustBase
	cases := []edit{
		{"same", f, base, base, ""},
		{"new test", f, base, sub(base, "    #[test]\n    fn adds() {", "    #[test]\n    fn adds_zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n\n    #[test]\n    fn adds() {"), ""},
		{"non-test code", f, base, sub(base, "    a + b\n", "    b + a\n"), ""},
		{"generic call, value changed", f, sub(base, "assert_eq!(add(2, 3), 5);", "assert_eq!(add::<i32, i32>(2, 3), 5);"), sub(base, "assert_eq!(add(2, 3), 5);", "assert_eq!(add::<i32, i32>(2, 3), 6);"), BodyChanged},
		{"message added", f, base, sub(base, "        assert_eq!(add(2, 3), 5);", "        assert_eq!(add(2, 3), 5, \"two and three make {}\", 5);"), ""},
		{"reformat and comment", f, base, sub(base, "        assert_eq!(add(2, 3), 5);", "        // two and three\n        assert_eq!(\n            add(2, 3),\n            5,\n        );"), ""},
		{"crlf", f, base, strings.ReplaceAll(base, "\n", "\r\n"), ""},
		{"helper renamed", f, base, sub(base, "fn twice(", "fn double(", "= twice(2);", "= double(2);"), ""},
		{"new integration file", "tests/it.rs", "-", "#[test]\nfn works() { assert!(true); }\n", ""},
		{"file without tests", "src/main.rs", "fn main() {}\n", "fn main() { println!(\"hi\"); }\n", ""},
		{"file deleted", f, base, "-", TestFileDeleted},
		{"test removed", f, base, sub(base, "    #[test]\n    fn doubles() {\n        let v = twice(2);\n        assert!(v == 4, \"twice(2) = {}\", v);\n    }\n", ""), TestRemoved},
		{"test attribute removed", f, base, sub(base, "    #[test]\n    fn doubles() {", "    fn doubles() {"), TestRemoved},
		{"commented out", f, base, sub(base, "    #[test]\n    fn doubles() {\n        let v = twice(2);\n        assert!(v == 4, \"twice(2) = {}\", v);\n    }\n", "    // #[test]\n    // fn doubles() {\n    //     assert!(v == 4);\n    // }\n"), TestCommentedOut},
		{"assertion removed", f, base, sub(base, "        assert_eq!(add(-1, 1), 0);\n", ""), AssertionRemoved},
		{"loosened", f, base, sub(base, "assert_eq!(add(2, 3), 5);", "assert!(true);"), AssertionLoosened},
		{"loosened eq to truthy", f, base, sub(base, "assert_eq!(r.unwrap(), 12);", "assert!(r.unwrap() > 0);"), AssertionLoosened},
		{"expected changed", f, base, sub(base, "assert_eq!(add(2, 3), 5);", "assert_eq!(add(2, 3), 6);"), ExpectedChanged},
		{"expected changed in assert", f, base, sub(base, "assert!(v == 4,", "assert!(v == 5,"), ExpectedChanged},
		{"ignore", f, base, sub(base, "    #[test]\n    fn adds() {", "    #[test]\n    #[ignore]\n    fn adds() {"), SkipAdded},
		{"cfg any", f, base, sub(base, "    #[test]\n    fn adds() {", "    #[test]\n    #[cfg(any())]\n    fn adds() {"), SkipAdded},
		{"module cfg", f, base, sub(base, "#[cfg(test)]\nmod tests {", "#[cfg(all(test, feature = \"never\"))]\nmod tests {"), SkipAdded},
		{"should_panic added", f, base, sub(base, "    #[test]\n    fn adds() {", "    #[test]\n    #[should_panic]\n    fn adds() {"), ExpectationInverted},
		{"early return", f, base, sub(base, "        let v = twice(2);\n", "        return;\n        let v = twice(2);\n"), EarlyExit},
		{"process exit", f, base, sub(base, "        let v = twice(2);\n", "        std::process::exit(0);\n        let v = twice(2);\n"), EarlyExit},
		{"guarded", f, base, sub(base, "        assert_eq!(add(-1, 1), 0);\n", "        if false {\n            assert_eq!(add(-1, 1), 0);\n        }\n"), ExpectationInverted},
		{"body changed", f, base, sub(base, "add(i32::MAX, 1);", "add(i32::MAX, 0);"), BodyChanged},
		{"strengthened", f, base, sub(base, "        assert_eq!(add(-1, 1), 0);\n", "        assert_eq!(add(-1, 1), 0);\n        assert_eq!(add(0, 0), 0);\n"), TestStrengthened},
		{"unparsable", f, base, sub(base, "fn adds() {", "fn adds( {"), Unparsable},
	}
	runEdits(t, cases)
}

func TestRustTestAttributeRemovedMessage(t *testing.T) {
	f := "src/lib.rs"
	cur := sub(rustBase, "    #[test]\n    fn adds() {", "    fn adds() {")
	vs, err := Compare(mapSource{f: rustBase}, mapSource{f: cur}, []string{f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Kind != TestRemoved || !strings.HasPrefix(vs[0].Message, "no longer collected as a test") {
		t.Fatalf("got %v", vs)
	}
}

func TestRustCfgMarkerReadsAsWritten(t *testing.T) {
	f := "src/lib.rs"
	cur := sub(rustBase, "    #[test]\n    fn adds() {", "    #[test]\n    #[cfg(any())]\n    fn adds() {")
	vs, err := Compare(mapSource{f: rustBase}, mapSource{f: cur}, []string{f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 || !strings.Contains(vs[0].Message, "#[cfg(any())]") {
		t.Fatalf("got %v", vs)
	}
}

// A test defined once per cfg (anyhow's test_backtrace under
// rustversion::nightly and not(nightly)) is compared with its own
// counterpart: an edit elsewhere in the file reports nothing.
func TestRustSameNamePerCfg(t *testing.T) {
	base := "#[rustversion::not(nightly)]\n#[ignore = \"requires nightly\"]\n#[test]\nfn test_backtrace() {}\n\n#[rustversion::nightly]\n#[test]\nfn test_backtrace() {\n    let error = anyhow::anyhow!(\"oh no!\");\n    let _ = error.backtrace();\n}\n"
	vs, err := Compare(mapSource{"tests/test_backtrace.rs": base}, mapSource{"tests/test_backtrace.rs": "// note\n" + base}, []string{"tests/test_backtrace.rs"}, Options{})
	if err != nil || len(vs) > 0 {
		t.Fatalf("honest edit reported: %v %v", vs, err)
	}
	cur := strings.Replace(base, "#[rustversion::nightly]\n#[test]\n", "#[rustversion::nightly]\n#[ignore]\n#[test]\n", 1)
	vs, _ = Compare(mapSource{"tests/test_backtrace.rs": base}, mapSource{"tests/test_backtrace.rs": cur}, []string{"tests/test_backtrace.rs"}, Options{})
	if len(vs) != 1 || vs[0].Kind != SkipAdded {
		t.Fatalf("want the nightly test's skip, got %v", vs)
	}
}

// A const or static table of the module that a test's loop walks is the
// test's table.
const rustConstTable = `const CASES: &[(i32, i32)] = &[
    (1, 2),
    (2, 4),
];

static WORDS: [&str; 2] = ["a", "b"];

#[test]
fn doubles() {
    for (a, want) in CASES {
        assert_eq!(rs::double(*a), *want);
    }
}

#[test]
fn words() {
    for w in WORDS.iter() {
        assert!(!w.is_empty());
    }
}
`

func TestRustConstTables(t *testing.T) {
	f := "tests/t.rs"
	runEdits(t, []edit{
		{"same", f, rustConstTable, rustConstTable, ""},
		{"const row removed", f, rustConstTable, sub(rustConstTable, "    (2, 4),\n", ""), TableRowsChanged},
		{"const row changed", f, rustConstTable, sub(rustConstTable, "    (1, 2),\n", "    (1, 3),\n"), TableRowsChanged},
		{"static row removed", f, rustConstTable, sub(rustConstTable, `["a", "b"]`, `["a"]`), TableRowsChanged},
		{"reformatted", f, rustConstTable, sub(rustConstTable, "&[\n    (1, 2),\n    (2, 4),\n]", "&[(1, 2), (2, 4)]"), ""},
	})
}
