package verify

import (
	"os"
	"testing"

	"github.com/chanto-dev/chanto/internal/verify/baseline"
)

// TestMain lets the test binary stand in for chanto's putback watcher.
func TestMain(m *testing.M) {
	baseline.ServeWatchIfAsked()
	os.Exit(m.Run())
}
