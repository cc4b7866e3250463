#!/usr/bin/env bash
# dbgauge run kv --preset ycsb-a|ycsb-c against go-ycsb (PingCAP's YCSB in
# Go, pinned at v1.0.3) on the same PostgreSQL and the same MariaDB, each a
# throwaway server this script starts on loopback (initdb as the postgres
# account, mariadb-install-db and mariadbd as the mysql account when run as
# root), with a buffer of 1 GB each so that both tables stay in memory.
#
# YCSB core workloads A (50 % reads, 50 % updates) and C (100 % reads), both
# zipfian (constant 0.99, scrambled, in both tools), on RECORDS records of one
# 100-byte value each: go-ycsb fieldcount=1 fieldlength=100 (FIELD0
# VARCHAR(100)); dbgauge --value-bytes 100 (v, 100 bytes, its first 8 the
# record number). Each tool loads its own table once, in one database, before
# the rounds (go-ycsb load: usertable; dbgauge load kv: kv_usertable, which
# dbgauge run kv reuses when given the same --records and --value-bytes), with
# commits unflushed during the loads only. Then, per workload, both tools run
# in turn with CLIENTS connections for DURATION seconds each, over TCP,
# alternating (dbgauge first in odd rounds, go-ycsb first in even ones).
# Before each test PostgreSQL's tables are vacuumed and a checkpoint taken
# (autovacuum is off, so that it never lands in one tool's test and not the
# other's); MariaDB is left as it is.
#
# Printed per round: each tool's operations/s (dbgauge: summary.rate of
# result.json; go-ycsb: the OPS of its final TOTAL line), dbgauge ÷ go-ycsb,
# each tool's client CPU (user + system of its process, from rusage) per
# operation done (dbgauge: summary.ok; go-ycsb: the Count of TOTAL), and the
# failed operations of each (dbgauge: summary.failed; go-ycsb: its *_ERROR
# lines). Then the medians per engine and workload.
#
# go-ycsb, as run here:
#   - v1.0.3 has no time limit (its maxexecutiontime property is declared and
#     never read): operationcount is 10^12 and the script stops it with SIGINT
#     after DURATION s; it then cancels its workers and prints its totals. An
#     operation in flight at the signal may end as an *_ERROR (context
#     canceled), at most one per thread. Its OPS is its own count over its own
#     clock (from its first operation to its output).
#   - Its pg and mysql drivers prepare every statement once per connection
#     (database/sql Conn.PrepareContext, cached per thread; lib/pq v1.1.1 and
#     go-sql-driver/mysql v1.6.0, server-side prepared), with no property to
#     change that: both tools run prepared statements, dbgauge with its
#     default --prepare once.
#   - mysql.force_index=false: its default adds FORCE INDEX(`PRIMARY`) (a
#     TiDB hint) to reads; without it both tools send the same plain primary
#     key lookup, whose plan is the same const access either way.
#   - readallfields=true, writeallfields=false (YCSB's defaults): with one
#     field, a read is SELECT field0 FROM usertable WHERE YCSB_KEY = ? (the
#     value only, as dbgauge's SELECT v FROM kv_usertable WHERE k = ?) and an
#     update writes the whole value, as dbgauge's does.
#   - requestdistribution=zipfian, insertorder=hashed (YCSB's default, as
#     dbgauge's keys); go-ycsb's own workloads/workloada and workloadc files
#     say uniform, so they are not used: every property is given with -p.
#   - measurement.interval (--interval) 3600 s and dbgauge --progress 0:
#     neither tool prints progress during a test. debug.pprof=127.0.0.1:0
#     (its pprof listener would take :6060).
#   - warm-up: none in either (go-ycsb warmuptime 0, dbgauge --warmup 0).
# To make the engine's work per statement alike, the servers compare keys
# byte by byte in both tables: PostgreSQL is initialised without a locale (C
# collation for go-ycsb's VARCHAR key; dbgauge's is BYTEA) and the MariaDB
# database is latin1_bin (dbgauge's key is VARBINARY).
#
# What still differs (the workloads are not changed to match):
#   - dbgauge's update runs in a transaction of its own (BEGIN, an upsert:
#     INSERT … ON CONFLICT DO UPDATE / ON DUPLICATE KEY UPDATE, COMMIT: three
#     round trips); go-ycsb's is one autocommitted UPDATE. Reads are one
#     autocommitted SELECT in both.
#   - keys: go-ycsb's are "user" + the FNV-64 hash in decimal (up to 23
#     characters, VARCHAR(64)); dbgauge's the 8 hash bytes.
#   - go-ycsb's zipfian range is [0, recordcount], one record past the last
#     loaded (a read of it finds nothing and counts as done); dbgauge's stops
#     at the last record.
#   - dbgauge checks every read (the record is there and is its own) and, as
#     it reuses the dataset, reads the whole table through before the clock
#     starts and checks it after the run: that CPU is in its process's rusage,
#     and so in its client CPU per operation (the median line also gives
#     dbgauge's own figure for the measure phase alone, harness.cpu_per_unit_us
#     of result.json). go-ycsb checks nothing.
#
#   RECORDS=100000 CLIENTS=8 DURATION=20 ROUNDS=3 ENGINES="postgres mariadb" WORKLOADS="a c" bench/vs-goycsb.sh
# SMOKE=1: 1,000 records, 2 clients, 1 s per test, 1 round, both engines and
# workloads. go-ycsb is built into bench/.bin when missing (bench/lib.sh,
# need_goycsb); GOYCSB=PATH runs another. VERBOSE=1 shows each command and its
# seconds on stderr. DBGAUGE=PATH measures another build of dbgauge (default:
# this checkout, built afresh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob RECORDS 100000 1000
knob CLIENTS 8 2
knob DURATION 20 1
knob ROUNDS 3 1
knob ENGINES "postgres mariadb"
knob WORKLOADS "a c"
need_dbgauge
need_goycsb
exec python3 - "$@" <<'PY'
import os, re, shutil, signal, subprocess, sys, time
import lib
from lib import Failed, number, run

