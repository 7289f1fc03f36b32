// Package internal_test enforces the layering of DESIGN.md §3: imports point
// downward only.
package internal_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/chanto-dev/chanto/"

// layer gives each package its height; a package may import only packages
// lower than itself. A new package must be added here, deliberately.
var layer = map[string]int{
	"internal/safetext":              0,
	"internal/durable":               0,
	"internal/event":                 5,
	"internal/config":                5,
	"internal/agents":                12,
	"internal/shell":                 0,
	"internal/ini":                   0,
	"internal/verify/pytestconf":     1,
	"internal/run":                   10,
	"internal/git":                   15,
	"internal/llm":                   10,
	"internal/policy":                10,
	"internal/sandbox":               20,
	"internal/sandbox/helper":        5,
	"internal/sandbox/helper/bridge": 6,
	"internal/hook":                  20,
	"internal/tool":                  20,
	"internal/mcp":                   25,
	"internal/mcp/mcptest":           0,
	"internal/format":                15,
	"internal/lsp":                   15,
	"internal/session":               20,
	"internal/llm/anthropic":         20,
	"internal/llm/openai":            20,
	"internal/llm/scripted":          20,
	"internal/llm/llmtest":           20,
	"internal/llm/provider":          30,
	"internal/verify/runner":         15,
	"internal/verify/scope":          12,
	"internal/verify/detect":         20,
	"internal/verify/selecttest":     30,
	"internal/verify/protect":        30,
	"internal/verify/baseline":       30,
	"internal/verify":                40,
	"internal/junit":                 45,
	"internal/goal":                  45,
	"internal/agent":                 50,
	"internal/gate":                  55,
	"internal/hookgate":              56,
	"internal/hookinstall":           20,
	"internal/app":                   58,
	"internal/tui":                   60,
	"internal/cli":                   70,
	"cmd/chanto":                     80,
}

// forbidden are the rules DESIGN.md spells out, checked on the whole
// dependency set (not only direct imports).
var forbidden = map[string][]string{
	"internal/verify": {"internal/agent", "internal/llm", "internal/tui", "internal/cli"},
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok || name == "internal" || strings.HasPrefix(name, "bench/") || strings.HasPrefix(name, "examples/") || strings.HasPrefix(name, "test/") {
			continue
		}
		h, known := layerOf(name)
		if !known {
			t.Errorf("%s has no layer; add it to layer in internal/layers_test.go", name)
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if dh, _ := layerOf(dep); dh >= h && !strings.HasPrefix(dep, name+"/") {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down", name, h, dep, dh)
			}
		}
		for prefix, bad := range forbidden {
			if name != prefix && !strings.HasPrefix(name, prefix+"/") {
				continue
			}
			for _, d := range p.Deps {
				for _, b := range bad {
					if d == module+b || strings.HasPrefix(d, module+b+"/") {
						t.Errorf("%s depends on %s, which DESIGN.md forbids", name, d)
					}
				}
			}
		}
	}
}

// layerOf finds the layer of a package, inheriting from the nearest listed
// parent for sub-packages such as internal/sandbox/seccomp.
func layerOf(name string) (int, bool) {
	for p := name; p != "."; {
		if h, ok := layer[p]; ok {
			return h, true
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0, false
}
