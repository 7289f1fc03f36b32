package shell

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		script string
		want   string // commands: "ENV|args" joined by " ; ", then "!simple" when not simple
	}{
		{"vitest run", "|vitest run"},
		{"NODE_OPTIONS='--max-old-space-size=4096' vitest run", "NODE_OPTIONS=--max-old-space-size=4096|vitest run"},
		{`FOO="a b" jest`, "FOO=a b|jest"},
		{`FOO="a b" BAR=1 jest --ci`, "FOO=a b,BAR=1|jest --ci"},
		{"npm run lint && jest", "|npm run lint ; |jest !simple"},
		{"tsc; jest || true", "|tsc ; |jest ; |true !simple"},
		{"jest | tee out.txt", "|jest ; |tee out.txt !simple"},
		{"jest > out.txt", "|jest !simple"},
		{"(cd app && vitest)", "|cd app ; |vitest !simple"},
		{`jest 'src/a b' "x\"y" c\ d`, `|jest src/a b x"y c d`},
		{"jest --shard=$(node shard.js)", "|jest --shard=$(node shard.js) !literal"},
		{"jest $ARGS", "|jest $ARGS !literal"},
		{"A=$HOME jest", "A=$HOME|jest !literal"},
		{"FOO=1", "FOO=1|"},
		{"", "!simple"},
	}
	for _, tc := range cases {
		s, err := Parse(tc.script)
		if err != nil {
			t.Errorf("%q: %v", tc.script, err)
			continue
		}
		var cmds []string
		literal := true
		for _, c := range s.Commands {
			cmds = append(cmds, strings.Join(c.Env, ",")+"|"+strings.Join(c.Args, " "))
			literal = literal && c.Literal
		}
		got := strings.Join(cmds, " ; ")
		if !s.Simple {
			got = strings.TrimSpace(got + " !simple")
		}
		if !literal {
			got += " !literal"
		}
		if got != tc.want {
			t.Errorf("%q:\n got  %s\n want %s", tc.script, got, tc.want)
		}
	}
}

func TestParseError(t *testing.T) {
	_, err := Parse(`jest "unclosed`)
	if err == nil || !strings.Contains(err.Error(), "1:6") {
		t.Fatalf("err = %v, want a position", err)
	}
}

func TestJoin(t *testing.T) {
	got := Join([]string{"/usr/bin/python3", "-m", "pytest", "tests/it's here.py", "tests/ünï code.py", "a$b", "", "~x", "=y"})
	want := `/usr/bin/python3 -m pytest "tests/it's here.py" 'tests/ünï code.py' 'a$b' '' '~x' '=y'`
	if got != want {
		t.Fatalf("Join = %s, want %s", got, want)
	}
	// What Quote writes, bash reads back as the same word.
	for _, w := range []string{"plain", "it's", `a "b" $c`, "tab\there", "new\nline", `back\slash`} {
		s, err := Parse("cmd " + Quote(w))
		if err != nil || len(s.Commands) != 1 || !s.Commands[0].Literal && !strings.HasPrefix(Quote(w), "$'") {
			t.Fatalf("%q quoted as %s: %+v %v", w, Quote(w), s, err)
		}
		if s.Commands[0].Literal && s.Commands[0].Args[1] != w {
			t.Errorf("%q quoted as %s reads back as %q", w, Quote(w), s.Commands[0].Args[1])
		}
	}
}

func TestAndChain(t *testing.T) {
	stages, ok := AndChain(`cross-env TZ=Pacific/Auckland npm run test-tz && npm run lint && jest --coverage --coverageThreshold="{ \"global\": { \"lines\": 100} }"`)
	if !ok || len(stages) != 3 {
		t.Fatalf("got %+v, %v", stages, ok)
	}
	if stages[0].Text != "cross-env TZ=Pacific/Auckland npm run test-tz" || stages[2].Args[2] != `--coverageThreshold={ "global": { "lines": 100} }` {
		t.Errorf("stages: %+v", stages)
	}
	for _, s := range []string{"jest", "a && b || c", "a; b", "a && b | c", "a && (b && c)", "a && b > out"} {
		if st, ok := AndChain(s); ok {
			t.Errorf("%q: an && chain %+v", s, st)
		}
	}
}
