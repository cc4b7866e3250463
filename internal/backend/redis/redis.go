// Package redis is Redis through github.com/redis/go-redis/v9: a server of
// your own (--db redis://:PASSWORD@HOST:PORT/DB, rediss:// with TLS) or a
// throwaway managed redis-server on loopback (--db redis:managed). A
// key-value engine: a unit is a transaction, MULTI/EXEC, whose reads are
// WATCHed (kv.go); durability is the append-only file's fsync policy.
package redis

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/server"
)

const module = "github.com/redis/go-redis/v9"

func init() {
	// go-redis logs its pool's events to stderr itself; dbgauge reports
	// errors through their return values, and stderr is the cli's.
	goredis.SetLogger(quietLogger{})
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// managed is the --db value of a server dbgauge starts.
const managed = "redis:managed"

// Spec registers Redis in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "redis",
	Summary:    "Redis through go-redis: your server (a redis:// URL) or a throwaway managed redis-server on loopback; MULTI/EXEC transactions, the AOF's fsync policy as durability",
	Manages:    []string{managed},
	API:        backend.KV,
	Forms:      []string{managed, "redis://[:PASSWORD@]HOST:PORT/DB (or rediss:// for TLS)"},
	Preflight:  preflight,
	Driver:     module,
	Durability: durabilityDoc,
	Promises:   promises,
	Owns:       owns,
	// Redis counts no fsyncs (INFO has none to read; aof_delayed_fsync
	// counts only the writes it put off): Flushes is empty, and the
	// durability verdict compares its commits with the disk's ceiling alone.
	Prepare: backend.NoStatements,
	Settings: []backend.Setting{
		{Key: "any configuration parameter", Usage: "redis:managed: a line of its redis.conf; a server of yours: CONFIG SET, set back at the end; read back with CONFIG GET"},
	},
	NoCache:    "Redis keeps every record in memory: maxmemory (--set) evicts or refuses writes, it caches nothing",
	NoPageSize: "Redis has no pages: records live in memory, and the AOF is a log of commands",

	// --dataset's estimate (docs/data.md): an estimate: a key's dictEntry,
	// its robj and two SDS headers, the allocator's rounding, and the prefix
	// dbgauge:TABLE\0 of every key; the AOF holds each record again.
	RecordOverhead: 90,

	Open:   open,
	Reopen: reopen,
}, "redis://", "rediss://")

type db struct {
	client *goredis.Client
	srv    *Server
	m      *backend.Managed // srv as the session sees it; nil without one
	keys   []string         // the --set keys, read back with the others
	user   *userConfig      // what CONFIG SET changed on a server of the user's (config.go)
}

// paramName is what a configuration parameter's name may be: it is
// written into redis.conf and CONFIG SET.
var paramName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	settings, err := mapDurability(o.Durability)
	if err != nil {
		return nil, err
	}
	d := &db{}
	for _, kv := range o.Set {
		if !paramName.MatchString(kv.Key) {
			return nil, knob.Bad("give a Redis configuration parameter, e.g. --set no-appendfsync-on-rewrite=yes", "--set %s=%s: %q is no parameter's name", kv.Key, kv.Value, kv.Key)
		}
		settings[kv.Key] = kv.Value
		d.keys = append(d.keys, kv.Key)
	}
	pool := max(o.Conns, 1) + 4
	if o.DB == managed {
		cfg := ServerConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs}, Settings: settings}
		if d.srv, err = Start(ctx, cfg); err != nil {
			if bad := (*knob.Error)(nil); len(o.Set) > 0 && !errors.As(err, &bad) {
				return nil, knob.Bad("check the parameters given with --set", "%v", err)
			}
			return nil, err
		}
		d.client = goredis.NewClient(d.srv.options(pool))
		if err := d.ping(ctx); err != nil {
			_ = d.Close()
			return nil, err
		}
		return d.managed(), nil
	}
	opts, err := parseURL(o.DB)
	if err != nil {
		return nil, err
	}
	d.client = goredis.NewClient(clientOptions(opts, pool))
	if err := d.ping(ctx); err != nil {
		_ = d.client.Close()
		if goredis.IsAuthError(err) {
			return nil, knob.Bad("check the password in --db", "Redis refused the login: %s", redact.DSN(err.Error()))
		}
		return nil, knob.Bad("is the server running, and are host and port in --db right?", "cannot reach Redis at %s: %s", redact.DSN(o.DB), redact.DSN(err.Error()))
	}
	if d.user, err = setConfig(ctx, d.client, settings); err != nil {
		_ = d.client.Close()
		return nil, err
	}
	return d, nil
}

// clientOptions makes go-redis's options for dbgauge: n connections, no
// retries (a command sent again after a lost connection could be applied
// twice, and the ledger counts what was acknowledged once), the run's
// context bounding every command, RESP2 without the client's extras.
func clientOptions(o *goredis.Options, n int) *goredis.Options {
	o.PoolSize, o.MaxRetries = n, -1
	o.Protocol, o.DisableIdentity = 2, true
	o.ContextTimeoutEnabled = true
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = 10*time.Second, time.Minute, time.Minute
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return o
}

// ping checks that the server answers, bounded.
func (d *db) ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return classify(d.client.Ping(pctx).Err())
}

