// Command dbgauge measures whether a database holds up for a workload and
// keeps what it acknowledged. main hands the process to package cli, which
// also answers the children dbgauge starts of itself (`dbgauge child ROLE`).
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/dbgauge/dbgauge/internal/cli"
)

func main() {
	os.Exit(run())
}

func run() int {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	st, err := os.Stderr.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0
	return cli.Main(cli.Env{Args: os.Args[1:], Stdout: os.Stdout, Stderr: os.Stderr, Signals: sig, IsTTY: tty})
}
