#!/usr/bin/env bash
# dbgauge run tpcb against pgbench -M prepared, on one PostgreSQL server this
# script starts on loopback (its own throwaway cluster), in the same run:
# select-only and read-write (TPC-B-like), 1 and 8 clients, alternating the
# two tools within each round. Prints transactions/s, the ratio dbgauge ÷
# pgbench, and each tool's client CPU (user + system) per transaction.
#   SCALE=10 DURATION=20 ROUNDS=3 CLIENTS="1 8" MODES="select-only tpcb" bench/vs-pgbench.sh
# MODES=script runs pgbench's tpcb-like script written out as a file
# (examples/pgbench/tpcb-like.sql) through both tools: dbgauge run script -f
# and pgbench -f, and after each test dbgauge check examples/tpcb-like.toml
# holds the four balances' sums equal (the balances are zeroed before each).
# Any client counts: CLIENTS="64 1000" MODES=select-only shows how each tool's
# rate holds up with many connections (the server gets max_connections to match).
# LAZY=1 runs both tools with synchronous_commit off (the server's setting for
# pgbench, --durability lazy for dbgauge), which takes the disk out of tpcb.
# Both tools connect over TCP (SOCKET=1: over the server's Unix socket);
# dbgauge reuses the tables pgbench -i loaded.
# Every test starts from the same state, whichever tool runs it: the tables
# vacuumed, pgbench_history emptied (what pgbench does before a run unless
# -n) and a checkpoint taken; autovacuum is off, so that it never lands in
# one tool's test and not the other's.
# SMOKE=1: scale 1, 1 client, 1 s per test, 1 round, every mode (the script
# and its checks too).
# DBGAUGE=PATH measures another build of dbgauge (default: this checkout, built afresh).
# PIN=1 gives the server CPU 0 and the client under test CPU 1 (taskset-like,
# through sched_setaffinity): the client's CPU is then not taken from the
# server, which shows whether the harness itself is the bottleneck.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob SCALE 10 1
knob DURATION 20 1
knob ROUNDS 3 1
knob CLIENTS "1 8" 1
knob MODES "select-only tpcb" "select-only tpcb script"
knob LAZY 0
knob SOCKET 0
knob PIN 0
need_dbgauge
exec python3 - "$@" <<'PY'
import os, resource, shutil
import lib
from lib import number, run

SCALE, DURATION, ROUNDS = lib.ints("SCALE DURATION ROUNDS")
CLIENTS = [int(c) for c in lib.words("CLIENTS")]
MODES = lib.words("MODES")
LAZY = lib.switch("LAZY")
SOCKET = lib.switch("SOCKET")
PIN = lib.switch("PIN") and os.cpu_count() >= 2
DBGAUGE = lib.setting("DBGAUGE")
if not MODES or any(m not in ("select-only", "tpcb", "script") for m in MODES):
    raise SystemExit("bench: MODES takes select-only, tpcb and script")

# Many clients need a socket each, in either tool.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = max(CLIENTS) + 256
if soft < want:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard) if hard != resource.RLIM_INFINITY else want, hard))

client_cpu = lib.on_cpus({1} if PIN else None)
work = lib.workdir("dbgauge-vs-pgbench-")
eng = lib.Postgres(work, max(50, max(CLIENTS) + 10), ["synchronous_commit=off"] if LAZY else [], cpus={0} if PIN else None)
SCRIPT = "examples/pgbench/tpcb-like.sql"


