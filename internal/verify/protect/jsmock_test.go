package protect

import "testing"

func TestJSModuleMocks(t *testing.T) {
	base := "const { f } = require('../src/f');\n\ntest('f', () => {\n  expect(f(8)).toBe(3);\n});\n"
	esm := "import { it, expect, vi } from 'vitest';\nimport { f } from '../src/f.js';\n\nit('f', () => {\n  expect(f(8)).toBe(3);\n});\n"
	runEdits(t, []edit{
		{"jest.mock of the code under test", "__tests__/f.test.js", base, "jest.mock('../src/f', () => ({ f: () => 3 }));\n" + base, ExpectationInverted},
		{"automock of the code under test", "__tests__/f.test.js", base, "jest.mock(\"../src/f\");\n" + base, ExpectationInverted},
		{"vi.mock of the code under test", "test/f.test.ts", esm, esm + "vi.mock('./../src/f.js', () => ({ f: () => 3 }));\n", ExpectationInverted},
		{"mock of a package", "__tests__/f.test.js", base, "jest.mock('fs');\n" + base, ""},
		{"existing mock kept, quotes changed", "__tests__/f.test.js", "jest.mock('../src/g');\n" + base, "jest.mock(\"../src/g\");\n" + base, ""},
	})
}
