package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/pyworker"
)

func newEnginesCmd(ctx context.Context, env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "engines",
		Short: "make the pinned Python environments of the engines dbgauge runs through a worker (zodb: zodb and zeo; zrs: zrs)",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown command %q for dbgauge engines: give install", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var dir string
	var show bool
	install := &cobra.Command{
		Use:   "install [NAME…]",
		Short: "make each environment (all when none is named) in the cache folder, or --dir",
		RunE: func(_ *cobra.Command, names []string) error {
			envs, err := environments(names)
			if err != nil {
				return err
			}
			if dir != "" && len(envs) > 1 {
				return knob.Bad("name one environment with --dir", "--dir %s: one folder for %d environments", dir, len(envs))
			}
			for _, e := range envs {
				if show {
					fmt.Fprintf(env.Stdout, "# %s: Python %s\n%s", e.Name, e.Python, e.Requirements)
					continue
				}
				made, err := e.Install(ctx, dir, env.Stderr)
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "%s: %s\n", e.Name, describeEnv(ctx, e, made))
			}
			return nil
		},
	}
	install.Flags().StringVar(&dir, "dir", "", "make it in `DIR` instead of the cache folder (then give --zodb-env DIR, or --zrs-env DIR, to a run)")
	install.Flags().BoolVar(&show, "print", false, "print each environment's pinned requirements instead of making it")
	cmd.AddCommand(install)
	return cmd
}

// environments returns the environments named, or all of them.
func environments(names []string) ([]pyworker.Env, error) {
	all := catalog.Environments()
	if len(names) == 0 {
		return all, nil
	}
	var out []pyworker.Env
	for _, n := range names {
		found := false
		for _, e := range all {
			if e.Name == n {
				out, found = append(out, e), true
			}
		}
		if !found {
			var known []string
			for _, e := range all {
				known = append(known, e.Name)
			}
			return nil, knob.Bad("give one of: "+strings.Join(known, ", "), "no environment %q", n)
		}
	}
	return out, nil
}

// describeEnv says where an environment is and what it holds, read back
// from its interpreter (Python 2.7's through pkg_resources: it has no
// importlib.metadata, nor -I).
func describeEnv(ctx context.Context, e pyworker.Env, dir string) string {
	py := filepath.Join(dir, "bin", "python")
	args := []string{"-I", "-c", "import sys; from importlib import metadata as m; ds = {d.metadata['Name'] for d in m.distributions()}; " +
		"print('Python %d.%d.%d, ' % sys.version_info[:3] + ', '.join(n + ' ' + m.version(n) for n in ('ZODB', 'ZEO', 'zc.zrs', 'RelStorage') if n in ds))"}
	if e.Python2() {
		args = []string{"-E", "-s", "-c", "import sys, pkg_resources as r; ds = dict((d.project_name, d.version) for d in r.working_set); " +
			"print('Python %d.%d.%d, ' % sys.version_info[:3] + ', '.join(n + ' ' + ds[n] for n in ('neoppod', 'ZODB', 'ZEO') if n in ds))"}
	}
	out, err := exec.CommandContext(ctx, py, args...).Output()
	if err != nil {
		return dir + " (its interpreter did not answer: " + err.Error() + ")"
	}
	return dir + " (" + strings.TrimSpace(string(out)) + ")"
}