RECORDS, CLIENTS, DURATION, ROUNDS = lib.ints("RECORDS CLIENTS DURATION ROUNDS")
ENGINES = lib.servers()
WORKLOADS = lib.words("WORKLOADS")
DBGAUGE = lib.setting("DBGAUGE")
GOYCSB = lib.setting("GOYCSB")
VALUE = 100  # bytes of the one value (go-ycsb: fieldcount=1 fieldlength=100)
MIX = {"a": (0.5, 0.5), "c": (1.0, 0.0)}  # read, update proportions
for w in WORKLOADS:
    if w not in MIX:
        raise SystemExit(f"bench: unknown workload {w!r}: WORKLOADS takes a and c")

work = lib.workdir("dbgauge-vs-goycsb-")


def engine(name):
    """The engine's throwaway server, 1 GB of buffers so that both tables stay in memory. To
    make the engine's work per statement alike, keys compare byte by byte in both tables:
    PostgreSQL without a locale (C collation for go-ycsb's VARCHAR key; dbgauge's is BYTEA);
    the MariaDB database latin1_bin (create)."""
    if name == "postgres":
        return lib.Postgres(work, 2 * CLIENTS + 50, ["shared_buffers=1GB", "max_wal_size=4GB"], initdb=["--no-locale", "-E", "UTF8"])
    return lib.MariaDB(work, 2 * CLIENTS + 50, ["--innodb-buffer-pool-size=1G", "--innodb-log-file-size=1G"])


def create(eng, db):
    if eng.name == "postgres":
        eng.create(db)
    else:
        # latin1_bin: go-ycsb's VARCHAR keys compare byte by byte, as
        # dbgauge's VARBINARY keys do (its values are ASCII letters).
        eng.create(db, "CHARACTER SET latin1 COLLATE latin1_bin")


def lazy(eng, db, on):
    """Commits unflushed for the loads only (PostgreSQL: new sessions take it)."""
    if eng.name == "postgres":
        eng.sql("postgres", f"ALTER DATABASE {db} SET synchronous_commit = off" if on else f"ALTER DATABASE {db} RESET synchronous_commit")
    else:
        eng.sql("", f"SET GLOBAL innodb_flush_log_at_trx_commit = {2 if on else 1}")


