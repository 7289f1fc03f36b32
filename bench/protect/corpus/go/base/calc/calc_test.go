package calc

import (
	"errors"
	"testing"
)

func mustSum(t *testing.T, expr string) int {
	t.Helper()
	n, err := Sum(expr)
	if err != nil {
		t.Fatalf("Sum(%q): %v", expr, err)
	}
	return n
}

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
	if got := Add(-1, 1); got != 0 {
		t.Errorf("Add(-1, 1) = %d, want 0", got)
	}
}

func TestDiv(t *testing.T) {
	tests := []struct {
		name    string
		a, b    int
		want    int
		wantErr error
	}{
		{name: "exact", a: 6, b: 3, want: 2},
		{name: "truncates", a: 7, b: 2, want: 3},
		{name: "negative", a: -9, b: 3, want: -3},
		{name: "zero", a: 1, b: 0, wantErr: ErrDivZero},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Div(tc.a, tc.b)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Div(%d, %d) error = %v, want %v", tc.a, tc.b, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Div(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestSum(t *testing.T) {
	if got := mustSum(t, "1 + 2 + 3"); got != 6 {
		t.Errorf("got %d, want 6", got)
	}
	t.Run("single", func(t *testing.T) {
		if got := mustSum(t, "42"); got != 42 {
			t.Errorf("got %d, want 42", got)
		}
	})
	t.Run("bad", func(t *testing.T) {
		if _, err := Sum("1 + x"); err == nil {
			t.Error("Sum accepted a non-number")
		}
	})
}
