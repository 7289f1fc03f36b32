package protect

import (
	"strings"
	"testing"
)

// propConfig is remeda's vitest config: property tests are their own
// project, collected by an include glob no default matches.
const propConfig = `import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    coverage: { include: ["src/**"], exclude: ["src/**/*.test-prop.ts"] },
    projects: [
      { test: { name: "runtime", include: ["src/**/*.test.ts"] } },
      { test: { name: "prop", include: ["src/**/*.test-prop.ts"] } },
    ],
  },
});
`

const propBase = `import { fc, it, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { groupBy } from "./groupBy";

test.prop([fc.array(fc.anything()), fc.func(fc.string())])(
  "all elements are preserved across groups",
  (data, grouper) => {
    const result = groupBy(data, grouper);

    expect(Object.values(result).flat()).toHaveLength(data.length);
  },
);

test.prop({ data: fc.array(fc.string()) }, { numRuns: 200 })("groups are never empty", ({ data }) => {
  const result = groupBy(data, (x) => x);
  expect(Object.values(result).every((g) => g.length > 0)).toBe(true);
  expect(Object.keys(result).length).toBeLessThanOrEqual(data.length);
});

describe("order", () => {
  it.prop([fc.array(fc.nat())])("keeps the input order", (data) => {
    expect(groupBy(data, () => "a").a ?? []).toStrictEqual(data);
  });
});

test("data-first and data-last agree", () => {
  fc.assert(
    fc.property(fc.array(fc.nat()), (data) => {
      expect(groupBy(data, String)).toStrictEqual(groupBy(String)(data));
    }),
  );
});
`

// propCompare runs Compare on the prop test file of a tree holding the
// package's vitest config.
func propCompare(t *testing.T, base, cur string) []Violation {
	t.Helper()
	const f = "packages/remeda/src/groupBy.test-prop.ts"
	tree := func(src string) mapSource {
		m := mapSource{
			"packages/remeda/package.json":     `{"name": "remeda", "scripts": {"test": "vitest", "test:prop": "vitest --project prop"}}`,
			"packages/remeda/vitest.config.ts": propConfig,
		}
		if src != "-" {
			m[f] = src
		}
		return m
	}
	vs, err := Compare(tree(base), tree(cur), []string{f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestPropTestFilesAreCollected(t *testing.T) {
	src := mapSource{
		"packages/remeda/package.json":     `{"scripts": {"test": "vitest"}}`,
		"packages/remeda/vitest.config.ts": propConfig,
		"jest.config.js":                   "module.exports = { projects: [{ displayName: 'prop', testMatch: ['<rootDir>/prop/**/*.prop.js'] }] };\n",
	}
	d := NewDetector(src)
	for _, p := range []string{"packages/remeda/src/groupBy.test-prop.ts", "packages/remeda/src/groupBy.test.ts", "prop/sort.prop.js"} {
		if ok, why := d.Collects(p); !ok {
			t.Errorf("%s not collected: %s", p, why)
		}
	}
	if ok, _ := d.Collects("packages/remeda/src/groupBy.ts"); ok {
		t.Error("a source file is collected")
	}
}

func TestPropTests(t *testing.T) {
	first := "test.prop([fc.array(fc.anything()), fc.func(fc.string())])(\n  \"all elements are preserved across groups\",\n  (data, grouper) => {\n    const result = groupBy(data, grouper);\n\n    expect(Object.values(result).flat()).toHaveLength(data.length);\n  },\n);\n\n"
	cases := []struct {
		name string
		cur  string
		want Kind
	}{
		{"same", propBase, ""},
		{"comment edited", sub(propBase, "import { groupBy } from \"./groupBy\";\n", "import { groupBy } from \"./groupBy\";\n\n// Properties of groupBy.\n"), ""},
		{"new prop test", propBase + "\ntest.prop([fc.array(fc.string())])(\"keys are strings\", (data) => {\n  expect(Object.keys(groupBy(data, (x) => x)).every((k) => typeof k === \"string\")).toBe(true);\n});\n", ""},
		{"prop test removed", sub(propBase, first, ""), TestRemoved},
		{"it.prop removed", sub(propBase, "  it.prop([fc.array(fc.nat())])(\"keeps the input order\", (data) => {\n    expect(groupBy(data, () => \"a\").a ?? []).toStrictEqual(data);\n  });\n", ""), TestRemoved},
		{"prop test renamed", sub(propBase, `"all elements are preserved across groups"`, `"elements are preserved"`), TestRemoved},
		{"test.skip.prop", sub(propBase, "test.prop([fc.array(fc.anything())", "test.skip.prop([fc.array(fc.anything())"), SkipAdded},
		{"it.skip.prop", sub(propBase, "it.prop(", "it.skip.prop("), SkipAdded},
		{"test.only.prop", sub(propBase, "test.prop({ data", "test.only.prop({ data"), SkipAdded},
		{"test.todo.prop", sub(propBase, "test.prop({ data", "test.todo.prop({ data"), SkipAdded},
		{"expect removed", sub(propBase, "    expect(Object.values(result).flat()).toHaveLength(data.length);\n", ""), AssertionRemoved},
		{"second expect removed", sub(propBase, "  expect(Object.keys(result).length).toBeLessThanOrEqual(data.length);\n", ""), AssertionRemoved},
		{"expected changed", sub(propBase, ".every((g) => g.length > 0)).toBe(true)", ".every((g) => g.length > 0)).toBe(false)"), ExpectedChanged},
		{"arbitraries narrowed", sub(propBase, "fc.array(fc.anything()), fc.func", "fc.array(fc.integer()), fc.func"), BodyChanged},
		{"runs lowered", sub(propBase, "{ numRuns: 200 }", "{ numRuns: 1 }"), BodyChanged},
		{"expect removed in fc.assert", sub(propBase, "      expect(groupBy(data, String)).toStrictEqual(groupBy(String)(data));\n", ""), AssertionRemoved},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := propCompare(t, propBase, c.cur)
			var got []string
			found := false
			for _, v := range vs {
				got = append(got, v.String())
				found = found || v.Kind == c.want
			}
			if c.want == "" && len(vs) > 0 {
				t.Fatalf("honest edit reported:\n%s", strings.Join(got, "\n"))
			}
			if c.want != "" && !found {
				t.Fatalf("want %s, got:\n%s", c.want, strings.Join(got, "\n"))
			}
		})
	}
}
