package sandbox

import (
	"os"
	"testing"
)

func TestProbeRecord(t *testing.T) {
	t.Setenv("CHANTO_HOME", t.TempDir())
	key := probeKey(BwrapPath)
	if key == "" {
		t.Skip("no bubblewrap or boot id here")
	}
	if probeRecorded(key) {
		t.Fatal("a record before any probe")
	}
	recordProbe(key)
	if !probeRecorded(key) {
		t.Fatal("the recorded probe is not found")
	}
	if probeRecorded(key + "max_user_namespaces=0\n") {
		t.Error("a record taken for other namespace settings")
	}
	if err := os.WriteFile(probeRecordPath(), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if probeRecorded(key) {
		t.Error("a garbled record taken")
	}
	if probeKey("/nonexistent/bwrap") != "" {
		t.Error("a key for a missing bubblewrap")
	}
}
