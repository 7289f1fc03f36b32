package cli

import (
	"github.com/spf13/cobra"

	"github.com/chanto-dev/chanto/internal/verify/baseline"
)

// addHiddenCmds registers internal subcommands chanto runs itself (the
// putback watcher); they are not part of the user interface.
func addHiddenCmds(root *cobra.Command, std *stdio) {
	root.AddCommand(&cobra.Command{
		Use:    baseline.WatchCommand + " [SAVE_DIR]",
		Short:  "Restore a putback's saved files if the chanto that started it dies",
		Hidden: true,
		Args:   cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "" // from the environment, as chanto starts it
			if len(args) == 1 {
				dir = args[0]
			}
			return baseline.Watch(dir, std.in, std.out)
		},
	})
}
