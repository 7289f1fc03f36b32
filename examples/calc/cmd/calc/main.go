// Command calc prints the value of the expression given as arguments.
package main

import (
	"fmt"
	"os"
	"strings"

	"example.com/calc/calc"
)

func main() {
	v, err := calc.Eval(strings.Join(os.Args[1:], " "))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(v)
}
