package cli

import (
	"fmt"
	"os"

	"github.com/chanto-dev/chanto/internal/config"
	"github.com/spf13/cobra"
)

func newTrustCmd(std *stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Mark a folder trusted: its project config may run commands",
		Long: "Mark DIR (default: the current folder) and everything below it trusted.\n" +
			"In a trusted folder, .chanto/config.toml may set checks, hooks and permission rules;\n" +
			"elsewhere those keys are ignored with a warning. The list is kept in ~/.chanto/trusted.json.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if _, err := os.Stat(dir); err != nil {
				return usageError("trust: %s: no such folder", dir)
			}
			real, err := config.Trust(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(std.out, "trusted %s\n", real)
			return nil
		},
	}
}
