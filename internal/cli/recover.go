package cli

import (
	"github.com/chanto-dev/chanto/internal/config"
	"github.com/chanto-dev/chanto/internal/verify/baseline"
)

// recoverPutbacks restores files left put back by a chanto that died in
// the middle of a baseline run (and whose watcher died too), and says so.
// Every start that may touch a project does this first (DESIGN §5).
func recoverPutbacks(std *stdio) {
	restored, err := baseline.Recover(config.HistoryDir())
	for _, r := range restored {
		diag(std.err, "%s", r.Message())
	}
	if err != nil {
		diag(std.err, "%v", err)
	}
}
