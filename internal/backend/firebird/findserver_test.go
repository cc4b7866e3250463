package firebird

import (
	"os"
	"strings"
	"testing"
)

// TestFindServerSaysWhatIsMissing: with no isql-fb nor gfix on PATH, the
// error names Firebird 3 and what to install (a rename once made it "no
// Server 3 server found").
func TestFindServerSaysWhatIsMissing(t *testing.T) {
	if _, err := os.Stat("/opt/firebird/bin/isql"); err == nil {
		t.Skip("/opt/firebird/bin/isql is found whatever PATH says")
	}
	t.Setenv("PATH", t.TempDir())
	_, _, _, _, err := FindServer()
	if err == nil || !strings.HasPrefix(err.Error(), "no Firebird 3 server found: apt-get install firebird3.0-server") {
		t.Fatalf("FindServer with nothing on PATH: %v", err)
	}
}
