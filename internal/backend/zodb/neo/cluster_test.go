package neo

import (
	"strings"
	"testing"
)

// TestParseState reads what neoctl 1.12.0 printed of a cluster of two
// storage nodes with one replica, before and after storage1 was killed
// (its cells out of date).
func TestParseState(t *testing.T) {
	nodes := `A1 | ADMIN   | 127.0.0.1:24202 | RUNNING | 2026-11-29 23:33:13.744100
M1 | MASTER  | 127.0.0.1:24200 | RUNNING | None
S1 | STORAGE | 127.0.0.1:24201 | DOWN    | 2026-11-29 23:33:12.966495
S2 | STORAGE | 127.0.0.1:24203 | RUNNING | 2026-11-29 23:33:13.070959`
	head := "# ptid: 2, replicas: 1\n             10v       20v       30v       40v       50v       60v       70v       80v       90v\n"
	up := "S2 R " + strings.Repeat("U", 100) + "\n"
	st := parseState("RUNNING\n", nodes, head+"S1 D "+strings.Repeat("O", 100)+"\n"+up)
	if st.Cluster != "RUNNING" || st.Nodes["127.0.0.1:24201"] != "DOWN" || st.Nodes["127.0.0.1:24203"] != "RUNNING" || st.Nodes["127.0.0.1:24200"] != "RUNNING" {
		t.Errorf("cluster and nodes: %+v", st)
	}
	if st.Replicas != 1 || st.Partitions != 100 || st.NotUp != 100 {
		t.Errorf("partition table: replicas %d, partitions %d, %d cells not up to date; want 1, 100, 100", st.Replicas, st.Partitions, st.NotUp)
	}
	st = parseState("RUNNING", nodes, head+"S1 R "+strings.Repeat("U", 100)+"\n"+up)
	if st.NotUp != 0 || st.Partitions != 100 {
		t.Errorf("caught up: %d cells not up to date of %d partitions", st.NotUp, st.Partitions)
	}
}
