package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/session"
)

// commands returns every command of the tree that a user can call, with
// the words that call it ("run nms").
func commands(t *testing.T) map[string]*cobra.Command {
	t.Helper()
	root := newRoot(context.Background(), &Env{}, func() {})
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden {
			return
		}
		out[strings.Join(path, " ")] = c
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
	}
	walk(root, nil)
	return out
}

// flagLine is a flag's line in --help: its name.
var flagLine = regexp.MustCompile(`(?m)^ +(?:-[a-zA-Z], )?--([a-z0-9-]+)\b`)

// TestHelpWalk runs --help on every command of the tree, on its own: each
// exits 0, says what the command does, and lists its flags, each with a
// description and a form in words (no Go type names).
func TestHelpWalk(t *testing.T) {
	cmds := commands(t)
	if len(cmds) < 40 {
		t.Fatalf("only %d commands in the tree", len(cmds))
	}
	goTypes := regexp.MustCompile(`--[a-z-]+ (string|stringArray|int64|float64|uint)\b`)
	// One tree for every --help, as Main runs it (a tree per call costs a
	// second under the race detector for nothing: --help sets no flag).
	var outb, errb bytes.Buffer
	root := newRoot(context.Background(), &Env{Stdout: &outb, Stderr: &errb}, func() {})
	root.SetOut(&outb)
	root.SetErr(&errb)
	for path, c := range cmds {
		args := append(strings.Fields(path), "--help")
		outb.Reset()
		errb.Reset()
		root.SetArgs(args)
		code, msg := exitStatus(root.Execute())
		out, errs := outb.String(), errb.String()+msg
		if code != 0 || errs != "" {
			t.Errorf("dbgauge %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
			continue
		}
		if strings.TrimSpace(c.Short) == "" {
			t.Errorf("dbgauge %s has no description", path)
		}
		if !strings.Contains(out, "Usage:\n  dbgauge "+strings.TrimSpace(path)) {
			t.Errorf("dbgauge %s --help shows no usage of its own:\n%s", path, out)
		}
		if m := goTypes.FindString(out); m != "" {
			t.Errorf("dbgauge %s --help shows a Go type: %s", path, m)
		}
		listed := map[string]bool{}
		for _, m := range flagLine.FindAllStringSubmatch(out, -1) {
			listed[m[1]] = true
		}
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if strings.TrimSpace(f.Usage) == "" {
					t.Errorf("dbgauge %s --%s has no description", path, f.Name)
				}
				if !f.Hidden && !listed[f.Name] {
					t.Errorf("dbgauge %s --help does not list --%s", path, f.Name)
				}
			})
		}
	}
}

// bad is a value each knob refuses, by kind; a text's by name.
func bad(k knob.Spec, file string) (string, bool) {
	switch k.Kind {
	case knob.Int, knob.Number, knob.Size:
		return "x1", true
	case knob.Duration:
		return "10", true // no unit
	case knob.Choice:
		return "no-such-choice", true
	case knob.Switch:
		return "maybe", true
	}
	v, ok := map[string]string{
		"db": "nosuch://x", "set": "nokey", "require": "calls/s>>1", "backup": "when=1s", "failover": "when=1s",
		"fault": "when=1s", "cpus": "nowhere", "dataset": "huge", "commit": "sometimes", "results": file + "/sub",
		"file": "/no/such/script.sql", "define": "novalue", "workload-file": "/no/such/file.toml",
		"mix": "dance=1", "hotspot": "most", "checkpoints": "soon", "path": "/no/such/dir", "block": "big",
		"method": "prayer", "pattern": "zigzag", "fault-after": "later", "resume": file, "pg-bin": "/no/such/bin", "zodb-env": "/no/such/env", "zrs-env": "/no/such/env", "relstorage-env": "/no/such/env", "neo-env": "/no/such/env",
		"data-dir": file, "metrics-addr": "nowhere", "warmup": "automatic", "ops": "4-1", "halt-on-errors": "/XX/", "shard": "5/2", "start-at": "noon",
		"from": "postgres:managed@x", "to": "postgres:managed@x",
		"profile": "wave 1/s", "slo": "fast", "resolution": "fine",
	}[k.Name]
	return v, ok
}

