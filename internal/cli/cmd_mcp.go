package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/mcp"
	"github.com/chanto-dev/chanto/internal/safetext"
)

func newMCPCmd(std *stdio) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List, add and remove MCP servers ([mcp_servers] and .mcp.json)",
		Long: "MCP servers come from [mcp_servers.NAME] tables in ~/.chanto/config.toml (Codex's keys) and\n" +
			"from the project: .mcp.json (Claude Code's format) and .chanto/config.toml. A project's servers\n" +
			"start only in a trusted folder, once you approved each (--mcp-approve NAME, or the question the\n" +
			"interactive session asks). See docs/mcp.md.",
	}
	cmd.AddCommand(newMCPListCmd(std), newMCPGetCmd(std), newMCPAddCmd(std), newMCPRemoveCmd(std))
	return cmd
}

// mcpEntry is one configured server as `chanto mcp list --json` shows it.
type mcpEntry struct {
	Name      string `json:"name"`
	Origin    string `json:"origin"`
	Where     string `json:"where"`
	Transport string `json:"transport"`
	Command   string `json:"command"`
	// State says whether it would start: enabled, disabled, approved,
	// not trusted, not approved.
	State string   `json:"state"`
	Tools string   `json:"tools,omitempty"`
	Env   []string `json:"env,omitempty"`
}

// mcpEntries reads the configured servers without starting any.
func mcpEntries() ([]mcpEntry, []string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	root := config.FindProjectRoot(cwd)
	l, err := config.Load(config.LoadOptions{ProjectDir: root})
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	specs, warns := mcp.Specs(l.Config, root, os.Getenv)
	var out []mcpEntry
	for _, s := range specs {
		e := mcpEntry{Name: s.Name, Origin: s.Origin, Where: s.Where, Transport: s.Transport, Command: s.CommandLine(), State: "enabled"}
		switch {
		case !s.Enabled:
			e.State = "disabled"
		case s.Project() && !l.Trusted:
			e.State = "not trusted (chanto trust " + root + ")"
		case s.Project():
			if ok, _ := mcp.Approved(root, s); ok {
				e.State = "approved"
			} else {
				e.State = "not approved (--mcp-approve " + s.Name + ")"
			}
		}
		if len(s.EnabledTools) > 0 {
			e.Tools = "only " + strings.Join(s.EnabledTools, ", ")
		}
		if len(s.DisabledTools) > 0 {
			e.Tools = strings.TrimPrefix(e.Tools+"; not "+strings.Join(s.DisabledTools, ", "), "; ")
		}
		for k := range s.Env {
			e.Env = append(e.Env, k)
		}
		sort.Strings(e.Env)
		e.Env = append(e.Env, s.EnvVars...)
		out = append(out, e)
	}
	// Untrusted project servers never reach Specs; the loader's warnings
	// name them.
	for _, w := range l.Warnings {
		if strings.Contains(w, "defines MCP server") {
			warns = append(warns, w)
		}
	}
	return out, warns, nil
}

func originLabel(e mcpEntry) string {
	switch e.Origin {
	case mcp.FromUser:
		return "user"
	case mcp.FromMCPJSON:
		return "project (.mcp.json)"
	}
	return "project (.chanto/config.toml)"
}

func newMCPListCmd(std *stdio) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers and whether each would start (nothing is started)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, warns, err := mcpEntries()
			if err != nil {
				return err
			}
			for _, w := range warns {
				fmt.Fprintf(std.err, "chanto: warning: %s\n", w)
			}
			if asJSON {
				if entries == nil {
					entries = []mcpEntry{}
				}
				b, _ := json.MarshalIndent(entries, "", "  ")
				fmt.Fprintln(std.out, string(safetext.JSON(b)))
				return nil
			}
			if len(entries) == 0 {
				fmt.Fprintln(std.out, "no MCP servers configured (chanto mcp add NAME -- COMMAND [ARGS...])")
				return nil
			}
			tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tFROM\tTRANSPORT\tCOMMAND OR URL\tSTATE")
			for _, e := range entries {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, originLabel(e), e.Transport, safetext.Cut(safetext.Line(e.Command), 60), e.State)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func newMCPGetCmd(std *stdio) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one configured MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, _, err := mcpEntries()
			if err != nil {
				return err
			}
			for _, e := range entries {
				if e.Name != args[0] {
					continue
				}
				if asJSON {
					b, _ := json.MarshalIndent(e, "", "  ")
					fmt.Fprintln(std.out, string(safetext.JSON(b)))
					return nil
				}
				fmt.Fprintf(std.out, "%s\n  from: %s (%s)\n  transport: %s\n  command: %s\n  state: %s\n",
					e.Name, originLabel(e), e.Where, e.Transport, safetext.Line(e.Command), e.State)
				if len(e.Env) > 0 {
					fmt.Fprintf(std.out, "  environment: %s\n", strings.Join(e.Env, ", "))
				}
				if e.Tools != "" {
					fmt.Fprintf(std.out, "  tools: %s\n", e.Tools)
				}
				return nil
			}
			return usageError("mcp get: no MCP server %q (chanto mcp list shows them)", args[0])
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

