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
MODES = os.environ.get("MODES", "script kv").split()
if not MODES or any(m not in ("script", "kv") for m in MODES):
    sys.exit("bench: MODES takes script and kv")
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
        t, st = cpu(), server_cpu_now()
        subprocess.run([DBGAUGE] + cmd + ["--clients", str(CLIENTS), "--duration", f"{DURATION}s",
                        "--warmup", "0", "--ceiling", "off", "--results", res],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=client_cpu)
        used, sused = cpu() - t, server_cpu_now() - st
        r = json.load(open(glob.glob(res + "/*/result.json")[0]))
        n = max(r["summary"]["ok"], 1)
        return r["summary"]["rate"], used / n * 1e6, sused / n * 1e6

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
    med = lambda xs: sorted(xs)[len(xs) // 2]
    for name, _ in tests:
        g = got[name]
        ratios = [x[0] for x in g]
        line = f"median {name}: {med([x[1] for x in g]):.0f} reads/s"
        if name != "sysbench":
            line += f", ÷ sysbench {med(ratios):.3f} ({len(g)} rounds, {min(ratios):.3f}–{max(ratios):.3f})"
        line += f"; client CPU {med([x[2] for x in g]):.2f} µs/read, server CPU {med([x[3] for x in g]):.2f} µs/read"
        print(line)
    ver = subprocess.run(["sysbench", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{N} rows ({VALUE}-byte values), {CLIENTS} clients, {DURATION} s per test, TCP loopback, "
          f"{'server on CPU 0, client on CPU 1' if PIN else 'server and client share the CPUs'}, {ver}, "
          f"{subprocess.run([MARIADBD, '--version'], capture_output=True, text=True).stdout.split(' for ')[0].split('Ver ')[-1]}, "
          "client CPU = user + system of each tool's process")
finally:
    srv.terminate(); srv.wait()
    shutil.rmtree(work, ignore_errors=True)
PY
