// Package calc is a small calculator used by the protection corpus.
package calc

import (
	"errors"
	"strconv"
	"strings"
)

// ErrDivZero is returned when dividing by zero.
var ErrDivZero = errors.New("division by zero")

// Add returns a+b.
func Add(a, b int) int { return a + b }

// Div returns a/b.
func Div(a, b int) (int, error) {
	if b == 0 {
		return 0, ErrDivZero
	}
	return a / b, nil
}

// Sum parses a "+"-separated list of integers and adds them.
func Sum(expr string) (int, error) {
	total := 0
	for _, part := range strings.Split(expr, "+") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
