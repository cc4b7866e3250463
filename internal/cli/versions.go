package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/catalog"
)

func newVersionsCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "versions",
		Short: "the versions of each server engine installed here, where each came from, and the --db value that starts it",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			for _, b := range catalog.Backends() {
				if b.Installed == nil {
					continue
				}
				found := b.Installed()
				fmt.Fprintf(tw, "%s\n", b.Name)
				if len(found) == 0 {
					fmt.Fprintf(tw, "  none installed\n")
				}
				for _, in := range found {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", in.Form, in.Version, in.Bin, in.Source)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, "\nPostgreSQL: scripts/install-pg-versions.sh installs 13, 14, 16, 17 and 18 (docs/versions.md).")
			fmt.Fprintln(env.Stdout, "MariaDB and Firebird: one version each, the system's; no other can be installed on this machine.")
			return nil
		},
	}
}
