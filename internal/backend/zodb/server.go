package zodb

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/server"
)

// ServerLogRules are the kinds of trouble a managed ZEO server's log
// (Python's logging: "DATE LEVEL LOGGER message") can show, most severe
// first (docs/backends/zodb.md): zeo's and zrs's.
var ServerLogRules = &server.LogRules{
	Rules: []server.LogRule{
		server.Rule("corruption", `(?i)corrupt|CorruptedError|POSKeyError`),
		server.Rule("critical", ` CRITICAL `),
		server.Rule("error", ` ERROR |Traceback \(most recent call last\)`),
	},
	Harmless: []server.LogRule{
		// A client process that ended (a worker closed at the end of a run, or
		// killed in a crash test) with the server's last messages unread in
		// its socket: its kernel resets the connection, which ZEO logs as an
		// error of its own. The server is not at fault.
		server.Rule("client gone", `ERROR ZEO\.asyncio\.server Disconnected ConnectionResetError`),
	},
}

// Ping connects to a ZEO server on loopback port and reads its greeting (a
// frame naming its protocol, "Z5"), within a second, before it closes:
// closed unread, the connection would be reset, which the server logs as an
// error.
func Ping(port int) error {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetReadDeadline(time.Now().Add(time.Second)); err != nil {
		return err
	}
	var hello [6]byte // its length (4 bytes), then the protocol
	if _, err := io.ReadFull(c, hello[:]); err != nil {
		return fmt.Errorf("no greeting from the ZEO server: %w", err)
	}
	return nil
}

var storageLine = regexp.MustCompile(`opening storage '([^']*)' using (\w+)`)

// StorageOf says which storage a ZEO server opened, from its log's words
// ("FileStorage", "ZRS"), "" when it said nothing recognisable.
func StorageOf(log string) string {
	if m := storageLine.FindAllStringSubmatch(log, -1); m != nil {
		return m[len(m)-1][2]
	}
	return ""
}

var recoveryLines = regexp.MustCompile(`(?m)^.*(?:[Rr]ecover|[Tt]runcat|[Rr]ebuild|index).*$`)

// RecoveryNote is what a restarted ZEO server's log says of its
// FileStorage's recovery: its lines that speak of it, joined.
func RecoveryNote(log string) string {
	var out []string
	for _, l := range recoveryLines.FindAllString(log, 5) {
		out = append(out, strings.TrimSpace(l))
	}
	return strings.Join(out, "; ")
}

// Runzeo is runzeo on the kit serving one FileStorage, DataDir/Data.fs:
// what ZEO's server and each server of a ZRS cluster share. Their command
// lines are their own (Serve's args).
type Runzeo struct {
	*server.Instance
	Bin string // the environment's bin/runzeo
}

// RunzeoConfig says where and how to start a runzeo: the kit's Config and
// the environment's runzeo.
type RunzeoConfig struct {
	server.Config
	Runzeo string // the environment's bin/runzeo
}

// NewRunzeo makes the folders of a runzeo named name (as its own account
// when dbgauge is root), not started: its Recipe is the caller's (Serve).
func NewRunzeo(name string, cfg RunzeoConfig) (*Runzeo, error) {
	in, err := server.New(name, cfg.Config, name)
	if err != nil {
		return nil, err
	}
	return &Runzeo{Instance: in, Bin: cfg.Runzeo}, nil
}

// RunzeoOf is the runzeo of the environment whose python is python.
func RunzeoOf(python string) string { return filepath.Join(filepath.Dir(python), "runzeo") }

// File is the server's FileStorage.
func (s *Runzeo) File() string { return filepath.Join(s.DataDir, "Data.fs") }

// Serve sets how the kit starts the server: runzeo with args (for the port
// it is given, each try), its log (ZEO's logging on stderr) in log, ready
// when its port greets (Ping), tried again on another port when its own
// was taken, stopped by SIGTERM (runzeo closes the storage: its index is
// written).
func (s *Runzeo) Serve(log string, args func(port int) ([]string, error)) {
	s.Recipe = server.Recipe{
		Command: func(port int) (server.Command, error) {
			a, err := args(port)
			return server.Command{Bin: s.Bin, Args: a}, err
		},
		Ready: func(ctx context.Context) error {
			return s.WaitReady(ctx, 50*time.Millisecond, func() error { return Ping(s.Port) })
		},
		Taken: server.AddressInUse,
		Stop:  syscall.SIGTERM,
		Log:   log,
	}
}

// LaunchNew makes the server's data folder (its account's) and starts it,
// as Serve said; a server that did not come up is discarded.
func (s *Runzeo) LaunchNew(ctx context.Context) error {
	err := os.Mkdir(s.DataDir, 0o700)
	if err == nil {
		err = s.Account.Own(s.DataDir)
	}
	if err == nil {
		err = s.Launch(ctx)
	}
	if err != nil {
		s.Discard()
	}
	return err
}

// ReopenRunzeo is the server a killed one left in dataDir (named name in
// the kit's folders), to serve its FileStorage again; an error when there
// is none.
func ReopenRunzeo(dataDir, name, python string) (*Runzeo, error) {
	if _, err := os.Stat(filepath.Join(dataDir, "Data.fs")); err != nil {
		return nil, fmt.Errorf("the killed server's FileStorage: %w", err)
	}
	in, err := server.Reopened(dataDir, false, name)
	if err != nil {
		return nil, err
	}
	return &Runzeo{Instance: in, Bin: RunzeoOf(python)}, nil
}

// CrashRestart kills runzeo with SIGKILL and starts it again on the same
// FileStorage: it reads the file to its last complete transaction (a
// transaction whose tpc_finish did not end is cut off) and rebuilds its
// index. It returns what the server logged of that (RecoveryNote).
func (s *Runzeo) CrashRestart(ctx context.Context) (string, error) {
	log, err := s.Instance.CrashRestart(ctx)
	return RecoveryNote(log), err
}
