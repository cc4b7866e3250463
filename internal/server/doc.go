// Package server is the kit every managed database server is built on: the
// servers dbgauge starts itself, on loopback, in a folder of the run, with
// the settings the run asks for, and stops, kills, restarts and replicates
// as the run asks. It imports no database driver and no engine; an engine's
// folder says only what is its own (docs/adding-a-managed-engine.md).
//
// # An Instance and its Recipe
//
// An Instance is one server: the Account it runs as, its folders (Base,
// DataDir, SocketDir), a free loopback Port, a random Password, the running
// Process and how long it took to start. It is made by New (a fresh
// server's folders), Reopened (the data a killed server left), Beside (a
// replica's folders next to a primary's) or Restored (a copy of a backup),
// and started by Launch from the engine's Recipe:
//
//	in, err := server.New("mariadb", cfg, "mysql") // folders, account, password
//	// … the engine makes its data in in.DataDir …
//	in.Recipe = server.Recipe{
//		Command: func(port int) (server.Command, error) { … },      // its command line on port
//		Ready:   func(ctx context.Context) error { return in.WaitReady(ctx, 50*time.Millisecond, ping) },
//		Taken:   func(tail string) bool { return strings.Contains(tail, "Address already in use") },
//		Stop:    syscall.SIGTERM,
//		Log:     filepath.Join(in.Dir, "mariadb.log"),
//	}
//	err = in.Launch(ctx)
//
// Launch picks a free port, starts the command (in a memory cgroup of its
// own with --server-memory, on the CPUs of --cpus server=), waits until it
// serves, bounded by ReadyWithin and ctx, and tries another port when
// another process took this one first. Then CrashRestart kills every
// process of the server with SIGKILL and starts it again on the same data
// (returning what it logged meanwhile, its recovery), Restart stops it
// cleanly and starts it again, StopClean stops it and removes its folders
// (its log stays), and Tool runs one of the engine's programs as the
// account with the password hidden in its errors.
//
// # Settings and topologies
//
// Settings render a server's parameters in the order of their names, as
// command-line flags or configuration lines. A Topology declares the
// servers of a cluster, who follows whom (none, 1, 2-direct, 2-chain);
// StartTopology starts them in order through the engine's way of following.
//
// # Below the kit
//
// Process, Account, MakeFolders, FreePort, Launch (the struct), KillTree and
// Cgroup are the kit's own steps: no engine calls them (archtest rule 8).
// LogRules and LogFollower read a server's log for anomalies, by the
// engine's rules.
//
// When dbgauge runs as root, a server runs as an unprivileged account (the
// engine's own system user when its package made one, otherwise a
// "dbgauge" system user created for the purpose), and the result says so.
package server
