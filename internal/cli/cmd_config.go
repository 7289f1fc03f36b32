package cli

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/safetext"
	"github.com/spf13/cobra"
)

func newConfigCmd(std *stdio) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration and where each value came from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConfig(std, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object instead of TOML-style lines")
	return cmd
}

// configReport is the --json shape of `chanto config`.
type configReport struct {
	UserFile    string          `json:"user_file"`
	ProjectFile string          `json:"project_file"`
	ProjectDir  string          `json:"project_dir"`
	Trusted     bool            `json:"trusted"`
	Values      []config.Source `json:"values"`
	Warnings    []string        `json:"warnings"`
}

func runConfig(std *stdio, asJSON bool) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	root := config.FindProjectRoot(cwd)
	l, err := config.Load(config.LoadOptions{ProjectDir: root})
	if err != nil {
		return usageError("%v", err)
	}
	if asJSON {
		rep := configReport{UserFile: l.UserFile, ProjectFile: l.ProjectFile, ProjectDir: root,
			Trusted: l.Trusted, Values: l.Sources(), Warnings: l.Warnings}
		if rep.Warnings == nil {
			rep.Warnings = []string{}
		}
		return writeJSON(std.out, rep)
	}
	for _, w := range l.Warnings {
		diag(std.err, "warning: %s", w)
	}
	trust := "not trusted"
	if l.Trusted {
		trust = "trusted"
	}
	fmt.Fprintf(std.out, "# user file:    %s\n", safetext.Line(orAbsent(l.UserFile, config.UserFile())))
	fmt.Fprintf(std.out, "# project file: %s\n", safetext.Line(orAbsent(l.ProjectFile, config.ProjectFile(root))))
	fmt.Fprintf(std.out, "# project:      %s (%s)\n", safetext.Line(root), trust)
	tw := tabwriter.NewWriter(std.out, 0, 0, 2, ' ', 0)
	for _, s := range l.Sources() {
		fmt.Fprintf(tw, "%s = %s\t# %s\n", safetext.Line(s.Key), safetext.Line(s.Value), safetext.Line(s.From))
	}
	return tw.Flush()
}

func orAbsent(found, expected string) string {
	if found != "" {
		return found
	}
	return expected + " (absent)"
}
