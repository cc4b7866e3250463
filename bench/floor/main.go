// Command floor is the floor of a Go client: the same driver dbgauge uses,
// N goroutines each on its own connection, the same statement as the C
// clients' (pgbench -S and its TPC-B-like transaction, sysbench's
// oltp_point_select), no harness. What dbgauge costs above it is the
// harness's own; below it, only another driver design can go.
//
//	floor pg       -dsn postgres://… -mode select-only|tpcb -scale 10 -clients 8 -duration 20s [-api pgconn|pgx]
//	floor mysql    -dsn user@tcp(host:port)/db -rows 100000 -clients 8 -duration 20s [-api driver|sql]
//	floor sqlite   -path FILE -scale 10 -clients 8 -duration 20s [-api driver|sql]
//	floor firebird -dsn user:pw@host:port/path -scale 10 -clients 8 -duration 20s
//
// It prints one JSON line: transactions, seconds, transactions/s, and per
// transaction the process's CPU (user, system, µs), its context switches
// and its heap allocations (runtime/metrics), all counted over the
// measured loop only, after every connection is open and its statement
// prepared. bench/vs-floor.sh runs it beside the C client and dbgauge.
//
// Randomness is math/rand/v2's PCG, one stream per goroutine, as dbgauge's
// clients draw; nothing is timed per transaction (pgbench and sysbench time
// each one; dbgauge too: that is part of what the floor leaves out).
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/mattn/go-sqlite3"
	_ "github.com/nakagami/firebirdsql"
)

// loop is one client: it runs one transaction per call.
type loop interface {
	tx(rng *rand.Rand) error
	close()
}

type opener func(ctx context.Context) (loop, error)

type config struct {
	engine, dsn, path, mode, api string
	clients, scale, rows         int
	duration                     time.Duration
	profile                      string
}

func main() {
	if len(os.Args) < 2 {
		fail(2, "floor: name an engine: pg, mysql, sqlite or firebird (floor ENGINE -h for its flags)")
	}
	c := config{engine: os.Args[1]}
	fs := flag.NewFlagSet("floor "+c.engine, flag.ExitOnError)
	fs.StringVar(&c.dsn, "dsn", "", "the engine's address, in its driver's form")
	fs.StringVar(&c.path, "path", "", "sqlite: the database file (pgbench's tables, as dbgauge load tpcb makes them)")
	fs.StringVar(&c.mode, "mode", "select-only", "pg: select-only (pgbench -S) or tpcb (pgbench's TPC-B-like)")
	fs.StringVar(&c.api, "api", "", "pg: pgconn (ExecPrepared, default) or pgx (Conn.QueryRow, its statement cache); mysql, sqlite: driver (database/sql/driver inside Conn.Raw, default) or sql (Conn.PrepareContext, Stmt.QueryRowContext)")
	fs.IntVar(&c.clients, "clients", 8, "goroutines, each with its own connection")
	fs.IntVar(&c.scale, "scale", 10, "pg, sqlite, firebird: pgbench's scale (100,000 accounts each)")
	fs.IntVar(&c.rows, "rows", 100000, "mysql: rows of sbtest1 (ids 1..N)")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "how long the measured loop runs")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the measured loop to `FILE` (go tool pprof)")
	_ = fs.Parse(os.Args[2:])
	if c.clients < 1 || c.duration <= 0 || c.scale < 1 || c.rows < 1 {
		fail(2, "floor: -clients, -duration, -scale and -rows must be positive")
	}
	var open opener
	switch c.engine {
	case "pg":
		open = c.pg()
	case "mysql":
		open = c.mysql()
	case "sqlite":
		open = c.sqlite()
	case "firebird":
		open = c.firebird()
	default:
		fail(2, "floor: no engine %q: give pg, mysql, sqlite or firebird", c.engine)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c.profile = *profile
	r, err := run(ctx, c, open)
	if err != nil {
		fail(1, "floor: %v", err)
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
}

func fail(code int, format string, a ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
	os.Exit(code)
}

// report is what the measured loop did, per transaction where it says so.
type report struct {
	Engine       string  `json:"engine"`
	API          string  `json:"api"`
	Mode         string  `json:"mode"`
	Clients      int     `json:"clients"`
	GoMaxProcs   int     `json:"gomaxprocs"`
	Transactions int64   `json:"transactions"`
	Seconds      float64 `json:"seconds"`
	TPS          float64 `json:"tps"`
	UserUs       float64 `json:"user_us_per_tx"`
	SystemUs     float64 `json:"system_us_per_tx"`
	CPUUs        float64 `json:"cpu_us_per_tx"`
	CtxSwitches  float64 `json:"context_switches_per_tx"`
	Allocs       float64 `json:"allocs_per_tx"`
	AllocBytes   float64 `json:"alloc_bytes_per_tx"`
}

type usage struct {
	user, sys      time.Duration
	csw            int64
	allocs, abytes uint64
}

var samples = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}

