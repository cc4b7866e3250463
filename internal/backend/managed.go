package backend

import (
	"context"
	"time"

	"github.com/dbgauge/dbgauge/internal/server"
)

// Managed is what a managed server is to the session (Server), alike for
// every engine: its description, its log rules, its death, its stop once.
// An engine's managed DB embeds it beside its own DB and overrides what it
// says otherwise (Firebird names its server mode, and reads its own log).
type Managed struct {
	Server *server.Instance
	Name   string           // the engine, as ServerInfo names it ("postgres")
	Rules  *server.LogRules // the engine's rules for its log
	// Log is the log a result keeps; "" is the server's output (Process.LogPath).
	Log string
	// RecoveryNote is what the last crash recovery said it did.
	RecoveryNote string
	// Shutdown is how long the clean stop took, once stopped.
	Shutdown time.Duration
	// Death says why the server died; nil: its process's Died.
	Death   func() error
	stopped bool
}

var _ Server = (*Managed)(nil)

// LogRules are the engine's rules for its log.
func (m *Managed) LogRules() *server.LogRules { return m.Rules }

// ServerInfo describes the managed server.
func (m *Managed) ServerInfo() ServerInfo {
	s := m.Server
	log := m.Log
	if log == "" {
		log = s.LogPath
	}
	return ServerInfo{
		Engine: m.Name, Account: s.Account.Name, DataDir: s.DataDir, Port: s.Port, Addr: s.ListenAddr(), Socket: s.SocketDir,
		Log: log, StartupSeconds: s.Startup.Seconds(), ShutdownSeconds: m.Shutdown.Seconds(), RecoveryNote: m.RecoveryNote, Note: s.Note,
	}.Of(s.Process)
}

// Died is closed when the managed server exits.
func (m *Managed) Died() <-chan struct{} { return m.Server.Done() }

// DeathErr says why the managed server died, or nil when it was stopped.
func (m *Managed) DeathErr() error {
	if m.Death != nil {
		return m.Death()
	}
	return m.Server.Died()
}

// Recover runs crash, the engine's kill of its server and restart on the
// same data, and keeps what the crash recovery said (RecoveryNote): an
// engine's CrashRestart, before whatever else it does after one.
func (m *Managed) Recover(ctx context.Context, crash func(context.Context) (string, error)) error {
	note, err := crash(ctx)
	m.RecoveryNote = note
	return err
}

// Stop stops the server once, with the engine's clean stop, and keeps how
// long it took; a nil Managed (no server of dbgauge's) does nothing.
func (m *Managed) Stop(stop func() (time.Duration, error)) {
	if m == nil || m.stopped {
		return
	}
	m.stopped = true
	m.Shutdown, _ = stop()
}
