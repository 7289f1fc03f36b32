package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/hookinstall"
	"github.com/chanto-dev/chanto/internal/shell"
)

// hookSetupCmds are `chanto hook install|uninstall|status`: they write
// chanto's hook entries into Claude Code's, Codex's and gemini-cli's
// settings (internal/hookinstall).
func hookSetupCmds(std *stdio) []*cobra.Command {
	return []*cobra.Command{newHookInstallCmd(std), newHookUninstallCmd(std), newHookStatusCmd(std)}
}

type hookSetupOptions struct {
	user    bool
	trust   bool
	command string
}

func newHookInstallCmd(std *stdio) *cobra.Command {
	var opts hookSetupOptions
	cmd := &cobra.Command{
		Use:   "install claude|codex|gemini",
		Short: "Add chanto's done-gate to an agent's hooks (project settings, or --user)",
		Long: `Write the hook entries that run "chanto hook AGENT" into the agent's settings:
.claude/settings.json, .codex/hooks.json or .gemini/settings.json in the
project (or the user's own with --user). The file's other hooks and settings
stay as they are; installing again changes nothing. See docs/hooks-for-agents.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHookInstall(args[0], opts, cmd.Flags().Changed("trust"), std)
		},
	}
	cmd.Flags().BoolVar(&opts.user, "user", false, "install in the user's settings (every project) instead of the project's")
	cmd.Flags().BoolVar(&opts.trust, "trust", false, "Codex: record the approval Codex asks for in /hooks, in ~/.codex/config.toml")
	cmd.Flags().StringVar(&opts.command, "command", "", "run chanto as `CMD` (default: chanto when it is this one on PATH, else this binary's path)")
	return cmd
}

func newHookUninstallCmd(std *stdio) *cobra.Command {
	var opts hookSetupOptions
	cmd := &cobra.Command{
		Use:   "uninstall claude|codex|gemini",
		Short: "Remove chanto's hooks from an agent's settings (project, or --user)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHookUninstall(args[0], opts, std)
		},
	}
	cmd.Flags().BoolVar(&opts.user, "user", false, "remove them from the user's settings instead of the project's")
	return cmd
}

func newHookStatusCmd(std *stdio) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show where chanto's hooks are installed, for each agent",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHookStatus(asJSON, std)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON")
	return cmd
}

// hookSetup reads the agent and where its files are.
func hookSetup(name string, opts hookSetupOptions) (hookinstall.Options, error) {
	a, err := hookinstall.ParseAgent(name)
	if err != nil {
		return hookinstall.Options{}, usageError("%v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return hookinstall.Options{}, err
	}
	o := hookinstall.Options{Agent: a, Scope: hookinstall.Project, Paths: hookinstall.PathsFromEnv(config.FindProjectRoot(wd)),
		Command: hookCommand(opts.command, a), Trust: opts.trust, Record: filepath.Join(config.HistoryDir(), "hook-installs")}
	if opts.user {
		o.Scope = hookinstall.User
	}
	return o, nil
}

func runHookInstall(name string, opts hookSetupOptions, trustSet bool, std *stdio) error {
	o, err := hookSetup(name, opts)
	if err != nil {
		return err
	}
	if trustSet && o.Agent != hookinstall.Codex {
		return usageError("--trust: only Codex asks for an approval of new hooks")
	}
	res, err := hookinstall.Install(o)
	if err != nil {
		return err
	}
	switch {
	case len(res.Added) == 0 && len(res.Removed) == 0:
		fmt.Fprintf(std.out, "%s: chanto's hooks are already in %s (%s); nothing changed\n", o.Agent.Title(), res.File, strings.Join(res.Kept, ", "))
	case res.Created:
		fmt.Fprintf(std.out, "%s: wrote %s with chanto's hooks (%s)\n", o.Agent.Title(), res.File, strings.Join(res.Added, ", "))
	default:
		fmt.Fprintf(std.out, "%s: added chanto's hooks to %s (%s)\n", o.Agent.Title(), res.File, strings.Join(res.Added, ", "))
	}
	if len(res.Removed) > 0 {
		fmt.Fprintf(std.out, "  replaced an older install's %s\n", strings.Join(res.Removed, ", "))
	}
	fmt.Fprintf(std.out, "  each runs: %s\n", o.Command)
	if o.Scope == hookinstall.Project && filepath.IsAbs(firstWord(o.Command)) {
		fmt.Fprintf(std.out, "  (chanto's path is this machine's: commit %s only if it is the same for everyone, or use --command)\n", res.File)
	}
	if res.Approved > 0 {
		fmt.Fprintf(std.out, "  recorded %d Codex approvals\n", res.Approved)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(std.out, n)
	}
	return nil
}

func runHookUninstall(name string, opts hookSetupOptions, std *stdio) error {
	o, err := hookSetup(name, opts)
	if err != nil {
		return err
	}
	res, err := hookinstall.Uninstall(o)
	if err != nil {
		return err
	}
	if len(res.Removed) == 0 {
		fmt.Fprintf(std.out, "%s: no chanto hooks in %s; nothing changed\n", o.Agent.Title(), res.File)
		return nil
	}
	fmt.Fprintf(std.out, "%s: removed chanto's hooks from %s (%s)\n", o.Agent.Title(), res.File, strings.Join(res.Removed, ", "))
	if res.Deleted {
		fmt.Fprintf(std.out, "  deleted %s: nothing else was in it\n", res.File)
	}
	if res.Approved > 0 {
		fmt.Fprintf(std.out, "  and their %d Codex approvals\n", res.Approved)
	}
	return nil
}

func runHookStatus(asJSON bool, std *stdio) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	entries := hookinstall.Status(hookinstall.PathsFromEnv(config.FindProjectRoot(wd)), func(a hookinstall.Agent) string {
		return hookCommand("", a)
	})
	if asJSON {
		return writeJSON(std.out, statusJSON(entries))
	}
	printHookStatus(std.out, entries)
	return nil
}

// printHookStatus is one line per agent and scope.
func printHookStatus(w io.Writer, entries []hookinstall.Entry) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Agent.Title(), e.Scope, e.File, hookState(e))
	}
	tw.Flush()
}

// hookState says what an entry holds, and what to do about it.
func hookState(e hookinstall.Entry) string {
	var s string
	switch {
	case e.Err != nil:
		return "error: " + e.Err.Error()
	case !e.Exists:
		return "no file"
	case len(e.Found) == 0:
		s = "not installed"
	case len(e.Missing) > 0:
		s = fmt.Sprintf("partly installed: %s missing (chanto hook install %s%s)", strings.Join(e.Missing, ", "), e.Agent, userFlag(e.Scope))
	case len(e.Outdated) > 0:
		s = fmt.Sprintf("installed, %s not as install writes it now (chanto hook install %s%s)", strings.Join(e.Outdated, ", "), e.Agent, userFlag(e.Scope))
	default:
		s = fmt.Sprintf("installed (%d hooks)", len(e.Found))
	}
	if e.Unapproved > 0 {
		s += fmt.Sprintf("; %d of %d not approved in Codex (/hooks, or chanto hook install codex%s --trust)", e.Unapproved, e.Approved+e.Unapproved, userFlag(e.Scope))
	} else if e.Approved > 0 {
		s += "; approved in Codex"
	}
	if e.Off != "" && len(e.Found) > 0 {
		s += "; but " + e.Off
	}
	return s
}

func userFlag(s hookinstall.Scope) string {
	if s == hookinstall.User {
		return " --user"
	}
	return ""
}

// hookStatusEntry is one line of `chanto hook status --json`.
type hookStatusEntry struct {
	Agent      string   `json:"agent"`
	Scope      string   `json:"scope"`
	File       string   `json:"file"`
	Exists     bool     `json:"exists"`
	Installed  bool     `json:"installed"`
	Events     []string `json:"events"`
	Missing    []string `json:"missing,omitempty"`
	Outdated   []string `json:"outdated,omitempty"`
	Approved   int      `json:"approved,omitempty"`
	Unapproved int      `json:"unapproved,omitempty"`
	Off        string   `json:"off,omitempty"`
	Error      string   `json:"error,omitempty"`
}

func statusJSON(entries []hookinstall.Entry) []hookStatusEntry {
	out := []hookStatusEntry{}
	for _, e := range entries {
		j := hookStatusEntry{Agent: string(e.Agent), Scope: string(e.Scope), File: e.File, Exists: e.Exists, Installed: e.Installed(),
			Events: []string{}, Missing: e.Missing, Outdated: e.Outdated, Approved: e.Approved, Unapproved: e.Unapproved, Off: e.Off}
		for _, f := range e.Found {
			j.Events = append(j.Events, f.Event)
		}
		if e.Err != nil {
			j.Error = e.Err.Error()
		}
		out = append(out, j)
	}
	return out
}

// hookCommand is the command an agent's hook runs: base (--command), else
// "chanto" when the chanto on PATH is this binary, else this binary's
// path, so the hook runs the chanto that installed it.
func hookCommand(base string, a hookinstall.Agent) string {
	if base == "" {
		base = selfCommand()
	}
	return base + " hook " + string(a)
}

func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "chanto"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if p, err := exec.LookPath("chanto"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && real == exe {
			return "chanto"
		}
	}
	return shell.Quote(exe)
}

func firstWord(command string) string {
	w, _, _ := strings.Cut(command, " ")
	return strings.Trim(w, `'"`)
}
