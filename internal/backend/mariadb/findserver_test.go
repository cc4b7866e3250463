package mariadb

import "testing"

// TestFindServerSaysWhatIsMissing: with no mariadb-install-db on PATH, the
// error names MariaDB's server and what to install (a rename once made it
// "no Server server found").
func TestFindServerSaysWhatIsMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := FindServer()
	if err == nil || err.Error() != "no MariaDB server found: apt-get install mariadb-server" {
		t.Fatalf("FindServer with nothing on PATH: %v", err)
	}
}
