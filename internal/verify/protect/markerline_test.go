package protect

import (
	"testing"
)

// A skip added above an older skip of the same kind in the same test is
// the one reported: the older one, moved down by the new line, was there
// before (go-toml's TestDecoderStrict kept a t.Skip under a condition).
func TestAddedSkipLine(t *testing.T) {
	const base = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	if Add(1, 2) != 3 {
		t.Fatal("Add")
	}
}
`
	cases := []struct {
		name, cur string
		line      int
	}{
		{"above the old one", `package calc

import "testing"

func TestAdd(t *testing.T) {
	t.Skip("later")
	if testing.Short() {
		t.Skip("slow")
	}
	if Add(1, 2) != 3 {
		t.Fatal("Add")
	}
}
`, 6},
		{"below the old one", `package calc

import "testing"

func TestAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	t.Skip("later")
	if Add(1, 2) != 3 {
		t.Fatal("Add")
	}
}
`, 9},
		{"the same words above", `package calc

import "testing"

func TestAdd(t *testing.T) {
	t.Skip("slow")
	if testing.Short() {
		t.Skip("slow")
	}
	if Add(1, 2) != 3 {
		t.Fatal("Add")
	}
}
`, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs, err := Compare(mapSource{"calc_test.go": base}, mapSource{"calc_test.go": c.cur}, []string{"calc_test.go"}, Options{})
			if err != nil || len(vs) != 1 || vs[0].Kind != SkipAdded {
				t.Fatalf("violations %v, err %v", vs, err)
			}
			if vs[0].Line != c.line {
				t.Errorf("line %d (%q), want %d", vs[0].Line, vs[0].After, c.line)
			}
		})
	}
}
