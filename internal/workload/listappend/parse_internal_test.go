package listappend

import (
	"slices"
	"testing"
)

// TestParse: a list's text, empty for a new row, with a leading comma once
// appended to.
func TestParse(t *testing.T) {
	for in, want := range map[string][]int64{"": {}, ",3": {3}, ",3,17,42": {3, 17, 42}, "5,6": {5, 6}} {
		got, err := parse(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parse(",3,x"); err == nil {
		t.Error("parse accepted a value dbgauge never appends")
	}
}
