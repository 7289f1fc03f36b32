package protect

import (
	"strings"
	"testing"
)

const jsBase = `const { add, parse } = require("../src/calc");

function dbl(x) {
  return x * 2;
}

describe("calc", () => {
  beforeEach(() => {
    jest.resetModules();
  });

  it("adds", () => {
    expect(add(2, 3)).toBe(5);
    expect(add(-1, 1)).toEqual(0);
  });

  test.each([
    ["1", 1],
    ["42", 42],
  ])("parses %s", (text, want) => {
    expect(parse(text)).toBe(want);
  });

  describe("errors", () => {
    it("throws on empty", () => {
      expect(() => parse("")).toThrow("empty input");
    });
  });
});

test("double", async () => {
  const v = await Promise.resolve(dbl(2));
  expect(v).toStrictEqual(4);
});
`

func jsCases(f, base string) []edit {
	return []edit{
		{"same", f, base, base, ""},
		{"new test", f, base, base + "\ntest(\"triple\", () => {\n  expect(3 * 3).toBe(9);\n});\n", ""},
		{"new test in describe", f, base, sub(base, "  describe(\"errors\", () => {", "  it(\"adds zero\", () => {\n    expect(add(0, 0)).toBe(0);\n  });\n\n  describe(\"errors\", () => {"), ""},
		{"quotes semicolons commas", f, base, sub(base, `expect(add(2, 3)).toBe(5);`, `expect(add(2, 3)).toBe(5) // five`, `["42", 42],`, `['42', 42]`, `toThrow("empty input")`, `toThrow('empty input')`), ""},
		{"reindent", f, base, strings.ReplaceAll(base, "  ", "    "), ""},
		{"crlf", f, base, strings.ReplaceAll(base, "\n", "\r\n"), ""},
		{"prettier arrow parens", f, base, sub(base, "expect(() => parse(\"\")).toThrow(\"empty input\")", "expect((() => parse(\"\"))).toThrow(\"empty input\")"), ""},
		{"helper renamed", f, base, strings.ReplaceAll(base, "dbl(", "doubleIt("), ""},
		{"helper body", f, base, sub(base, "return x * 2;", "return x + x;"), ""},
		{"new file", "test/other.test.js", "-", base, ""},
		{"file deleted", f, base, "-", TestFileDeleted},
		{"test removed", f, base, sub(base, "  it(\"adds\", () => {\n    expect(add(2, 3)).toBe(5);\n    expect(add(-1, 1)).toEqual(0);\n  });\n", ""), TestRemoved},
		{"title changed", f, base, sub(base, `it("adds",`, `it("adds numbers",`), TestRemoved},
		{"commented out", f, base, sub(base, "  it(\"adds\", () => {\n    expect(add(2, 3)).toBe(5);\n    expect(add(-1, 1)).toEqual(0);\n  });\n", "  // it(\"adds\", () => {\n  //   expect(add(2, 3)).toBe(5);\n  // });\n"), TestCommentedOut},
		{"assertion removed", f, base, sub(base, "    expect(add(-1, 1)).toEqual(0);\n", ""), AssertionRemoved},
		{"loosened", f, base, sub(base, "expect(add(2, 3)).toBe(5)", "expect(add(2, 3)).toBeDefined()"), AssertionLoosened},
		{"loosened throw", f, base, sub(base, `toThrow("empty input")`, `toThrow()`), AssertionLoosened},
		{"trivial", f, base, sub(base, "expect(v).toStrictEqual(4)", "expect(true).toBe(true)"), AssertionLoosened},
		{"expected changed", f, base, sub(base, "expect(add(2, 3)).toBe(5)", "expect(add(2, 3)).toBe(6)"), ExpectedChanged},
		{"row removed", f, base, sub(base, "    [\"42\", 42],\n", ""), TableRowsChanged},
		{"row changed", f, base, sub(base, `["42", 42]`, `["42", 41]`), TableRowsChanged},
		{"describe.each row removed", f, base + "\ndescribe.each([[1], [2]])(\"n=%i\", (n) => {\n  it(\"is positive\", () => {\n    expect(n > 0).toBe(true);\n  });\n});\n", base + "\ndescribe.each([[1]])(\"n=%i\", (n) => {\n  it(\"is positive\", () => {\n    expect(n > 0).toBe(true);\n  });\n});\n", TableRowsChanged},
		{"it.skip", f, base, sub(base, `it("adds",`, `it.skip("adds",`), SkipAdded},
		{"xit", f, base, sub(base, `it("adds",`, `xit("adds",`), SkipAdded},
		{"describe.skip", f, base, sub(base, `describe("errors",`, `describe.skip("errors",`), SkipAdded},
		{"xdescribe", f, base, sub(base, `describe("calc",`, `xdescribe("calc",`), SkipAdded},
		{"only", f, base, sub(base, `test("double",`, `test.only("double",`), SkipAdded},
		{"todo", f, base, sub(base, `it("adds",`, `it.todo("adds",`), SkipAdded},
		{"skip option", f, base, sub(base, `test("double", async`, `test("double", { skip: true }, async`), SkipAdded},
		{"module retryTimes", f, base, "jest.retryTimes(3);\n" + base, ExpectationInverted},
		{"early return", f, base, sub(base, "    expect(add(2, 3)).toBe(5);\n", "    return;\n    expect(add(2, 3)).toBe(5);\n"), EarlyExit},
		{"process exit", f, base, sub(base, "  expect(v).toStrictEqual(4);", "  process.exit(0);\n  expect(v).toStrictEqual(4);"), EarlyExit},
		{"wrapped in try", f, base, sub(base, "    expect(add(-1, 1)).toEqual(0);\n", "    try {\n      expect(add(-1, 1)).toEqual(0);\n    } catch (e) {}\n"), ExpectationInverted},
		{"body changed", f, base, sub(base, "Promise.resolve(dbl(2));", "Promise.resolve(4);"), BodyChanged},
		{"strengthened", f, base, sub(base, "    expect(add(-1, 1)).toEqual(0);\n", "    expect(add(-1, 1)).toEqual(0);\n    expect(add(0, 0)).toBe(0);\n"), TestStrengthened},
		{"unparsable", f, base, sub(base, `it("adds", () => {`, `it("adds", () => {{`), Unparsable},
	}
}

