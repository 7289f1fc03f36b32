package selecttest

import (
	"slices"
	"testing"
)

// TestTokenKeys: a selector on an import's name is that package's (none
// for a package outside the module); on anything else, or on a name that
// is also a local's, it is every method of that name as well.
func TestTokenKeys(t *testing.T) {
	src := `package p

import (
	"sync/atomic"
	b "example.com/m/binding"
	"example.com/m/render"
	"gopkg.in/yaml.v3"
	. "example.com/m/dot"
)

var v atomic.Value

func f(render int) { _ = render }

func g() { b.Bind(); yaml.Marshal(nil); v.Load(); New() }
`
	sum := summarizeGoSource([]byte(src))
	names := map[string]string{"example.com/m/binding": "binding", "example.com/m/render": "render", "example.com/m/dot": "dot", "example.com/m/p": "p"}
	s := newFileScope("example.com/m/p", sum, names, map[string]bool{"v": true, "f": true, "g": true})
	for _, c := range []struct {
		tok  string
		want []string
	}{
		{"atomic.Value", nil},
		{"yaml.Marshal", nil},
		{"b.Bind", []string{"example.com/m/binding Bind"}},
		{"binding.Bind", []string{"example.com/m/p binding", "example.com/m/dot binding", ".Bind"}},
		{"render.Render", []string{"example.com/m/p render", "example.com/m/dot render", ".Render", "example.com/m/render Render"}},
		{"v.Load", []string{"example.com/m/p v", "example.com/m/dot v", ".Load"}},
		{".Load", []string{".Load"}},
		{"New", []string{"example.com/m/p New", "example.com/m/dot New"}},
	} {
		if got := s.keys(c.tok); !slices.Equal(got, c.want) {
			t.Errorf("%s: keys %q, want %q", c.tok, got, c.want)
		}
	}
	for p, want := range map[string][]string{
		"gopkg.in/yaml.v3":                   {"yaml"},
		"github.com/pelletier/go-toml/v2":    {"toml"},
		"github.com/go-playground/validator": {"validator"},
	} {
		got := guessedNames(p)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("guessedNames(%s) = %q, want %q among them", p, got, w)
			}
		}
	}
}
