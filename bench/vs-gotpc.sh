#!/usr/bin/env bash
# dbgauge run tpcc against go-tpc (PingCAP's TPC-C, pinned at v1.0.12) on the
# same PostgreSQL and the same MariaDB, each a throwaway server this script
# starts on loopback (initdb as the postgres account, mariadb-install-db and
# mariadbd as the mysql account when run as root), with a buffer of 1 GB
# each so that the data stays in memory in both engines.
#
# On each engine dbgauge loads WAREHOUSES warehouses (dbgauge load tpcc) into
# one database, and both tools run on it in turn, on the same tables (go-tpc's
# names and primary keys), with CLIENTS connections, no keying or thinking
# times, for DURATION seconds each, over TCP; the tools alternate (dbgauge
# first in odd rounds, go-tpc first in even ones). Before each test PostgreSQL's tables are
# vacuumed and a checkpoint taken (autovacuum is off, so that it never lands
# in one tool's test and not the other's); MariaDB is left as it is.
#
# Printed per round: each tool's tpmC (New-Orders per minute, rolled-back ones
# included in both), dbgauge ÷ go-tpc, each tool's transactions/s and client
# CPU (user + system of its process, from rusage) per transaction, all five
# kinds counted (dbgauge: summary.ok of result.json; go-tpc: the Count of its
# [Summary] lines), and the failed transactions of each. Then the medians.
#
# CROSS=1 (default) then cross-checks the two tools' consistency conditions
# (clause 3.3.2) on each engine:
#   (a) go-tpc tpcc check on the database dbgauge loaded and both ran (go-tpc
#       exits 0 even when a check fails: its output is read), and dbgauge
#       check tpcc --check all on the same;
#   (b) a second database that go-tpc prepared (1 warehouse, --no-check) and
#       ran for 10 s: dbgauge check tpcc --check all, by its exit code;
#   (c) one district's d_next_o_id raised by 1 in that database: dbgauge check
#       tpcc must fail (exit 1) naming condition 3.3.2.2, and go-tpc's check too.
# go-tpc's check sums each customer's history in a correlated subquery
# (condition 3.3.2.10): an index on history (h_c_w_id, h_c_d_id, h_c_id) is
# made for it, after the measurements, or it scans history per customer.
#
#   WAREHOUSES=4 CLIENTS=8 DURATION=60 ROUNDS=3 ENGINES="postgres mariadb" CROSS=1 bench/vs-gotpc.sh
# SMOKE=1: 1 warehouse, 2 clients, 2 s per test, 1 round, the cross-checks
# too. go-tpc is installed into bench/.bin (go install …@v1.0.12) when
# missing; GOTPC=PATH runs another. VERBOSE=1 shows each command and its
# seconds on stderr. DBGAUGE=PATH measures another build of dbgauge (default:
# this checkout, built afresh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob WAREHOUSES 4 1
knob CLIENTS 8 2
knob DURATION 60 2
knob ROUNDS 3 1
knob ENGINES "postgres mariadb"
knob CROSS 1
need_dbgauge
need_gotpc
exec python3 - "$@" <<'PY'
import os, re, shutil, subprocess
import lib
from lib import Failed, number, run

WAREHOUSES, CLIENTS, DURATION, ROUNDS = lib.ints("WAREHOUSES CLIENTS DURATION ROUNDS")
ENGINES = lib.servers()
CROSS = lib.switch("CROSS")
DBGAUGE = lib.setting("DBGAUGE")
GOTPC = lib.setting("GOTPC")

work = lib.workdir("dbgauge-vs-gotpc-")


def engine(name):
    """The engine's throwaway server, 1 GB of buffers so that the data stays in memory."""
    if name == "postgres":
        return lib.Postgres(work, CLIENTS + 50, ["shared_buffers=1GB", "max_wal_size=4GB"])
    return lib.MariaDB(work, CLIENTS + 50, ["--innodb-buffer-pool-size=1G", "--innodb-log-file-size=1G"])


def gotpc_args(eng, db):
    if eng.name == "postgres":
        return ["-d", "postgres", "-H", "127.0.0.1", "-P", str(eng.port), "-U", "bench", "-D", db, "--conn-params", "sslmode=disable"]
    return ["-d", "mysql", "-H", "127.0.0.1", "-P", str(eng.port), "-U", "bench", "-D", db]


