package calc

import "testing"

func TestEval(t *testing.T) {
	tests := []struct {
		expr string
		want int
	}{
		{"2", 2},
		{"2 + 3", 5},
		{"2 + 3 * 4", 14},
		{"10 - 4 / 2", 8},
		{"7 - 2 - 1", 4},
	}
	for _, tt := range tests {
		got, err := Eval(tt.expr)
		if err != nil {
			t.Fatalf("Eval(%q): %v", tt.expr, err)
		}
		if got != tt.want {
			t.Errorf("Eval(%q) = %d, want %d", tt.expr, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, expr := range []string{"", "1 +", "1 / 0", "a + 1", "1 % 2"} {
		if _, err := Eval(expr); err == nil {
			t.Errorf("Eval(%q): want an error", expr)
		}
	}
}
