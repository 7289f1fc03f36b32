package protect

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// mapSource is an in-memory tree for table tests.
type mapSource map[string]string

func (m mapSource) ReadFile(p string) ([]byte, error) {
	s, ok := m[p]
	if !ok {
		return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	return []byte(s), nil
}

// edit is one table case: file contents before and after, and the kind
// expected ("" for an honest edit that must report nothing).
type edit struct {
	name string
	file string
	base string
	cur  string // "-" deletes the file
	want Kind
}

func runEdits(t *testing.T, cases []edit) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, cur := mapSource{}, mapSource{}
			changed := []string{c.file}
			if c.base != "-" {
				base[c.file] = c.base
			}
			if c.cur != "-" {
				cur[c.file] = c.cur
			}
			vs, err := Compare(base, cur, changed, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			found := false
			for _, v := range vs {
				got = append(got, v.String())
				if v.Kind == c.want {
					found = true
				}
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

// sub replaces old by new in s exactly once, failing loudly otherwise so
// that a case can never silently stop testing anything.
func sub(s string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.Count(s, pairs[i]) != 1 {
			panic(fmt.Sprintf("sub: %q occurs %d times", pairs[i], strings.Count(s, pairs[i])))
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}