def gotpc_run(eng, db, warehouses, threads, seconds):
    """go-tpc tpcc run: tpmC, transactions/s, client CPU µs per transaction, failed."""
    eng.settle(db)
    t = lib.cpu()
    # --ignore-error: a thread that meets an error (a deadlock) goes on, as
    # dbgauge's clients do, instead of ending; the errors are counted.
    out = run([GOTPC, "tpcc", "run", "--warehouses", str(warehouses), "-T", str(threads), "--time", f"{seconds}s",
               "--ignore-error", "--interval", "3600s"] + gotpc_args(eng, db), "go-tpc tpcc run").stdout
    used = lib.cpu() - t
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\[Summary\] (\w+)\s+- Takes\(s\): [\d.]+, Count: (\d+)", out, re.M)}
    if not counts:
        raise Failed("go-tpc tpcc run printed no [Summary] counts:\n" + lib.tail(out))
    tpmc = lib.grab(r"^tpmC: ([\d.]+), tpmTotal: [\d.]+, efficiency", out, "go-tpc's tpmC")
    total = lib.grab(r"^tpmC: [\d.]+, tpmTotal: ([\d.]+), efficiency", out, "go-tpc's tpmTotal")
    ok = number(sum(n for k, n in counts.items() if not k.endswith("_ERR")), "go-tpc's transactions done")
    bad = sum(n for k, n in counts.items() if k.endswith("_ERR"))
    return tpmc, total / 60, used / ok * 1e6, bad


def dbgauge_run(eng, db):
    """dbgauge run tpcc: tpmC, transactions/s, client CPU µs per transaction, failed."""
    res = os.path.join(work, "results")
    shutil.rmtree(res, ignore_errors=True)
    eng.settle(db)
    t = lib.cpu()
    run([DBGAUGE, "run", "tpcc", "--warehouses", str(WAREHOUSES), "--clients", str(CLIENTS), "--duration", f"{DURATION}s",
         "--warmup", "0", "--ceiling", "off", "--db", eng.dsn(db), "--results", res], "dbgauge run tpcc")
    used = lib.cpu() - t
    s = lib.result(res)["summary"]
    tpmc = number(next((f.get("value") for f in s.get("figures") or [] if f.get("name") == "tpmC"), None), "dbgauge's tpmC")
    ok = number(s.get("ok"), "dbgauge's transactions done")
    return tpmc, ok / number(s.get("seconds"), "dbgauge's seconds"), used / ok * 1e6, int(number(s.get("failed", 0), "dbgauge's failed", zero=True))


def gotpc_check(eng, db, warehouses):
    """go-tpc tpcc check exits 0 whatever it finds: PASS only when it printed no failure.
    Its condition 3.3.2.10 sums each customer's history in a correlated
    subquery: without an index on history's customer columns (neither tool's
    schema has one) that is a scan of history for each of a warehouse's
    30,000 customers. The index is made here, after the measurements."""
    eng.sql(db, "CREATE INDEX IF NOT EXISTS vs_gotpc_h_customer ON history (h_c_w_id, h_c_d_id, h_c_id)")
    out = run([GOTPC, "tpcc", "check", "--warehouses", str(warehouses), "-T", "1"] + gotpc_args(eng, db), "go-tpc tpcc check", ok=(0, 1, 2))
    text = out.stdout + out.stderr
    bad = [ln.strip() for ln in text.splitlines() if re.search(r"failed|panic|error", ln, re.I) and "maxprocs" not in ln]
    return out.returncode == 0 and not bad, (bad[0] if bad else "no condition failed")


def dbgauge_check(eng, db, warehouses):
    out = subprocess.run([DBGAUGE, "check", "tpcc", "--warehouses", str(warehouses), "--check", "all", "--db", eng.dsn(db)],
                         capture_output=True, text=True)
    return out.returncode, out.stdout + out.stderr


def verdict(ok):
    return "PASS" if ok else "FAIL"