def body():
    eng.start()
    host = eng.dir if SOCKET else "127.0.0.1"
    env = eng.env(host=host)
    dsn = eng.dsn("postgres", host=host)
    pgbench_bin = eng.tool("pgbench")
    run([pgbench_bin, "-i", "-q", "-s", str(SCALE)], "pgbench -i", env=env)

    def reset():
        run([eng.tool("psql"), "-q", "-X", "-v", "ON_ERROR_STOP=1", "-c", "UPDATE pgbench_accounts SET abalance = 0 WHERE abalance <> 0",
             "-c", "UPDATE pgbench_tellers SET tbalance = 0 WHERE tbalance <> 0", "-c", "UPDATE pgbench_branches SET bbalance = 0 WHERE bbalance <> 0",
             "-c", "VACUUM pgbench_branches, pgbench_tellers, pgbench_accounts",
             "-c", "TRUNCATE pgbench_history", "-c", "CHECKPOINT"], "psql (the state before a test)", env=env)

    def pgbench(mode, c):
        args = [pgbench_bin, "-M", "prepared", "-c", str(c), "-j", str(min(c, os.cpu_count())),
                "-T", str(DURATION), "-n"] + (["-S"] if mode == "select-only" else []) + (["-f", SCRIPT, "-s", str(SCALE)] if mode == "script" else [])
        reset()
        t = lib.cpu()
        out = run(args, "pgbench", env=env, preexec_fn=client_cpu).stdout
        used = lib.cpu() - t
        tx = lib.grab(r"number of transactions actually processed: (\d+)", out, "pgbench's transactions")
        tps = lib.grab(r"tps = ([\d.]+) \(without initial connection time\)", out, "pgbench's tps")
        return tps, used / tx * 1e6

    def dbgauge(mode, c):
        res = os.path.join(work, "results")
        shutil.rmtree(res, ignore_errors=True)
        args = [DBGAUGE, "run"] + (["script", "-f", SCRIPT] if mode == "script" else ["tpcb"]) + ["--db", dsn, "--scale", str(SCALE), "--clients", str(c),
                "--duration", f"{DURATION}s", "--warmup", "0", "--ceiling", "off", "--results", res] + (["--durability", "lazy"] if LAZY else [])
        if mode == "select-only":
            args.append("--select-only")
        reset()
        t = lib.cpu()
        run(args, "dbgauge run", preexec_fn=client_cpu)
        used = lib.cpu() - t
        s = lib.result(res)["summary"]
        return number(s.get("rate"), "dbgauge's tps"), used / number(s.get("ok"), "dbgauge's transactions") * 1e6

    def checked(tool, mode):
        """After a script test, the workload file's checks on what the tool left: they must pass."""
        if mode != "script":
            return
        out = run([DBGAUGE, "check", "examples/tpcb-like.toml", "--db", dsn], f"dbgauge check after {tool}")
        line = next((l.strip() for l in out.stdout.splitlines() if "balances_agree" in l), None)
        if line is None:
            raise lib.Failed(f"dbgauge check after {tool} named no balances_agree:\n{lib.tail(out.stdout + out.stderr)}")
        print("  after %-8s %s (exit %d)" % (tool, line, out.returncode), flush=True)

    print("%-11s %7s %5s %12s %12s %7s %14s %14s" % ("mode", "clients", "round", "dbgauge tps", "pgbench tps", "÷", "dbgauge µs/tx", "pgbench µs/tx"))
    ratios, rates, cpus = {}, {}, {}
    for r in range(1, ROUNDS + 1):
        for mode in MODES:
            for c in CLIENTS:
                if r % 2:
                    d, dc = dbgauge(mode, c); checked("dbgauge", mode)
                    p, pc = pgbench(mode, c); checked("pgbench", mode)
                else:
                    p, pc = pgbench(mode, c); checked("pgbench", mode)
                    d, dc = dbgauge(mode, c); checked("dbgauge", mode)
                ratios.setdefault((mode, c), []).append(d / p)
                cpus.setdefault((mode, c), ([], []))[0].append(dc)
                cpus[(mode, c)][1].append(pc)
                rates.setdefault((mode, c), ([], []))[0].append(d)
                rates[(mode, c)][1].append(p)
                print("%-11s %7d %5d %12.0f %12.0f %7.3f %14.1f %14.1f" % (mode, c, r, d, p, d / p, dc, pc), flush=True)
    for (mode, c), rs in ratios.items():
        rs.sort()
        dcs, pcs = sorted(cpus[(mode, c)][0]), sorted(cpus[(mode, c)][1])
        print("median dbgauge ÷ pgbench  %-11s %d clients: %.3f  (%d rounds, %.3f–%.3f); client CPU µs/tx median dbgauge %.1f (%.1f–%.1f), pgbench %.1f (%.1f–%.1f)" % (
            mode, c, rs[len(rs) // 2], len(rs), rs[0], rs[-1], dcs[len(dcs) // 2], dcs[0], dcs[-1], pcs[len(pcs) // 2], pcs[0], pcs[-1]))
    if len(CLIENTS) > 1:  # how each tool's rate holds up as clients grow
        med = lib.med
        for mode in MODES:
            first = rates[(mode, CLIENTS[0])]
            for c in CLIENTS[1:]:
                d, p = rates[(mode, c)]
                print("median tps at %d ÷ at %d clients  %-11s dbgauge %.3f  pgbench %.3f" % (c, CLIENTS[0], mode, med(d) / med(first[0]), med(p) / med(first[1])))
    print(f"scale {SCALE}, {DURATION} s per test, {'Unix socket' if SOCKET else 'TCP loopback'}, {'synchronous_commit off' if LAZY else 'synchronous_commit on'}, each test from vacuumed tables and an empty history, {'server on CPU 0, client on CPU 1' if PIN else 'server and client share the CPUs'}, {run([pgbench_bin, '--version'], 'pgbench --version').stdout.strip()}, client CPU = user + system of each tool's process")


lib.main(body, cleanup=[eng.stop, lambda: shutil.rmtree(work, ignore_errors=True)])
PY
