package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

func newSessionsCmd(std *stdio) *cobra.Command {
	return &cobra.Command{
		Use:  "sessions",
		RunE: func(cmd *cobra.Command, args []string) error { return errors.New("not implemented yet") },
	}
}