// readBack lists the parameters every result records.
var readBack = []string{
	"appendonly", "appendfsync", "appenddirname", "save", "no-appendfsync-on-rewrite", "aof-use-rdb-preamble",
	"auto-aof-rewrite-percentage", "auto-aof-rewrite-min-size", "aof-load-truncated", "aof-rewrite-incremental-fsync",
	"maxmemory", "maxmemory-policy", "maxclients", "io-threads", "dir",
}

// Engine reads back Redis's version (INFO server) and its parameters
// (CONFIG GET, one a command: a server before 7.0 takes one name a call).
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e := backend.Engine{Name: "redis", Driver: module + " " + backend.ModuleVersion(module), Settings: map[string]string{}}
	keys := append(append([]string{}, readBack...), d.keys...)
	cmds := make([]*goredis.MapStringStringCmd, len(keys))
	var info *goredis.StringCmd
	_, err := d.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.ConfigGet(ctx, k)
		}
		info = p.Info(ctx, "server")
		return nil
	})
	if err != nil {
		return e, classify(err)
	}
	for i, k := range keys {
		if v, ok := cmds[i].Val()[k]; ok {
			e.Settings[k] = v
		}
	}
	e.Version = infoFields(info.Val())["redis_version"]
	if d.srv != nil {
		e.Path = d.srv.DataDir
	}
	return e, nil
}

// infoFields reads INFO's name:value lines.
func infoFields(s string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}

// stats are the INFO fields Stats returns, by the names it gives them.
var stats = map[string]string{
	"total_commands_processed": "commands", "keyspace_hits": "keyspace_hits", "keyspace_misses": "keyspace_misses",
	"total_net_input_bytes": "net_input_bytes", "total_net_output_bytes": "net_output_bytes",
	"aof_rewrites": "aof_rewrites", "aof_current_size": "aof_bytes", "aof_delayed_fsync": "aof_delayed_fsyncs",
	"aof_pending_bio_fsync": "aof_pending_fsyncs", "rdb_saves": "rdb_saves", "total_connections_received": "connections",
}

// Stats returns Redis's counters from INFO: its commands, the AOF's size
// and rewrites, the fsyncs it put off (aof_delayed_fsync: a write held back
// while an fsync lagged), and from INFO commandstats its EXECs (commits)
// and MULTIs, and the EXECs a changed WATCHed key aborted.
func (d *db) Stats(ctx context.Context) (map[string]int64, error) {
	var all, cmds *goredis.StringCmd
	if _, err := d.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		all, cmds = p.Info(ctx), p.Info(ctx, "commandstats")
		return nil
	}); err != nil {
		return nil, classify(err)
	}
	out := map[string]int64{}
	for k, v := range infoFields(all.Val()) {
		if name, ok := stats[k]; ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				out[name] = n
			}
		}
	}
	cs := infoFields(cmds.Val())
	out["commits"] = commandStat(cs["cmdstat_exec"], "calls")
	out["exec_failed"] = commandStat(cs["cmdstat_exec"], "failed_calls")
	out["multis"] = commandStat(cs["cmdstat_multi"], "calls")
	return out, nil
}

// commandStat reads one counter of an INFO commandstats line
// ("calls=12,usec=40,…"); 0 when it is not there (a command never run).
func commandStat(line, name string) int64 {
	for _, f := range strings.Split(line, ",") {
		if k, v, ok := strings.Cut(f, "="); ok && k == name {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// Recovery says what Redis's log said of loading its AOF at the last
// restart after a kill.
func (d *db) Recovery() string {
	if d.m == nil {
		return ""
	}
	return d.m.RecoveryNote
}

// Close sets back what CONFIG SET changed on a server of the user's, or
// stops a managed server and removes its data (its log stays).
func (d *db) Close() error {
	d.user.restore(d.client)
	err := d.client.Close()
	if d.srv != nil {
		d.managed().Stop(d.srv.StopClean)
	}
	return err
}

// managedDB is what Open returns for a managed server: a DB that is a
// server (the kit's backend.Managed).
type managedDB struct {
	*db
	*backend.Managed
}

var (
	_ backend.Recoverer = managedDB{}
	_ backend.KVDB      = managedDB{}
	_ backend.Statser   = (*db)(nil)
	_ backend.Recovered = (*db)(nil)
	_ backend.Checker   = (*db)(nil)
)

// managed is d as a managed server (d.srv is set), its Managed made at the
// first call.
func (d *db) managed() managedDB {
	if d.m == nil {
		d.m = &backend.Managed{Server: d.srv.Instance, Name: "redis", Rules: LogRules}
	}
	return managedDB{d, d.m}
}

// CrashRestart kills the managed server (SIGKILL to its process group) and
// starts it again on its data: Redis loads its AOF.
func (m managedDB) CrashRestart(ctx context.Context) error {
	return m.Recover(ctx, m.srv.CrashRestart)
}

// Integrity runs redis-check-aof on a managed server's AOF; a server of the
// user's has none dbgauge can read.
func (d *db) Integrity(ctx context.Context) (bool, string, error) {
	if d.srv == nil {
		return true, "no integrity check on a server of yours (its AOF is not dbgauge's to read)", nil
	}
	return d.srv.CheckAOF(ctx)
}