func now() usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	metrics.Read(samples)
	return usage{
		user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano()),
		csw:    ru.Nvcsw + ru.Nivcsw,
		allocs: samples[0].Value.Uint64(), abytes: samples[1].Value.Uint64(),
	}
}

// run opens every client, then runs them all for c.duration and reports.
func run(ctx context.Context, c config, open opener) (*report, error) {
	loops := make([]loop, c.clients)
	for i := range loops {
		l, err := open(ctx)
		if err != nil {
			for _, o := range loops[:i] {
				o.close()
			}
			return nil, fmt.Errorf("client %d: %w", i, err)
		}
		loops[i] = l
	}
	defer func() {
		for _, l := range loops {
			l.close()
		}
	}()
	var (
		stopped atomic.Bool
		total   atomic.Int64
		errOnce sync.Once
		first   error
		wg      sync.WaitGroup
	)
	begin := make(chan struct{})
	for i, l := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i)+1, 0x9e3779b97f4a7c15))
			<-begin
			var n int64
			for !stopped.Load() {
				if err := l.tx(rng); err != nil {
					errOnce.Do(func() { first = err })
					stopped.Store(true)
					break
				}
				n++
			}
			total.Add(n)
		}()
	}
	if c.profile != "" {
		f, err := os.Create(c.profile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
	}
	u0, t0 := now(), time.Now()
	close(begin)
	select {
	case <-time.After(c.duration):
	case <-ctx.Done():
	}
	stopped.Store(true)
	wg.Wait()
	secs := time.Since(t0).Seconds()
	u1 := now()
	pprof.StopCPUProfile()
	if first != nil {
		return nil, first
	}
	n := total.Load()
	if n == 0 {
		return nil, errors.New("no transaction ran")
	}
	per := func(d float64) float64 { return d / float64(n) }
	r := &report{
		Engine: c.engine, API: c.api, Mode: c.mode, Clients: c.clients, GoMaxProcs: runtime.GOMAXPROCS(0),
		Transactions: n, Seconds: secs, TPS: float64(n) / secs,
		UserUs:      per(float64((u1.user - u0.user).Microseconds())),
		SystemUs:    per(float64((u1.sys - u0.sys).Microseconds())),
		CtxSwitches: per(float64(u1.csw - u0.csw)),
		Allocs:      per(float64(u1.allocs - u0.allocs)),
		AllocBytes:  per(float64(u1.abytes - u0.abytes)),
	}
	r.CPUUs = r.UserUs + r.SystemUs
	return r, nil
}

// pgbench's statements (pgbench.c's builtin scripts), by number.
const (
	pgSelect = iota
	pgUpdAcct
	pgUpdTeller
	pgUpdBranch
	pgInsHist
	pgBegin
	pgEnd
)

var pgSQL = [...]string{
	pgSelect:    "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
	pgUpdAcct:   "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
	pgUpdTeller: "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2",
	pgUpdBranch: "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2",
	pgInsHist:   "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
	pgBegin:     "BEGIN",
	pgEnd:       "END",
}

// pgbench's draws: aid, bid, tid, delta, each uniform.
type draw struct{ aid, bid, tid, delta int }

func (c config) draw(rng *rand.Rand) draw {
	return draw{
		aid: 1 + rng.IntN(100000*c.scale), bid: 1 + rng.IntN(c.scale),
		tid: 1 + rng.IntN(10*c.scale), delta: rng.IntN(10001) - 5000,
	}
}

func (c config) pg() opener {
	if c.mode != "select-only" && c.mode != "tpcb" {
		fail(2, "floor pg: no -mode %q: give select-only or tpcb", c.mode)
	}
	switch c.api {
	case "", "pgconn":
		return func(ctx context.Context) (loop, error) { return c.openPgconn(ctx) }
	case "pgx":
		return func(ctx context.Context) (loop, error) { return c.openPgx(ctx) }
	}
	fail(2, "floor pg: no -api %q: give pgconn or pgx", c.api)
	return nil
}

