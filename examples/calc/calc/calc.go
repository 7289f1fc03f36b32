// Package calc evaluates simple integer expressions such as "2 + 3 * 4".
package calc

import (
	"fmt"
	"strconv"
	"strings"
)

// Eval evaluates space-separated integers and the operators + - * /,
// with * and / binding tighter than + and -.
func Eval(expr string) (int, error) {
	fields := strings.Fields(expr)
	if len(fields) == 0 || len(fields)%2 == 0 {
		return 0, fmt.Errorf("calc: malformed expression %q", expr)
	}
	var terms []int
	var ops []string
	cur, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0, fmt.Errorf("calc: %q is not a number", fields[0])
	}
	for i := 1; i < len(fields); i += 2 {
		op := fields[i]
		n, err := strconv.Atoi(fields[i+1])
		if err != nil {
			return 0, fmt.Errorf("calc: %q is not a number", fields[i+1])
		}
		switch op {
		case "*":
			cur *= n
		case "/":
			if n == 0 {
				return 0, fmt.Errorf("calc: division by zero")
			}
			cur /= n
		case "+", "-":
			terms = append(terms, cur)
			ops = append(ops, op)
			cur = n
		default:
			return 0, fmt.Errorf("calc: unknown operator %q", op)
		}
	}
	terms = append(terms, cur)
	total := terms[0]
	for i, op := range ops {
		if op == "+" {
			total += terms[i+1]
		} else {
			total -= terms[i+1]
		}
	}
	return total, nil
}
