package analysis

import (
	"reflect"
	"testing"
)

// TestDifferingDefaults: a setting differs when its default is not the same
// in every version, or when a version lacks it; a version without defaults
// recorded (no run completed) decides nothing.
func TestDifferingDefaults(t *testing.T) {
	got := differing([]map[string]string{
		{"same": "on", "changed": "10", "removed": "0"},
		nil,
		{"same": "on", "changed": "16", "added": "worker"},
	})
	want := []DefaultDiff{
		{Name: "added", Values: []string{"", "", "worker"}},
		{Name: "changed", Values: []string{"10", "", "16"}},
		{Name: "removed", Values: []string{"0", "", ""}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("differing:\n got %+v\nwant %+v", got, want)
	}
}