def compare(eng, name, versions, problems):
    eng.start()
    versions.append(eng.version())
    eng.create("tpcc")
    run([DBGAUGE, "load", "tpcc", "--warehouses", str(WAREHOUSES), "--db", eng.dsn("tpcc")], "dbgauge load tpcc")
    rows = []
    for r in range(1, ROUNDS + 1):
        if r % 2:
            d = dbgauge_run(eng, "tpcc"); g = gotpc_run(eng, "tpcc", WAREHOUSES, CLIENTS, DURATION)
        else:
            g = gotpc_run(eng, "tpcc", WAREHOUSES, CLIENTS, DURATION); d = dbgauge_run(eng, "tpcc")
        rows.append((d, g))
        print("%-8s %5d %13.1f %13.1f %7.3f %12.1f %12.1f %14.1f %14.1f %11s" % (
            name, r, d[0], g[0], d[0] / g[0], d[1], g[1], d[2], g[2], f"{d[3]}/{g[3]}"), flush=True)
    med = lib.med
    ratios = sorted(d[0] / g[0] for d, g in rows)
    print("median %s dbgauge ÷ go-tpc tpmC: %.3f  (%d rounds, %.3f–%.3f); tpmC dbgauge %.1f, go-tpc %.1f; "
          "client CPU µs/tx dbgauge %.1f (%.1f–%.1f), go-tpc %.1f (%.1f–%.1f)" % (
              name, med(ratios), len(ratios), ratios[0], ratios[-1], med([d[0] for d, _ in rows]), med([g[0] for _, g in rows]),
              med([d[2] for d, _ in rows]), min(d[2] for d, _ in rows), max(d[2] for d, _ in rows),
              med([g[2] for _, g in rows]), min(g[2] for _, g in rows), max(g[2] for _, g in rows)), flush=True)
    if not CROSS:
        return
    ok, line = gotpc_check(eng, "tpcc", WAREHOUSES)
    print(f"  (a) go-tpc tpcc check on dbgauge's load after both ran: {verdict(ok)} ({line})", flush=True)
    rc, out = dbgauge_check(eng, "tpcc", WAREHOUSES)
    print(f"  (a) dbgauge check tpcc --check all on the same: {verdict(rc == 0)} (exit {rc})", flush=True)
    if rc != 0:
        print("      " + "\n      ".join(out.strip().splitlines()[-12:]))
    ok = ok and rc == 0
    eng.create("tpcc1")
    # --no-check: go-tpc's own check of its load runs condition
    # 3.3.2.10 without the index gotpc_check makes (minutes for one
    # warehouse); dbgauge's check of (b) covers the load.
    run([GOTPC, "tpcc", "prepare", "--warehouses", "1", "-T", "2", "--no-check"] + gotpc_args(eng, "tpcc1"), "go-tpc tpcc prepare")
    gotpc_run(eng, "tpcc1", 1, CLIENTS, min(10, DURATION))
    rc, out = dbgauge_check(eng, "tpcc1", 1)
    print(f"  (b) dbgauge check tpcc --check all on go-tpc's load after go-tpc ran: {verdict(rc == 0)} (exit {rc})", flush=True)
    if rc != 0:
        print("      " + "\n      ".join(out.strip().splitlines()[-12:]))
    ok = ok and rc == 0
    eng.sql("tpcc1", "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 1")
    rc, out = dbgauge_check(eng, "tpcc1", 1)
    named = [ln.strip() for ln in out.splitlines() if "3.3.2.2" in ln]
    caught = rc == 1 and bool(named)
    print(f"  (c) d_next_o_id + 1 in district (1, 1): dbgauge check tpcc {verdict(caught)} (exit {rc}: "
          f"{named[0] if named else 'condition 3.3.2.2 not named'})", flush=True)
    if not caught:
        print("      " + "\n      ".join(out.strip().splitlines()[-12:]))
    gok, line = gotpc_check(eng, "tpcc1", 1)
    print(f"      and go-tpc tpcc check: {'catches it' if not gok else 'misses it'} ({line})", flush=True)
    if not (ok and caught):
        problems.append(f"{name}: a cross-check failed")


def body():
    print("%-8s %5s %13s %13s %7s %12s %12s %14s %14s %11s" % (
        "engine", "round", "dbgauge tpmC", "go-tpc tpmC", "÷", "dbgauge tx/s", "go-tpc tx/s", "dbgauge µs/tx", "go-tpc µs/tx", "failed d/g"), flush=True)
    versions, problems = [], []
    for name in ENGINES:
        eng = None
        try:
            eng = engine(name)
            compare(eng, name, versions, problems)
        except Failed as e:
            problems.append(f"{name}: {e}")
            print(f"{name}: FAILED: {e}", flush=True)
        finally:
            if eng:
                eng.stop()
    print(f"{WAREHOUSES} warehouses, {CLIENTS} clients, {DURATION} s per test, no keying or thinking times, TCP loopback, "
          f"server and client share the CPUs, 1 GB of buffers in both engines; go-tpc v1.0.12 ({GOTPC}), "
          f"{', '.join(versions)}; client CPU = user + system of each tool's process", flush=True)
    if problems:
        raise Failed("; ".join(p.splitlines()[0] for p in problems))


lib.main(body, cleanup=[lambda: shutil.rmtree(work, ignore_errors=True)])
PY
