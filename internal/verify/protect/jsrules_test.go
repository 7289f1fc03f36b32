package protect

import "testing"

func TestJSRunnerDefaults(t *testing.T) {
	test := "import { it, expect } from 'vitest';\nimport { f } from '../src/f.js';\n\nit('f', () => {\n  expect(f(8)).toBe(3);\n});\n"
	cases := []struct {
		name, script, from, to string
		want                   Kind
	}{
		{"vitest: renamed out of include", "vitest run", "test/f.test.js", "test/f.js", RenamedOutOfCollection},
		{"vitest: renamed within include", "vitest run", "test/f.test.js", "test/g.spec.mjs", ""},
		{"jest: moved out of __tests__", "jest --ci", "__tests__/f.js", "lib/f.js", RenamedOutOfCollection},
		{"jest: moved into __tests__", "jest", "test/f.test.js", "__tests__/f.js", ""},
		{"mocha keeps test/", "mocha", "test/f.test.js", "test/f.js", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pkg := `{"scripts": {"test": "` + c.script + `"}}`
			base := mapSource{"package.json": pkg, c.from: test}
			cur := mapSource{"package.json": pkg, c.to: test}
			vs, err := Compare(base, cur, []string{c.from, c.to}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" && len(vs) > 0 {
				t.Fatalf("honest rename reported: %v", vs)
			}
			if c.want != "" && (len(vs) == 0 || vs[0].Kind != c.want) {
				t.Fatalf("want %s, got %v", c.want, vs)
			}
		})
	}
}
