package config

import "testing"

func TestHomeIsCleaned(t *testing.T) {
	t.Setenv("CHANTO_HOME", "/tmp//x/./home/")
	if got := Home(); got != "/tmp/x/home" {
		t.Errorf("Home() = %q, want /tmp/x/home", got)
	}
}
