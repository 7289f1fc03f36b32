// Command chanto is a terminal coding agent whose "done" is backed by the
// project's own checks.
package main

import (
	"context"
	"os"

	"github.com/chanto-dev/chanto/internal/cli"
)

func main() { os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
