#!/usr/bin/env bash
# dbgauge against sysbench on MariaDB: point selects by primary key.
#
# One throwaway MariaDB (mariadb-install-db into a temporary folder, mariadbd
# on a free loopback port, as the mysql account when run as root), started
# here so that both tools measure the same server. sysbench's sbtest1 and
# dbgauge's kv_kv table hold the same number of rows (N) in the same
# database; each test is `sysbench oltp_point_select` (SELECT c FROM sbtest1
# WHERE id=?, server-side prepared, uniform ids) or `dbgauge run kv --mix
# read=100` (SELECT v FROM kv_kv WHERE k=?, prepared once per connection,
# uniform keys), with the same clients and duration, the tools alternating
# (dbgauge first in odd rounds, sysbench first in even ones).
#
# Printed per round: each tool's reads/s, dbgauge ÷ sysbench, each tool's
# client CPU per read (user + system of its process, from rusage), and the
# server's CPU per read under each (mariadbd's, from /proc/PID/stat): when
# the server spends more per read under one tool, the gap is in the
# queries (kv_kv's VARBINARY key against sbtest1's INTEGER id), not in the
# client. Then the medians.
#
# N=100000 rows, CLIENTS=8, DURATION=20 s, ROUNDS=3, VALUE=120 bytes (the
# size of sbtest's c column).
# DBGAUGE=PATH measures another build of dbgauge (default ./dbgauge, built if missing).
# PIN=1 gives the server CPU 0 and the tool under test CPU 1 (sched_setaffinity).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${DBGAUGE:-}" ] || { [ -x ./dbgauge ] || go build -o dbgauge ./cmd/dbgauge; }
exec python3 - "$@" <<'PY'
import json, glob, os, pwd, re, resource, shutil, socket, subprocess, sys, tempfile, time

