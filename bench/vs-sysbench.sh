#!/usr/bin/env bash
# dbgauge against sysbench on MariaDB: point selects by primary key.
#
# One throwaway MariaDB (mariadb-install-db into a temporary folder, mariadbd
# on a free loopback port, as the mysql account when run as root), started
# here so that all tests measure the same server. Each round runs, in turn
# (the order rotating from round to round):
#   sysbench   `sysbench oltp_point_select`: SELECT c FROM sbtest1 WHERE id=?,
#              server-side prepared, uniform ids, one query an event;
#   script     `dbgauge run script -f point_select.sql`: the same statement on
#              the same table (\set id random(1, N), then the SELECT), one
#              command and so autocommit, prepared once per connection;
#   kv         `dbgauge run kv --mix read=100`: SELECT v FROM kv_kv WHERE k=?
#              on dbgauge's own table of N rows (a VARBINARY key).
# MODES="script kv" picks dbgauge's tests (default both), with the same
# clients and duration as sysbench.
#
# Printed per round: each test's reads/s, its ratio to sysbench's, each
# tool's client CPU per read (user + system of its process, from rusage),
# and the server's CPU per read under each (mariadbd's, from
# /proc/PID/stat): when the server spends more per read under one test, the
# gap is in the queries, not in the client. Then the medians.
#
# N=100000 rows, CLIENTS=8, DURATION=20 s, ROUNDS=3, VALUE=120 bytes (the
# size of sbtest's c column); SMOKE=1: 1,000 rows, 2 clients, 1 s, 1 round.
# DBGAUGE=PATH measures another build of dbgauge (default: this checkout, built afresh).
# PIN=1 gives the server CPU 0 and the tool under test CPU 1 (sched_setaffinity).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob N 100000 1000
knob CLIENTS 8 2
knob DURATION 20 1
knob ROUNDS 3 1
knob VALUE 120
knob MODES "script kv"
knob PIN 0
need sysbench sysbench
need_dbgauge
exec python3 - "$@" <<'PY'
import os, re, shutil, subprocess
import lib
from lib import Failed, number, run

N, CLIENTS, DURATION, ROUNDS, VALUE = lib.ints("N CLIENTS DURATION ROUNDS VALUE")
MODES = lib.words("MODES")
if not MODES or any(m not in ("script", "kv") for m in MODES):
    raise SystemExit("bench: MODES takes script and kv")
DBGAUGE = lib.setting("DBGAUGE")
PIN = lib.switch("PIN") and os.cpu_count() >= 2
client_cpu = lib.on_cpus({1} if PIN else None)

work = lib.workdir("dbgauge-vs-sysbench-")
eng = lib.MariaDB(work, CLIENTS + 50, cpus={0} if PIN else None)


def body():
    eng.start()
    eng.create("bench")
    sb = eng.sysbench("bench", N)
    run(sb + ["prepare"], "sysbench prepare")
    dsn = eng.dsn("bench")
    common = ["--db", dsn, "--records", str(N), "--value-bytes", str(VALUE)]
    run([DBGAUGE, "load", "kv"] + common, "dbgauge load kv")
    server_cpu = lambda: lib.process_cpu(eng.srv.pid)  # mariadbd is one process: its threads' user + system time

    def sysbench():
        t, st = lib.cpu(), server_cpu()
        out = run(sb + [f"--threads={CLIENTS}", f"--time={DURATION}", "--rand-type=uniform", "--report-interval=0", "run"],
                  "sysbench run", preexec_fn=client_cpu).stdout
        used, sused = lib.cpu() - t, server_cpu() - st
        n = lib.grab(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out, "sysbench's transactions")
        rate = lib.grab(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out, "sysbench's transactions per second", group=2)
        return rate, used / n * 1e6, sused / n * 1e6

    script = os.path.join(work, "point_select.sql")
    with open(script, "w") as f:
        f.write(f"\\set id random(1, {N})\nSELECT c FROM sbtest1 WHERE id = :id;\n")

    def dbgauge(mode):
        res = os.path.join(work, "results")
        shutil.rmtree(res, ignore_errors=True)
        if mode == "kv":
            cmd = ["run", "kv", "--mix", "read=100"] + common
        else:
            cmd = ["run", "script", "-f", script, "--db", dsn]
        t, st = lib.cpu(), server_cpu()
        run([DBGAUGE] + cmd + ["--clients", str(CLIENTS), "--duration", f"{DURATION}s", "--warmup", "0", "--ceiling", "off", "--results", res],
            "dbgauge " + " ".join(cmd[:2]), preexec_fn=client_cpu)
        used, sused = lib.cpu() - t, server_cpu() - st
        s = lib.result(res)["summary"]
        n = number(s.get("ok"), f"dbgauge {mode}'s reads done")
        return number(s.get("rate"), f"dbgauge {mode}'s reads/s"), used / n * 1e6, sused / n * 1e6

    tests = [("sysbench", sysbench)] + [(m, lambda m=m: dbgauge(m)) for m in MODES]
    print("%5s %-9s %11s %9s %14s %14s" % ("round", "test", "reads/s", "÷ sysb", "client µs/read", "server µs/read"))
    got = {name: [] for name, _ in tests}
    for r in range(ROUNDS):
        k = r % len(tests)
        out = {}
        for name, fn in tests[k:] + tests[:k]:
            out[name] = fn()
        for name, _ in tests:
            rate, c, sv = out[name]
            got[name].append((rate / out["sysbench"][0], rate, c, sv))
            print("%5d %-9s %11.0f %9.3f %14.2f %14.2f" % (r + 1, name, rate, rate / out["sysbench"][0], c, sv), flush=True)
    med = lib.med
    for name, _ in tests:
        g = got[name]
        ratios = [x[0] for x in g]
        line = f"median {name}: {med([x[1] for x in g]):.0f} reads/s"
        if name != "sysbench":
            line += f", ÷ sysbench {med(ratios):.3f} ({len(g)} rounds, {min(ratios):.3f}–{max(ratios):.3f})"
        line += f"; client CPU {med([x[2] for x in g]):.2f} µs/read, server CPU {med([x[3] for x in g]):.2f} µs/read"
        print(line)
    ver = run(["sysbench", "--version"], "sysbench --version").stdout.strip()
    print(f"{N} rows ({VALUE}-byte values), {CLIENTS} clients, {DURATION} s per test, TCP loopback, "
          f"{'server on CPU 0, client on CPU 1' if PIN else 'server and client share the CPUs'}, {ver}, "
          f"{eng.version()}, client CPU = user + system of each tool's process")


lib.main(body, cleanup=[eng.stop, lambda: shutil.rmtree(work, ignore_errors=True)])
PY