// pgconnLoop runs pgbench's statements as pgbench -M prepared does: each
// prepared once, then Bind/Execute/Sync with its parameters in text.
type pgconnLoop struct {
	c      config
	pc     *pgconn.PgConn
	stmts  [len(pgSQL)]*pgconn.StatementDescription
	params [4][]byte
	buf    [4][24]byte
}

func (c config) openPgconn(ctx context.Context) (*pgconnLoop, error) {
	pc, err := pgconn.Connect(ctx, c.dsn)
	if err != nil {
		return nil, err
	}
	l := &pgconnLoop{c: c, pc: pc}
	for i, q := range pgSQL {
		d, err := pc.Prepare(ctx, "floor_"+strconv.Itoa(i), q, nil)
		if err != nil {
			_ = pc.Close(ctx)
			return nil, err
		}
		l.stmts[i] = d
	}
	return l, nil
}

var bg = context.Background()

// exec runs statement q with the integers args in text; rows says how many
// rows it must return or change.
func (l *pgconnLoop) exec(q int, rows int64, args ...int) error {
	p := l.params[:len(args)]
	for i, a := range args {
		p[i] = strconv.AppendInt(l.buf[i][:0], int64(a), 10)
	}
	rr := l.pc.ExecStatement(bg, l.stmts[q], p, nil, nil)
	var got int64
	for rr.NextRow() {
		got++
	}
	tag, err := rr.Close()
	if err != nil {
		return err
	}
	if q != pgSelect {
		got = tag.RowsAffected()
	}
	if got != rows {
		return fmt.Errorf("%q: %d rows, want %d", pgSQL[q], got, rows)
	}
	return nil
}

func (l *pgconnLoop) tx(rng *rand.Rand) error {
	if l.c.mode == "select-only" { // pgbench -S draws aid alone
		return l.exec(pgSelect, 1, 1+rng.IntN(100000*l.c.scale))
	}
	d := l.c.draw(rng)
	for _, s := range []struct {
		q    int
		rows int64
		args []int
	}{
		{pgBegin, 0, nil}, {pgUpdAcct, 1, []int{d.delta, d.aid}}, {pgSelect, 1, []int{d.aid}},
		{pgUpdTeller, 1, []int{d.delta, d.tid}}, {pgUpdBranch, 1, []int{d.delta, d.bid}},
		{pgInsHist, 1, []int{d.tid, d.bid, d.aid, d.delta}}, {pgEnd, 0, nil},
	} {
		if err := l.exec(s.q, s.rows, s.args...); err != nil {
			return err
		}
	}
	return nil
}

func (l *pgconnLoop) close() { _ = l.pc.Close(bg) }

// pgxLoop is what most Go programs write: pgx.Conn's QueryRow and Exec,
// its statement cache preparing each statement at its first use.
type pgxLoop struct {
	c       config
	conn    *pgx.Conn
	balance int64
}

func (c config) openPgx(ctx context.Context) (*pgxLoop, error) {
	conn, err := pgx.Connect(ctx, c.dsn)
	if err != nil {
		return nil, err
	}
	return &pgxLoop{c: c, conn: conn}, nil
}

func (l *pgxLoop) tx(rng *rand.Rand) error {
	if l.c.mode == "select-only" {
		return l.conn.QueryRow(bg, pgSQL[pgSelect], 1+rng.IntN(100000*l.c.scale)).Scan(&l.balance)
	}
	d := l.c.draw(rng)
	t, err := l.conn.Begin(bg)
	if err != nil {
		return err
	}
	defer func() { _ = t.Rollback(bg) }()
	for _, s := range []struct {
		q    int
		args []any
	}{
		{pgUpdAcct, []any{d.delta, d.aid}}, {pgUpdTeller, []any{d.delta, d.tid}},
		{pgUpdBranch, []any{d.delta, d.bid}}, {pgInsHist, []any{d.tid, d.bid, d.aid, d.delta}},
	} {
		if s.q == pgUpdTeller {
			if err := t.QueryRow(bg, pgSQL[pgSelect], d.aid).Scan(&l.balance); err != nil {
				return err
			}
		}
		if _, err := t.Exec(bg, pgSQL[s.q], s.args...); err != nil {
			return err
		}
	}
	return t.Commit(bg)
}

func (l *pgxLoop) close() { _ = l.conn.Close(bg) }