N = int(os.environ.get("N", "100000"))
CLIENTS = int(os.environ.get("CLIENTS", "8"))
DURATION = int(os.environ.get("DURATION", "20"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
VALUE = int(os.environ.get("VALUE", "120"))
DBGAUGE = os.environ.get("DBGAUGE", "./dbgauge")
PIN = os.environ.get("PIN", "") not in ("", "0") and os.cpu_count() >= 2
MARIADBD = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
INSTALL = shutil.which("mariadb-install-db")
if not os.path.exists(MARIADBD) or not INSTALL or not shutil.which("sysbench"):
    sys.exit("bench: needs mariadbd, mariadb-install-db and sysbench: apt-get install mariadb-server sysbench")

work = tempfile.mkdtemp(prefix="dbgauge-vs-sysbench-")
os.chmod(work, 0o755)
user = []
as_user = None
if os.geteuid() == 0:  # mariadbd refuses root
    u = pwd.getpwnam("mysql")
    as_user = (u.pw_uid, u.pw_gid)
    os.chown(work, *as_user)
    user = ["--user=mysql"]

def server_cpu():
    if PIN:
        os.sched_setaffinity(0, {0})

def client_cpu():
    if PIN:
        os.sched_setaffinity(0, {1})

s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
data, sock = os.path.join(work, "data"), os.path.join(work, "mysqld.sock")
subprocess.run([INSTALL, "--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"] + user,
               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
log = open(os.path.join(work, "mariadb.log"), "w")
srv = subprocess.Popen([MARIADBD, "--no-defaults", "--datadir=" + data, "--port=" + str(port), "--bind-address=127.0.0.1",
                        "--socket=" + sock, "--pid-file=" + os.path.join(work, "mysqld.pid"), "--skip-name-resolve",
                        f"--max-connections={CLIENTS + 50}"] + user, preexec_fn=server_cpu, stdout=log, stderr=log)

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

TICK = os.sysconf("SC_CLK_TCK")

def server_cpu_now():
    # mariadbd is one process: its threads' user + system time.
    f = open(f"/proc/{srv.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK

try:
    for _ in range(600):
        if subprocess.run(["mariadb", "--no-defaults", "-S", sock, "-uroot", "-e", "SELECT 1"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            break
        if srv.poll() is not None:
            sys.exit("bench: mariadbd exited: see " + log.name)
        time.sleep(0.1)
    subprocess.run(["mariadb", "--no-defaults", "-S", sock, "-uroot", "-e",
                    "CREATE USER bench@'127.0.0.1'; GRANT ALL ON *.* TO bench@'127.0.0.1'; CREATE DATABASE bench"], check=True)
    sb = ["sysbench", "oltp_point_select", "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={port}",
          "--mysql-user=bench", "--mysql-db=bench", "--tables=1", f"--table-size={N}"]
    subprocess.run(sb + ["prepare"], check=True, stdout=subprocess.DEVNULL)
    dsn = f"mysql://bench@tcp(127.0.0.1:{port})/bench"
    common = ["--db", dsn, "--records", str(N), "--value-bytes", str(VALUE)]
    subprocess.run([DBGAUGE, "load", "kv"] + common, check=True, stdout=subprocess.DEVNULL)

    def sysbench():
        t, st = cpu(), server_cpu_now()
        out = subprocess.run(sb + [f"--threads={CLIENTS}", f"--time={DURATION}", "--rand-type=uniform", "--report-interval=0", "run"],
                             check=True, capture_output=True, text=True, preexec_fn=client_cpu).stdout
        used, sused = cpu() - t, server_cpu_now() - st
        m = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out)
        n = int(m.group(1))
        return float(m.group(2)), used / n * 1e6, sused / n * 1e6

    def dbgauge():
        res = os.path.join(work, "results")
        shutil.rmtree(res, ignore_errors=True)
        t, st = cpu(), server_cpu_now()
        subprocess.run([DBGAUGE, "run", "kv", "--mix", "read=100", "--clients", str(CLIENTS), "--duration", f"{DURATION}s",
                        "--warmup", "0", "--ceiling", "off", "--results", res] + common,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=client_cpu)
        used, sused = cpu() - t, server_cpu_now() - st
        r = json.load(open(glob.glob(res + "/*/result.json")[0]))
        n = max(r["summary"]["ok"], 1)
        return r["summary"]["rate"], used / n * 1e6, sused / n * 1e6

    print("%5s %13s %13s %7s %15s %15s %15s %15s" % ("round", "dbgauge r/s", "sysbench r/s", "÷", "dbgauge µs/read", "sysbench µs/read",
                                                    "server µs (dbg)", "server µs (sb)"))
    ratios, dcpu, scpu, dsrv, ssrv = [], [], [], [], []
    for r in range(1, ROUNDS + 1):
        if r % 2:
            (d, dc, ds), (p, pc, ps) = dbgauge(), sysbench()
        else:
            (p, pc, ps), (d, dc, ds) = sysbench(), dbgauge()
        ratios.append(d / p); dcpu.append(dc); scpu.append(pc); dsrv.append(ds); ssrv.append(ps)
        print("%5d %13.0f %13.0f %7.3f %15.2f %15.2f %15.2f %15.2f" % (r, d, p, d / p, dc, pc, ds, ps), flush=True)
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print("median dbgauge ÷ sysbench: %.3f  (%d rounds, %.3f–%.3f); median client CPU per read: dbgauge %.2f µs, sysbench %.2f µs;"
          " median server CPU per read: under dbgauge %.2f µs, under sysbench %.2f µs"
          % (med(ratios), len(ratios), min(ratios), max(ratios), med(dcpu), med(scpu), med(dsrv), med(ssrv)))
    ver = subprocess.run(["sysbench", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{N} rows ({VALUE}-byte values), {CLIENTS} clients, {DURATION} s per test, TCP loopback, "
          f"{'server on CPU 0, client on CPU 1' if PIN else 'server and client share the CPUs'}, {ver}, "
          f"{subprocess.run([MARIADBD, '--version'], capture_output=True, text=True).stdout.split(' for ')[0].split('Ver ')[-1]}, "
          "client CPU = user + system of each tool's process")
finally:
    srv.terminate(); srv.wait()
    shutil.rmtree(work, ignore_errors=True)
PY