func TestJSEdits(t *testing.T) { runEdits(t, jsCases("test/calc.test.js", jsBase)) }

// A loop over a literal table runs its tests once per row (unjs/ufo's
// for (const t of tests) test(t.input.toString(), …)): the rows are the
// tests' table.
const jsLoopBase = `import { describe, expect, test } from "vitest";
import { parseFilename } from "../src";

describe("parseFilename", () => {
  const tests = [
    { input: ["/a/b.ext", true], out: "b.ext" },
    { input: ["/a/b.ext/", true], out: undefined },
  ] as const;

  for (const t of tests) {
    test(t.input.toString(), () => {
      expect(parseFilename(t.input[0], { strict: t.input[1] })).toStrictEqual(t.out);
    });
  }
});

const pairs: [string, number][] = [
  ["1", 1],
  ["2", 2],
];
pairs.forEach(([text, want]) => {
  test("parses " + text, () => {
    expect(Number(text)).toBe(want);
  });
});
`

func TestJSLoopTables(t *testing.T) {
	f := "test/parse.test.ts"
	runEdits(t, []edit{
		{"same", f, jsLoopBase, jsLoopBase, ""},
		{"for-of row removed", f, jsLoopBase, sub(jsLoopBase, "    { input: [\"/a/b.ext/\", true], out: undefined },\n", ""), TableRowsChanged},
		{"for-of expectation changed", f, jsLoopBase, sub(jsLoopBase, `out: "b.ext" }`, `out: undefined }`), TableRowsChanged},
		{"forEach row removed", f, jsLoopBase, sub(jsLoopBase, "  [\"2\", 2],\n", ""), TableRowsChanged},
		{"forEach row changed", f, jsLoopBase, sub(jsLoopBase, `["2", 2]`, `["2", 3]`), TableRowsChanged},
		{"computed title, assertion removed", f, jsLoopBase, sub(jsLoopBase, "      expect(parseFilename(t.input[0], { strict: t.input[1] })).toStrictEqual(t.out);\n", ""), AssertionRemoved},
		{"reformatted rows", f, jsLoopBase, sub(jsLoopBase, `{ input: ["/a/b.ext", true], out: "b.ext" }`, `{ input: ['/a/b.ext', true], out: 'b.ext' }`), ""},
		{"a table a test body walks, row removed", f, jsLoopBase + "\nconst SUMS = [[1, 2, 3], [2, 2, 4]];\n\ntest(\"sums\", () => {\n  for (const [a, b, want] of SUMS) expect(a + b).toBe(want);\n});\n", jsLoopBase + "\nconst SUMS = [[1, 2, 3]];\n\ntest(\"sums\", () => {\n  for (const [a, b, want] of SUMS) expect(a + b).toBe(want);\n});\n", TableRowsChanged},
		{"a new test beside the loop", f, jsLoopBase, jsLoopBase + "\ntest(\"more\", () => {\n  expect(1).toBe(1);\n});\n", ""},
	})
}

const tsBase = `import { describe, it, expect } from "vitest";
import { add, parse } from "../src/calc";

interface Case {
  text: string;
  want: number;
}

function dbl(x: number): number {
  return x * 2;
}

describe("calc", () => {
  it("adds", () => {
    expect(add(2, 3)).toBe(5);
    expect(add(-1, 1)).toEqual(0);
  });

  test.each([
    ["1", 1],
    ["42", 42],
  ])("parses %s", (text: string, want: number) => {
    expect(parse(text)).toBe(want);
  });

  describe("errors", () => {
    it("throws on empty", () => {
      expect(() => parse("")).toThrow("empty input");
    });
  });
});

test("double", async () => {
  const v: number = await Promise.resolve(dbl(2));
  expect(v).toStrictEqual(4);
});
`

func TestTSEdits(t *testing.T) {
	runEdits(t, jsCases("src/calc.spec.ts", tsBase))
	tsx := sub(tsBase, "  const v: number = await Promise.resolve(dbl(2));\n", "  const el = <div className=\"x\">{dbl(2)}</div>;\n  const v: number = await Promise.resolve(dbl(2));\n")
	runEdits(t, jsCases("src/calc.test.tsx", tsx))
}