// sqlLoop runs one point select through database/sql: on the driver's own
// connection inside Conn.Raw (driver), or through a prepared sql.Stmt (sql).
type sqlLoop struct {
	conn  *sql.Conn
	stmt  *sql.Stmt // api sql
	ds    driver.StmtQueryContext
	dstmt driver.Stmt
	raw   func(any) error
	arg   []driver.NamedValue
	vals  []driver.Value
	n     func(rng *rand.Rand) int
	got   []byte
	c     int64
}

func (c config) sqlOpener(driverName, dsn, query string, n func(rng *rand.Rand) int) opener {
	if c.api == "" {
		c.api = "driver"
	}
	if c.api != "driver" && c.api != "sql" {
		fail(2, "floor %s: no -api %q: give driver or sql", c.engine, c.api)
	}
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		fail(2, "floor %s: %v", c.engine, err)
	}
	db.SetMaxIdleConns(c.clients)
	return func(ctx context.Context) (loop, error) {
		conn, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		l := &sqlLoop{conn: conn, n: n, arg: make([]driver.NamedValue, 1), vals: make([]driver.Value, 1)}
		if c.api == "sql" {
			l.stmt, err = conn.PrepareContext(ctx, query)
			return l, err
		}
		err = conn.Raw(func(dc any) error {
			p, ok := dc.(driver.ConnPrepareContext)
			if !ok {
				return fmt.Errorf("%T prepares no statement with a context", dc)
			}
			ds, err := p.PrepareContext(ctx, query)
			if err != nil {
				return err
			}
			l.dstmt = ds
			if l.ds, ok = ds.(driver.StmtQueryContext); !ok {
				return fmt.Errorf("%T queries no statement with a context", ds)
			}
			return nil
		})
		l.raw = l.run
		return l, err
	}
}

// run reads the row on the driver's connection; Raw calls it.
func (l *sqlLoop) run(any) error {
	rows, err := l.ds.QueryContext(bg, l.arg)
	if err != nil {
		return err
	}
	if err := rows.Next(l.vals); err != nil {
		rows.Close()
		if errors.Is(err, io.EOF) {
			return sql.ErrNoRows
		}
		return err
	}
	switch v := l.vals[0].(type) {
	case []byte:
		l.got = append(l.got[:0], v...)
	case int64:
		l.c = v
	case string:
		l.got = append(l.got[:0], v...)
	}
	l.vals[0] = nil
	return rows.Close()
}

func (l *sqlLoop) tx(rng *rand.Rand) error {
	id := int64(l.n(rng))
	if l.stmt != nil {
		return l.stmt.QueryRowContext(bg, id).Scan(&l.got)
	}
	l.arg[0] = driver.NamedValue{Ordinal: 1, Value: id}
	return l.conn.Raw(l.raw)
}

func (l *sqlLoop) close() {
	if l.stmt != nil {
		_ = l.stmt.Close()
	}
	if l.dstmt != nil {
		_ = l.conn.Raw(func(any) error { return l.dstmt.Close() })
	}
	_ = l.conn.Close()
}

// mysql: sysbench's oltp_point_select on sbtest1, server-side prepared
// (the driver prepares a statement on the server; interpolateParams off).
func (c config) mysql() opener {
	return c.sqlOpener("mysql", c.dsn, "SELECT c FROM sbtest1 WHERE id=?", func(rng *rand.Rand) int { return 1 + rng.IntN(c.rows) })
}

// sqlite: pgbench -S on pgbench's tables in a SQLite file, in process, as
// dbgauge run tpcb --select-only --db sqlite:FILE reads them; the
// connection's settings are dbgauge's for a read (WAL, as it leaves the file).
func (c config) sqlite() opener {
	if c.path == "" {
		fail(2, "floor sqlite: give -path FILE (pgbench's tables: dbgauge load tpcb --db sqlite:FILE)")
	}
	dsn := "file:" + c.path + "?_busy_timeout=5000&_journal_mode=WAL"
	return c.sqlOpener("sqlite3", dsn, "SELECT abalance FROM pgbench_accounts WHERE aid = ?", func(rng *rand.Rand) int { return 1 + rng.IntN(100000*c.scale) })
}

// firebird: pgbench -S on pgbench's tables in a Firebird database.
func (c config) firebird() opener {
	return c.sqlOpener("firebirdsql", c.dsn, "SELECT abalance FROM pgbench_accounts WHERE aid = ?", func(rng *rand.Rand) int { return 1 + rng.IntN(100000*c.scale) })
}
