// Package cli is chanto's command line: subcommands and flags (cobra),
// output formats and the mapping of outcomes to exit codes. Each subcommand
// lives in its own cmd_<name>.go file; Main is what cmd/chanto calls.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=v1.2.3".
var Version = "dev"

// stdio bundles the streams a command uses, so tests can run Main in process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// Main runs chanto with args and returns the process exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A hang-up (the terminal closed, ssh dropped) is an interrupt like
	// Ctrl-C: the turn stops cleanly and the exit code is 1, not the
	// shell's 129 for a process the signal killed.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	std := &stdio{in: stdin, out: stdout, err: stderr}
	root := newRootCmd(std)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := codeOf(err)
	var ee *exitError
	if !errors.As(err, &ee) || ee.err != nil {
		msg := err.Error()
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			msg = "interrupted"
		}
		diag(stderr, "%s", strings.TrimSpace(msg))
		if code == ExitError && isCobraUsage(err) {
			code = ExitUsage
		}
	}
	return code
}

// isCobraUsage recognizes cobra's own flag and argument errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand flag", "unknown command", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func newRootCmd(std *stdio) *cobra.Command {
	root := &cobra.Command{
		Use:           "chanto [flags]",
		Short:         "A coding agent whose \"done\" is backed by the project's own checks",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(ExitUsage, err) })
	// --version is ours rather than cobra's: cobra's version output goes
	// through text/template, and linking template execution stops the
	// linker from dropping unused methods — it doubles the binary and its
	// resident pages.
	var version bool
	root.Flags().BoolVarP(&version, "version", "v", false, "print the version and exit")
	var dir string
	root.PersistentFlags().StringVarP(&dir, "directory", "C", "", "run as if chanto was started in `DIR`")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if version {
			fmt.Fprintf(std.out, "chanto %s\n", Version)
			return withCode(ExitOK, nil)
		}
		if dir == "" {
			return nil
		}
		if err := os.Chdir(dir); err != nil {
			return usageError("-C %s: %v", dir, errors.Unwrap(err))
		}
		return nil
	}
	addAgentFlags(root, std)
	root.AddCommand(
		newVerifyCmd(std),
		newTrustCmd(std),
		newSessionsCmd(std),
		newConfigCmd(std),
		newHookCmd(std),
		newAgentsCmd(std),
		newMCPCmd(std),
	)
	addHiddenCmds(root, std)
	return root
}
