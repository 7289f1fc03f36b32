package detect

import (
	"os"
	"testing"
)

// TestMain gives the tests a chanto folder of their own, so remembered
// interpreter probes (probecache.go) neither come from nor go to the
// user's.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "chanto-detect-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("CHANTO_HOME", home)
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}
