package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/hostinfo"
)

// versionInfo is what `dbgauge version --json` prints.
type versionInfo struct {
	hostinfo.Build
	Drivers []driverInfo `json:"drivers"`
}

// driverInfo is how dbgauge speaks to one engine.
type driverInfo struct {
	Backend string `json:"backend"`
	Driver  string `json:"driver"`
	Version string `json:"version,omitempty"`
}

func newVersionCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "dbgauge's version, the commit it was built from, its Go and the driver of each engine",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			v := versionInfo{Build: hostinfo.ReadBuild()}
			for _, b := range catalog.Backends() {
				d := driverInfo{Backend: b.Name, Driver: b.Driver}
				if strings.Contains(b.Driver, ".") && !strings.Contains(b.Driver, " ") { // a Go module's path
					d.Version = backend.ModuleVersion(b.Driver)
				}
				v.Drivers = append(v.Drivers, d)
			}
			if asJSON {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "dbgauge %s\n", v.Version)
			if v.Commit == "" {
				fmt.Fprintf(tw, "  commit\tunknown: this build recorded no version control information\n")
			} else {
				commit := v.Commit
				if v.Time != "" {
					commit += " (" + v.Time + ")"
				}
				if v.Modified {
					commit += ", with changes not committed"
				}
				fmt.Fprintf(tw, "  commit\t%s\n", commit)
			}
			cgo := "without cgo (sqlite and gdbm need it)"
			if v.Cgo {
				cgo = "with cgo"
			}
			fmt.Fprintf(tw, "  go\t%s %s, %s\n", v.Go, v.Platform, cgo)
			label := "drivers"
			for _, d := range v.Drivers {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", label, d.Backend, strings.TrimSpace(d.Driver+" "+d.Version))
				label = ""
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print it as JSON")
	return cmd
}