func newMCPAddCmd(std *stdio) *cobra.Command {
	var env []string
	var url, bearer, scope string
	cmd := &cobra.Command{
		Use:   "add NAME [flags] [-- COMMAND [ARGS...]]",
		Short: "Add an MCP server: a stdio command after --, or --url for streamable HTTP",
		Long: "Add an MCP server to ~/.chanto/config.toml ([mcp_servers.NAME]), or with --scope project to\n" +
			"the project's .mcp.json, in Claude Code's format:\n\n" +
			"  chanto mcp add memory -- npx -y @modelcontextprotocol/server-memory\n" +
			"  chanto mcp add github --url https://api.githubcopilot.com/mcp/ --bearer-token-env-var GITHUB_PAT",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := mcp.CheckName(name); err != nil {
				return usageError("mcp add: %v", err)
			}
			s := config.MCPServer{URL: url, BearerTokenEnvVar: bearer}
			if len(args) > 1 {
				s.Command, s.Args = args[1], args[2:]
			}
			switch {
			case s.Command == "" && url == "":
				return usageError("mcp add %s: give the server's command after -- (chanto mcp add %s -- npx -y PACKAGE), or --url", name, name)
			case s.Command != "" && url != "":
				return usageError("mcp add %s: a command or --url, not both", name)
			case bearer != "" && url == "":
				return usageError("mcp add %s: --bearer-token-env-var needs --url", name)
			}
			for _, kv := range env {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usageError("mcp add %s: --env %q: want KEY=VALUE", name, kv)
				}
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				s.Env[k] = v
			}
			file, err := addServer(scope, name, s)
			if err != nil {
				return err
			}
			fmt.Fprintf(std.out, "added MCP server %s to %s\n", name, file)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&env, "env", "e", nil, "an environment variable `KEY=VALUE` for the server (repeatable)")
	f.StringVar(&url, "url", "", "a streamable HTTP server at `URL`")
	f.StringVar(&bearer, "bearer-token-env-var", "", "send the token in `VAR` as Authorization: Bearer")
	f.StringVarP(&scope, "scope", "s", "user", "where: user (~/.chanto/config.toml) or project (.mcp.json)")
	return cmd
}

func addServer(scope, name string, s config.MCPServer) (string, error) {
	switch scope {
	case "user":
		file := config.UserFile()
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return "", err
		}
		return file, mcp.AddTOML(file, name, s)
	case "project":
		if s.BearerTokenEnvVar != "" {
			return "", usageError("mcp add %s: .mcp.json has no bearer_token_env_var; use --scope user", name)
		}
		cwd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		file := filepath.Join(config.FindProjectRoot(cwd), ".mcp.json")
		return file, mcp.AddMCPJSON(file, name, s)
	}
	return "", usageError("mcp add: --scope %q: want user or project", scope)
}

func newMCPRemoveCmd(std *stdio) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server from ~/.chanto/config.toml or the project's .mcp.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			root := config.FindProjectRoot(cwd)
			var removed []string
			if scope == "" || scope == "user" {
				ok, err := mcp.RemoveTOML(config.UserFile(), name)
				if err != nil {
					return err
				}
				if ok {
					removed = append(removed, config.UserFile())
				}
			}
			if scope == "" || scope == "project" {
				file := filepath.Join(root, ".mcp.json")
				ok, err := mcp.RemoveMCPJSON(file, name)
				if err != nil {
					return err
				}
				if ok {
					removed = append(removed, file)
					_ = mcp.Revoke(root, name)
				}
			}
			if scope != "" && scope != "user" && scope != "project" {
				return usageError("mcp remove: --scope %q: want user or project", scope)
			}
			if len(removed) == 0 {
				return usageError("mcp remove: no MCP server %q in %s or %s", name, config.UserFile(), filepath.Join(root, ".mcp.json"))
			}
			for _, f := range removed {
				fmt.Fprintf(std.out, "removed MCP server %s from %s\n", name, f)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&scope, "scope", "s", "", "only from: user or project")
	return cmd
}
