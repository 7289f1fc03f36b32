package main

import (
	"math"
	"testing"
)

func TestLowerBound(t *testing.T) {
	// With no failure the bound has a closed form: alpha^(1/n).
	for _, n := range []int{10, 600, 1000} {
		want := math.Pow(0.05, 1/float64(n))
		if got := lowerBound(n, n, 0.05); math.Abs(got-want) > 1e-6 {
			t.Errorf("lowerBound(%d, %d) = %.6f, want %.6f", n, n, got, want)
		}
	}
	// One miss in 1000: the exact bound is about 0.99526.
	if got := lowerBound(999, 1000, 0.05); got < 0.9950 || got > 0.9956 {
		t.Errorf("lowerBound(999, 1000) = %.5f", got)
	}
}