def goycsb_args(eng, db):
    if eng.name == "postgres":
        return ["pg", "-p", "pg.host=127.0.0.1", "-p", f"pg.port={eng.port}", "-p", "pg.user=bench", "-p", f"pg.db={db}",
                "-p", "pg.sslmode=disable"]
    return ["mysql", "-p", "mysql.host=127.0.0.1", "-p", f"mysql.port={eng.port}", "-p", "mysql.user=bench", "-p", f"mysql.db={db}",
            "-p", "mysql.force_index=false"]


def props(wl, ops):
    """go-ycsb's core workload, every property given (its workload files say uniform)."""
    read, update = MIX[wl]
    p = {"workload": "core", "recordcount": RECORDS, "operationcount": ops, "threadcount": CLIENTS,
         "fieldcount": 1, "fieldlength": VALUE, "readallfields": "true", "writeallfields": "false",
         "readproportion": read, "updateproportion": update, "scanproportion": 0, "insertproportion": 0,
         "readmodifywriteproportion": 0, "requestdistribution": "zipfian", "insertorder": "hashed",
         "warmuptime": 0, "debug.pprof": "127.0.0.1:0"}
    return [a for k, v in p.items() for a in ("-p", f"{k}={v}")]


TOTAL = re.compile(r"^(\w+)\s+- Takes\(s\): ([\d.]+), Count: (\d+), OPS: ([\d.]+),", re.M)


def goycsb_totals(out):
    """The final measurements go-ycsb printed after its run: {op: (count, ops/s)}."""
    tail = out.split("Run finished", 1)
    if len(tail) != 2:
        raise Failed("go-ycsb printed no 'Run finished':\n" + lib.tail(out))
    got = {m.group(1): (int(m.group(3)), float(m.group(4))) for m in TOTAL.finditer(tail[1])}
    if "TOTAL" not in got:
        raise Failed("go-ycsb printed no TOTAL line:\n" + lib.tail(out))
    return got


def goycsb_load(eng, db):
    run([GOYCSB, "load"] + goycsb_args(eng, db) + props("c", RECORDS) + ["--interval", "3600"], "go-ycsb load")


def goycsb_run(eng, db, wl):
    """go-ycsb run for DURATION s (SIGINT): ops/s, client CPU µs per op, failed."""
    eng.settle(db)
    args = [GOYCSB, "run"] + goycsb_args(eng, db) + props(wl, 10**12) + ["--interval", "3600"]
    t0, t = time.monotonic(), lib.cpu()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(timeout=DURATION)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        try:
            out, _ = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill(); p.communicate()
            raise Failed("go-ycsb run did not stop within 60 s of SIGINT")
    used = lib.cpu() - t
    if lib.VERBOSE:
        print(f"  [{time.monotonic() - t0:6.1f} s] {' '.join(args)}", file=sys.stderr, flush=True)
    if p.returncode != 0:
        raise Failed(f"go-ycsb run exited {p.returncode}:\n" + lib.tail(out))
    got = goycsb_totals(out)
    n, rate = got["TOTAL"]
    n = number(n, "go-ycsb's TOTAL count")
    bad = sum(c for k, (c, _) in got.items() if k.endswith("_ERROR"))
    return number(rate, "go-ycsb's TOTAL OPS"), used / n * 1e6, bad


def dbgauge_run(eng, db, wl):
    """dbgauge run kv --preset ycsb-WL: ops/s, client CPU µs per op, failed,
    and its own CPU µs per op in the measure phase alone (result.json's
    harness), without its read-through before and its checks after."""
    res = os.path.join(work, "results")
    shutil.rmtree(res, ignore_errors=True)
    eng.settle(db)
    t = lib.cpu()
    run([DBGAUGE, "run", "kv", "--preset", "ycsb-" + wl, "--records", str(RECORDS), "--value-bytes", str(VALUE),
         "--clients", str(CLIENTS), "--duration", f"{DURATION}s", "--warmup", "0", "--progress", "0", "--ceiling", "off",
         "--db", eng.dsn(db), "--results", res], "dbgauge run kv")
    used = lib.cpu() - t
    r = lib.result(res)
    s = r["summary"]
    ok = number(s.get("ok"), "dbgauge's operations done")
    return (number(s.get("rate"), "dbgauge's ops/s"), used / ok * 1e6, int(number(s.get("failed", 0), "dbgauge's failed", zero=True)),
            number((r.get("harness") or {}).get("cpu_per_unit_us"), "dbgauge's harness.cpu_per_unit_us"))