// upgradable says whether PostgreSQL 15 and 18, which the upgrade's probes
// name, are installed.
func upgradable() bool {
	_, e15 := postgres.FindVersion(15)
	_, e18 := postgres.FindVersion(18)
	return e15 == nil && e18 == nil
}

// noBadValue are the knobs for which every value is one: nothing to probe.
var noBadValue = map[string]string{
	"stop-file": "any path may appear as a stop file",
}

// TestHelpListsWhatIsRead: every flag a command lists, the command reads:
// given a value it refuses, the command says so, naming the flag (exit 2,
// nothing run). A flag listed and never read would take the value in
// silence. The commands a workload's flags reach are probed for every
// workload; the flags common to all workloads on one of them.
func TestHelpListsWhatIsRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	probes := 0
	shared := map[string]bool{}
	for _, k := range slices.Concat(session.Knobs, session.BackendKnobs(), crashKnobs, failoverKnobs, upgradeKnobs) {
		shared[k.Name] = true
	}
	for path, c := range commands(t) {
		if !c.Runnable() || c.HasSubCommands() && path != "check" {
			continue
		}
		words := strings.Fields(path)
		if len(words) > 0 && words[0] == "upgrade" && !upgradable() {
			continue // the upgrade's tests say what to install
		}
		common := len(words) < 2 || slices.Contains([]string{"insert", ""}, words[len(words)-1])
		pre := words
		if path == "check" {
			pre = []string{"check", "../../examples/tpcb-like.toml"}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			kf, isKnob := f.Value.(interface{ knob() (knob.Spec, bool) })
			if !isKnob {
				return
			}
			k, _ := kf.knob()
			if _, ok := noBadValue[k.Name]; ok {
				return
			}
			if shared[k.Name] && !common {
				return
			}
			v, ok := bad(k, file)
			if !ok {
				t.Errorf("dbgauge %s --%s: no value to probe it with: add one to bad or noBadValue", path, f.Name)
				return
			}
			args := append(slices.Clone(pre), "--"+f.Name+"="+v)
			if f.Name != "results" && c.Flags().Lookup("results") != nil {
				args = append(args, "--results", dir)
			}
			if strings.HasPrefix(path, "cluster failover") && f.Name != "at" {
				args = append(args, "--at", "1s")
				if f.Name != "topology" {
					args = append(args, "--topology", "1") // a failover needs a replica
				}
			}
			if len(words) > 0 && words[0] == "upgrade" {
				// An upgrade validates its runs once it has both versions.
				for _, side := range []string{"from", "to"} {
					if f.Name != side {
						args = append(args, "--"+side, map[string]string{"from": "postgres:managed@15", "to": "postgres:managed@18"}[side])
					}
				}
			}
			if len(words) > 0 && words[0] == "capacity" && f.Name != "slo" {
				args = append(args, "--slo", "p99<1s") // a capacity search needs a goal
			}
			if len(words) > 0 && words[0] == "load" && f.Name != "db" {
				args = append(args, "--db", "sqlite:"+filepath.Join(dir, "load.db"))
			}
			probes++
			sig := make(chan os.Signal, 1)
			sig <- os.Interrupt // a probe that runs stops at once
			code, _, errs := runCLI(t, sig, args...)
			if code != ExitUsage || !strings.Contains(errs, "-"+f.Name) && !strings.Contains(errs, v) || strings.Contains(errs, "unknown flag") {
				t.Errorf("dbgauge %s: exit %d, stderr %q: the flag is listed but not read", strings.Join(args, " "), code, errs)
			}
		})
	}
	if probes < 100 {
		t.Fatalf("only %d probes", probes)
	}
	t.Logf("%d probes", probes)
}
