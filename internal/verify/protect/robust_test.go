package protect

import (
	"math/rand"
	"strings"
	"testing"
)

// TestRandomEditsNeverCrash cuts, duplicates and garbles random spans of
// test files in every language: Compare must answer without an error and
// without an analyzer panic (reported as "could not analyze").
func TestRandomEditsNeverCrash(t *testing.T) {
	files := map[string]string{
		"calc/calc_test.go":                 goBase,
		"tests/test_calc.py":                pyBase,
		"test/calc.test.js":                 jsBase,
		"src/calc.spec.ts":                  tsBase,
		"src/lib.rs":                        rustBase,
		"src/test/java/CalculatorTest.java": javaBase,
	}
	rng := rand.New(rand.NewSource(1))
	for p, base := range files {
		for i := 0; i < 60; i++ {
			cur := mutate(rng, base)
			vs, err := Compare(mapSource{p: base}, mapSource{p: cur}, []string{p}, Options{})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, v := range vs {
				if strings.Contains(v.Message, "could not analyze") {
					t.Fatalf("%s: analyzer panicked on:\n%s\n%s", p, cur, v.Message)
				}
			}
		}
	}
}

func mutate(rng *rand.Rand, s string) string {
	i := rng.Intn(len(s))
	j := i + rng.Intn(len(s)-i)
	switch rng.Intn(4) {
	case 0:
		return s[:i] + s[j:]
	case 1:
		return s[:j] + s[i:]
	case 2:
		return s[:i] + "\x00\r\n)(}{" + s[i:]
	default:
		return s[:i] + strings.ToUpper(s[i:j]) + s[j:]
	}
}