def compare(eng, name, versions, medians):
    eng.start()
    versions.append(eng.version())
    create(eng, "ycsb")
    lazy(eng, "ycsb", True)
    run([DBGAUGE, "load", "kv", "--records", str(RECORDS), "--value-bytes", str(VALUE), "--db", eng.dsn("ycsb")], "dbgauge load kv")
    goycsb_load(eng, "ycsb")
    lazy(eng, "ycsb", False)
    n = int(number(eng.sql("ycsb", "SELECT count(*) FROM usertable").split()[-1], "the records in usertable"))
    if n != RECORDS:
        raise Failed(f"go-ycsb load left {n} records in usertable, not {RECORDS}")
    for wl in WORKLOADS:
        rows = []
        for r in range(1, ROUNDS + 1):
            if r % 2:
                d = dbgauge_run(eng, "ycsb", wl); g = goycsb_run(eng, "ycsb", wl)
            else:
                g = goycsb_run(eng, "ycsb", wl); d = dbgauge_run(eng, "ycsb", wl)
            rows.append((d, g))
            print("%-8s %2s %5d %13.0f %13.0f %7.3f %14.1f %14.1f %10s" % (
                name, wl.upper(), r, d[0], g[0], d[0] / g[0], d[1], g[1], f"{d[2]}/{g[2]}"), flush=True)
        medians.append((name, wl, rows))


def body():
    print("%-8s %2s %5s %13s %13s %7s %14s %14s %10s" % (
        "engine", "wl", "round", "dbgauge ops/s", "go-ycsb ops/s", "÷", "dbgauge µs/op", "go-ycsb µs/op", "failed d/g"), flush=True)
    versions, problems, medians = [], [], []
    for name in ENGINES:
        eng = None
        try:
            eng = engine(name)
            compare(eng, name, versions, medians)
        except Failed as e:
            problems.append(f"{name}: {e}")
            print(f"{name}: FAILED: {e}", flush=True)
        finally:
            if eng:
                eng.stop()
    med = lib.med
    for name, wl, rows in medians:
        ratios = sorted(d[0] / g[0] for d, g in rows)
        print("median %s %s dbgauge ÷ go-ycsb ops/s: %.3f  (%d rounds, %.3f–%.3f); ops/s dbgauge %.0f, go-ycsb %.0f; "
              "client CPU µs/op dbgauge %.1f (%.1f–%.1f; %.1f in its measure phase alone), go-ycsb %.1f (%.1f–%.1f)" % (
                  name, wl.upper(), med(ratios), len(ratios), ratios[0], ratios[-1],
                  med([d[0] for d, _ in rows]), med([g[0] for _, g in rows]),
                  med([d[1] for d, _ in rows]), min(d[1] for d, _ in rows), max(d[1] for d, _ in rows), med([d[3] for d, _ in rows]),
                  med([g[1] for _, g in rows]), min(g[1] for _, g in rows), max(g[1] for _, g in rows)), flush=True)
    print(f"{RECORDS} records of one {VALUE}-byte value, zipfian, {CLIENTS} clients, {DURATION} s per test, TCP loopback, "
          f"server and client share the CPUs, 1 GB of buffers in both engines; go-ycsb v1.0.3 ({GOYCSB}), "
          f"{', '.join(versions)}; client CPU = user + system of each tool's process", flush=True)
    if problems:
        raise Failed("; ".join(p.splitlines()[0] for p in problems))


lib.main(body, cleanup=[lambda: shutil.rmtree(work, ignore_errors=True)])
PY
