package cli

import "github.com/spf13/cobra"

// addHiddenCmds registers internal subcommands chanto runs itself (the
// putback watcher); they are not part of the user interface.
func addHiddenCmds(root *cobra.Command, std *stdio) {}
