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
# DBGAUGE=PATH measures another build of dbgauge (default ./dbgauge, built if missing).
# PIN=1 gives the server CPU 0 and the client under test CPU 1 (taskset-like,
# through sched_setaffinity): the client's CPU is then not taken from the
# server, which shows whether the harness itself is the bottleneck.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${DBGAUGE:-}" ] || { [ -x ./dbgauge ] || go build -o dbgauge ./cmd/dbgauge; }
exec python3 - "$@" <<'PY'
import json, glob, os, pwd, re, resource, shutil, socket, subprocess, sys, tempfile, time

SCALE = int(os.environ.get("SCALE", "10"))
DURATION = int(os.environ.get("DURATION", "20"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
CLIENTS = [int(c) for c in os.environ.get("CLIENTS", "1 8").split()]
MODES = os.environ.get("MODES", "select-only tpcb").split()
LAZY = os.environ.get("LAZY", "") not in ("", "0")
bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
BIN = os.environ.get("PG_BIN", bins[-1] if bins else "")
if not os.path.exists(os.path.join(BIN, "pgbench")):
    sys.exit("bench: no PostgreSQL server or pgbench found: apt-get install postgresql (or PG_BIN=…)")

# Many clients need a socket each, in either tool.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = max(CLIENTS) + 256
if soft < want:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard) if hard != resource.RLIM_INFINITY else want, hard))

work = tempfile.mkdtemp(prefix="dbgauge-vs-pgbench-")
os.chmod(work, 0o755)
as_user = None
if os.geteuid() == 0:  # PostgreSQL refuses root
    u = pwd.getpwnam("postgres")
    as_user = (u.pw_uid, u.pw_gid)
    os.chown(work, *as_user)

PIN = os.environ.get("PIN", "") not in ("", "0") and os.cpu_count() >= 2

def demote():
    if PIN:
        os.sched_setaffinity(0, {0})
    if as_user:
        os.setgid(as_user[1]); os.setuid(as_user[0])

def client_cpu():
    if PIN:
        os.sched_setaffinity(0, {1})

s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
data = os.path.join(work, "data")
subprocess.run([os.path.join(BIN, "initdb"), "-D", data, "-U", "bench", "--auth=trust", "-N"],
               preexec_fn=demote, check=True, stdout=subprocess.DEVNULL)
log = open(os.path.join(work, "postgres.log"), "w")
srv = subprocess.Popen([os.path.join(BIN, "postgres"), "-D", data, "-p", str(port), "-c", "listen_addresses=127.0.0.1",
                        "-c", "unix_socket_directories=" + work, "-c", f"max_connections={max(50, max(CLIENTS) + 10)}", "-c", "autovacuum=off"] + (["-c", "synchronous_commit=off"] if LAZY else []),
                       preexec_fn=demote, stdout=log, stderr=log)
SOCKET = os.environ.get("SOCKET", "") not in ("", "0")
host = work if SOCKET else "127.0.0.1"
env = dict(os.environ, PGHOST=host, PGPORT=str(port), PGUSER="bench", PGDATABASE="postgres")
dsn = f"postgres://bench@/postgres?host={host}&port={port}&sslmode=disable"
try:
    for _ in range(200):
        if subprocess.run([os.path.join(BIN, "pg_isready"), "-q"], env=env).returncode == 0:
            break
        time.sleep(0.05)
    subprocess.run([os.path.join(BIN, "pgbench"), "-i", "-q", "-s", str(SCALE)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    SCRIPT = "examples/pgbench/tpcb-like.sql"
    def reset():
        subprocess.run([os.path.join(BIN, "psql"), "-q", "-X", "-c", "UPDATE pgbench_accounts SET abalance = 0 WHERE abalance <> 0",
                        "-c", "UPDATE pgbench_tellers SET tbalance = 0 WHERE tbalance <> 0", "-c", "UPDATE pgbench_branches SET bbalance = 0 WHERE bbalance <> 0",
                        "-c", "VACUUM pgbench_branches, pgbench_tellers, pgbench_accounts",
                        "-c", "TRUNCATE pgbench_history", "-c", "CHECKPOINT"], env=env, check=True, stdout=subprocess.DEVNULL)

    def cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    def pgbench(mode, c):
        args = [os.path.join(BIN, "pgbench"), "-M", "prepared", "-c", str(c), "-j", str(min(c, os.cpu_count())),
                "-T", str(DURATION), "-n"] + (["-S"] if mode == "select-only" else []) + (["-f", SCRIPT, "-s", str(SCALE)] if mode == "script" else [])
        reset()
        t = cpu()
        out = subprocess.run(args, env=env, check=True, capture_output=True, text=True, preexec_fn=client_cpu).stdout
        used = cpu() - t
        tx = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))
        tps = float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", out).group(1))
        return tps, used / tx * 1e6

    def dbgauge(mode, c):
        res = os.path.join(work, "results")
        shutil.rmtree(res, ignore_errors=True)
        args = [os.environ.get("DBGAUGE", "./dbgauge"), "run"] + (["script", "-f", SCRIPT] if mode == "script" else ["tpcb"]) + ["--db", dsn, "--scale", str(SCALE), "--clients", str(c),
                "--duration", f"{DURATION}s", "--warmup", "0", "--ceiling", "off", "--results", res] + (["--durability", "lazy"] if LAZY else [])
        if mode == "select-only":
            args.append("--select-only")
        reset()
        t = cpu()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=client_cpu)
        used = cpu() - t
        r = json.load(open(glob.glob(res + "/*/result.json")[0]))
        return r["summary"]["rate"], used / max(r["summary"]["ok"], 1) * 1e6

    def checked(tool, mode):
        """After a script test, the workload file's checks on what the tool left."""
        if mode != "script":
            return ""
        out = subprocess.run([os.environ.get("DBGAUGE", "./dbgauge"), "check", "examples/tpcb-like.toml", "--db", dsn], capture_output=True, text=True)
        line = next((l.strip() for l in out.stdout.splitlines() if "balances_agree" in l), out.stderr.strip())
        print("  after %-8s %s (exit %d)" % (tool, line, out.returncode), flush=True)
        return line

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
        med = lambda xs: sorted(xs)[len(xs) // 2]
        for mode in MODES:
            first = rates[(mode, CLIENTS[0])]
            for c in CLIENTS[1:]:
                d, p = rates[(mode, c)]
                print("median tps at %d ÷ at %d clients  %-11s dbgauge %.3f  pgbench %.3f" % (c, CLIENTS[0], mode, med(d) / med(first[0]), med(p) / med(first[1])))
    print(f"scale {SCALE}, {DURATION} s per test, {'Unix socket' if SOCKET else 'TCP loopback'}, {'synchronous_commit off' if LAZY else 'synchronous_commit on'}, each test from vacuumed tables and an empty history, {'server on CPU 0, client on CPU 1' if PIN else 'server and client share the CPUs'}, {subprocess.run([os.path.join(BIN, 'pgbench'), '--version'], capture_output=True, text=True).stdout.strip()}, client CPU = user + system of each tool's process")
finally:
    srv.terminate(); srv.wait()
    shutil.rmtree(work, ignore_errors=True)
PY
