package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// addAgentFlags wires the root command: print mode (-p) and, without it,
// the interactive session.
func addAgentFlags(root *cobra.Command, std *stdio) {
	root.RunE = func(cmd *cobra.Command, args []string) error {
		return errors.New("not implemented yet")
	}
}
