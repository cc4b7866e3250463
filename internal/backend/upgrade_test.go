package backend

import "testing"

// TestInstalledIn: a server in /usr/sbin came from the system's packages,
// one elsewhere from what its engine says; its --db form names its release,
// or its folder where the release could not be read.
func TestInstalledIn(t *testing.T) {
	cases := []struct {
		bin, release string
		want         Installed
	}{
		{"/usr/sbin", "10.11", Installed{Version: "v", Bin: "/usr/sbin", Source: "the system's packages", Form: "x:managed@10.11"}},
		{"/opt/x/bin", "11.4", Installed{Version: "v", Bin: "/opt/x/bin", Source: "a tarball", Form: "x:managed@11.4"}},
		{"/opt/y/bin", "", Installed{Version: "v", Bin: "/opt/y/bin", Source: "a tarball", Form: "x:managed@/opt/y/bin"}},
	}
	for _, c := range cases {
		if got := InstalledIn("x:managed", "v", c.release, c.bin, "a tarball"); got != c.want {
			t.Errorf("InstalledIn(%s, %q) = %+v, want %+v", c.bin, c.release, got, c.want)
		}
	}
}
