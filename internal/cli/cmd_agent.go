package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/chanto-dev/chanto/internal/agent"
)

// agentOptions are the root command's flags: print mode and the settings
// of the agent it runs.
type agentOptions struct {
	print          bool
	promptFile     string
	model          string
	outputFormat   string
	outputSchema   string
	maxTurns       int
	resume         string
	continueLast   bool
	permissionMode string
	lockdown       bool
	sandbox        string
	verify         VerifyOptions
	goal           goalOptions
	mcpApprove     []string
}

// VerifyOptions are the verified-mode flags. They are collected here so
// the done-gate can be built from them (see stopPolicy in print.go).
type VerifyOptions struct {
	// Enabled is --verify (or --verify-full / --verify-check, which imply it).
	Enabled bool
	// Full is --verify-full: run the whole suite, not the related tests.
	Full bool
	// Checks is --verify-check, repeatable; it replaces the configured list.
	Checks []string
	// AllowTestEdits is --allow-test-edits, repeatable: test files the
	// user lets the model change.
	AllowTestEdits []string
}

// Output formats.
const (
	formatText       = "text"
	formatJSON       = "json"
	formatStreamJSON = "stream-json"
)

// addAgentFlags wires the root command: print mode (-p) and, without it,
// the interactive session.
func addAgentFlags(root *cobra.Command, std *stdio) {
	opts := &agentOptions{}
	root.Args = cobra.ArbitraryArgs
	root.Use = "chanto [-p] [flags] [PROMPT...]"
	f := root.Flags()
	f.BoolVarP(&opts.print, "print", "p", false, "print mode: run the prompt (the arguments, or stdin) to a final answer and exit with its verdict")
	f.StringVar(&opts.promptFile, "prompt-file", "", "read the prompt from `FILE`")
	f.StringVar(&opts.model, "model", "", "model as `PROVIDER/MODEL` (or scripted:PATH)")
	f.StringVar(&opts.outputFormat, "output-format", formatText, "output `FORMAT`: text, json or stream-json")
	f.StringVar(&opts.outputSchema, "output-schema", "", "JSON schema `FILE` the final answer must match")
	f.IntVar(&opts.maxTurns, "max-turns", 0, "stop with an error after `N` model calls (0: no limit)")
	f.StringVar(&opts.resume, "resume", "", "continue the session `ID`")
	f.BoolVarP(&opts.continueLast, "continue", "c", false, "continue the most recent session in this folder")
	f.StringVar(&opts.permissionMode, "permission-mode", "", "permission `MODE`: default, accept-edits, plan or bypass")
	f.BoolVar(&opts.lockdown, "lockdown", false, "run nothing that is not explicitly allowed, and never ask")
	f.StringVar(&opts.sandbox, "sandbox", "", "sandbox `MODE`: read-only, workspace-write or off")
	f.BoolVar(&opts.verify.Enabled, "verify", false, "verified mode: the project's checks must pass before the answer stands")
	f.BoolVar(&opts.verify.Full, "verify-full", false, "verified mode with the full suite instead of related tests")
	f.StringArrayVar(&opts.verify.Checks, "verify-check", nil, "a check `COMMAND` for verified mode (repeatable; replaces the configured checks)")
	f.StringArrayVar(&opts.verify.AllowTestEdits, "allow-test-edits", nil, "let the model change the test files at `PATH` (repeatable)")
	addGoalFlags(root, &opts.goal)
	f.StringArrayVar(&opts.mcpApprove, "mcp-approve", nil, "approve the project's MCP server `NAME` (.mcp.json) in a trusted folder; remembered (repeatable)")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if opts.verify.Full || len(opts.verify.Checks) > 0 {
			opts.verify.Enabled = true
		}
		if err := opts.validate(); err != nil {
			return err
		}
		piped := !isTerminal(std.in)
		if !opts.print && len(args) > 0 {
			return usageError("unexpected argument %q; to run a prompt use: chanto -p %q", args[0], strings.Join(args, " "))
		}
		if !opts.print && opts.promptFile == "" && !piped {
			if !isTerminal(std.out) {
				return usageError("the interactive session needs a terminal on stdin and stdout; to run a prompt use: chanto -p \"...\"")
			}
			return runInteractive(cmd.Context(), opts, std)
		}
		prompt, err := readPrompt(opts, args, std.in)
		if err != nil {
			return err
		}
		return runPrint(cmd.Context(), opts, prompt, std)
	}
}

func (o *agentOptions) validate() error {
	switch o.outputFormat {
	case formatText, formatJSON, formatStreamJSON:
	default:
		return usageError("--output-format %q: want text, json or stream-json", o.outputFormat)
	}
	if o.permissionMode != "" && !agent.ValidMode(o.permissionMode) {
		return usageError("--permission-mode %q: want default, accept-edits, plan or bypass", o.permissionMode)
	}
	switch o.sandbox {
	case "", "read-only", "workspace-write", "off":
	default:
		return usageError("--sandbox %q: want read-only, workspace-write or off", o.sandbox)
	}
	if o.maxTurns < 0 {
		return usageError("--max-turns %d: want 0 (no limit) or more", o.maxTurns)
	}
	if o.resume != "" && o.continueLast {
		return usageError("--resume and --continue cannot be used together")
	}
	if o.outputSchema != "" && o.verify.Enabled {
		return usageError("--output-schema runs have no done-gate; drop --verify or the schema")
	}
	if o.outputSchema != "" && o.goal.set() {
		return usageError("--output-schema runs have no done-gate, so they cannot hold a goal; drop the goal or the schema")
	}
	return nil
}

// readPrompt takes the prompt from --prompt-file, the arguments, or stdin,
// in that order.
func readPrompt(o *agentOptions, args []string, in io.Reader) (string, error) {
	var prompt string
	switch {
	case o.promptFile != "":
		if len(args) > 0 {
			return "", usageError("give the prompt either as arguments or with --prompt-file, not both")
		}
		data, err := os.ReadFile(o.promptFile)
		if err != nil {
			return "", usageError("--prompt-file: %v", pathErr(err))
		}
		prompt = string(data)
	case len(args) > 0:
		prompt = strings.Join(args, " ")
	case in != nil && !isTerminal(in):
		data, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read prompt from stdin: %w", err)
		}
		prompt = string(data)
	}
	if strings.TrimSpace(prompt) == "" && o.goal.set() {
		return goalPrompt, nil
	}
	if strings.TrimSpace(prompt) == "" {
		return "", usageError("no prompt: write it after -p (chanto -p \"fix the parser\") or pipe it on stdin")
	}
	return prompt, nil
}

// pathErr renders an *os.PathError as "PATH: reason".
func pathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// isTerminal reports whether v (a reader or writer) is a terminal; /dev/null
// and pipes are not.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}
