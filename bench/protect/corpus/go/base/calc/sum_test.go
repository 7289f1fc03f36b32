package calc_test

import (
	"fmt"
	"testing"

	"example.com/proj/calc"
)

var sumCases = []struct {
	in   string
	want int
}{
	{"1", 1},
	{"1+1", 2},
	{"10 + 20 + 30", 60},
}

func TestSumTable(t *testing.T) {
	for _, c := range sumCases {
		got, err := calc.Sum(c.in)
		if err != nil || got != c.want {
			t.Errorf("Sum(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func BenchmarkSum(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_, _ = calc.Sum("1 + 2 + 3 + 4")
	}
}

func ExampleAdd() {
	fmt.Println(calc.Add(1, 2))
	// Output: 3
}
