package cli

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/chanto-dev/chanto/internal/agent"
	"github.com/chanto-dev/chanto/internal/agents"
	"github.com/chanto-dev/chanto/internal/app"
	"github.com/chanto-dev/chanto/internal/safetext"
)

// agentView is one agent as `chanto agents --json` prints it.
type agentView struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Model       string   `json:"model"`
	Tools       []string `json:"tools"`
	ReadOnly    bool     `json:"read_only,omitempty"`
}

func newAgentsCmd(std *stdio) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the agents the task tool can start, and where each comes from",
		Long: "List the built-in agents (general-purpose, explore, oracle) and the ones defined in\n" +
			"~/.chanto/agents/*.md and the project's .chanto/agents/*.md (or .claude/agents/*.md),\n" +
			"project files only in a trusted folder. A file that cannot be used is reported on stderr.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			loaded, err := loadConfig(cwd)
			if err != nil {
				return usageError("%v", err)
			}
			l := app.LoadAgents(loaded.Config, cwd)
			for _, p := range l.Problems {
				diag(std.err, "%s", p)
			}
			views := agentViews(l.Set, loaded.Config.Model)
			if asJSON {
				return writeJSON(std.out, views)
			}
			printAgents(std, views)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return cmd
}

func agentViews(set *agents.Set, mainModel string) []agentView {
	tools := app.Tools(set)
	var out []agentView
	for _, a := range set.All() {
		v := agentView{Name: a.Name, Description: a.Description, Source: a.Source, Model: a.Model, Tools: []string{}, ReadOnly: a.ReadOnly}
		if v.Model == "" {
			v.Model = mainModel
		}
		for _, t := range agent.SubagentTools(tools, a, true) {
			v.Tools = append(v.Tools, t.Name())
		}
		out = append(out, v)
	}
	return out
}

func printAgents(std *stdio, views []agentView) {
	tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tMODEL\tTOOLS")
	for _, v := range views {
		tools := strings.Join(v.Tools, ", ")
		if v.ReadOnly {
			tools += " (read-only)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", safetext.Line(v.Name), safetext.Line(v.Source), safetext.Line(v.Model), tools)
	}
	_ = tw.Flush()
	fmt.Fprintln(std.out)
	for _, v := range views {
		fmt.Fprintf(std.out, "%s: %s\n", safetext.Line(v.Name), safetext.Line(strings.Join(strings.Fields(v.Description), " ")))
	}
}
