package runner

import "testing"

func TestHasGoFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"go", "test", "-tags", "x", "./..."}, true},
		{[]string{"go", "test", "--tags=x", "./..."}, true},
		{[]string{"go", "test", "-test.tags=x"}, true},
		{[]string{"go", "test", "-tagsx", "./..."}, false},
		{[]string{"go", "test", "tags", "./..."}, false},
	} {
		if got := HasGoFlag(c.args, "tags"); got != c.want {
			t.Errorf("HasGoFlag(%q, tags) = %v, want %v", c.args, got, c.want)
		}
	}
}
