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
# go-tpc is installed into bench/.bin (go install …@v1.0.12) when missing;
# GOTPC=PATH runs another. VERBOSE=1 shows each command and its seconds on
# stderr. DBGAUGE=PATH measures another build of dbgauge (default ./dbgauge,
# built when missing or without tpcc).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${DBGAUGE:-}" ] || { ./dbgauge run tpcc --help >/dev/null 2>&1 || go build -o dbgauge ./cmd/dbgauge; }
if [ -z "${GOTPC:-}" ] && [ ! -x bench/.bin/go-tpc ]; then
    GOBIN="$PWD/bench/.bin" go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.12
fi
exec python3 - "$@" <<'PY'
import glob, json, os, pwd, re, resource, shutil, signal, socket, subprocess, sys, tempfile, time

WAREHOUSES = int(os.environ.get("WAREHOUSES", "4"))
CLIENTS = int(os.environ.get("CLIENTS", "8"))
DURATION = int(os.environ.get("DURATION", "60"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
ENGINES = os.environ.get("ENGINES", "postgres mariadb").split()
CROSS = os.environ.get("CROSS", "1") not in ("", "0")
VERBOSE = os.environ.get("VERBOSE", "") not in ("", "0")
DBGAUGE = os.environ.get("DBGAUGE", "./dbgauge")
GOTPC = os.environ.get("GOTPC", "bench/.bin/go-tpc")
for e in ENGINES:
    if e not in ("postgres", "mariadb"):
        sys.exit(f"bench: unknown engine {e!r}: ENGINES takes postgres and mariadb")

work = tempfile.mkdtemp(prefix="dbgauge-vs-gotpc-")
os.chmod(work, 0o755)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers and remove work on kill too


class Failed(Exception):
    """A command the comparison depends on failed: what ran and what it said."""


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    return p


def account(name):
    """The account a server runs as when we are root (both refuse root), and its folder."""
    d = os.path.join(work, name)
    os.mkdir(d)
    os.chmod(d, 0o755)
    if os.geteuid() != 0:
        return d, None
    u = pwd.getpwnam(name)
    os.chown(d, u.pw_uid, u.pw_gid)
    return d, (u.pw_uid, u.pw_gid)


def run(args, what, ok=(0,), **kw):
    t = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True, **kw)
    if VERBOSE:
        print(f"  [{time.monotonic() - t:6.1f} s] {' '.join(args)}", file=sys.stderr, flush=True)
    if out.returncode not in ok:
        tail = "\n".join((out.stdout + out.stderr).strip().splitlines()[-25:])
        raise Failed(f"{what}: `{' '.join(args)}` exited {out.returncode}:\n{tail}")
    return out


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Postgres:
    name = "postgres"

    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
        self.bin = os.environ.get("PG_BIN", bins[-1] if bins else "")
        if not os.path.exists(os.path.join(self.bin, "postgres")):
            raise Failed("no PostgreSQL server found: apt-get install postgresql (or PG_BIN=…)")
        self.dir, ids = account("postgres")
        self.demote = (lambda: (os.setgid(ids[1]), os.setuid(ids[0]))) if ids else None
        self.port = free_port()
        self.srv = None

    def start(self):
        data = os.path.join(self.dir, "data")
        run([os.path.join(self.bin, "initdb"), "-D", data, "-U", "bench", "--auth=trust", "-N"], "initdb", preexec_fn=self.demote)
        self.log = open(os.path.join(self.dir, "postgres.log"), "w")
        self.srv = subprocess.Popen([os.path.join(self.bin, "postgres"), "-D", data, "-p", str(self.port),
                                     "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + self.dir,
                                     "-c", f"max_connections={CLIENTS + 50}", "-c", "autovacuum=off",
                                     "-c", "shared_buffers=1GB", "-c", "max_wal_size=4GB"],
                                    preexec_fn=self.demote, stdout=self.log, stderr=self.log)
        for _ in range(300):
            if subprocess.run([os.path.join(self.bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)]).returncode == 0:
                return
            if self.srv.poll() is not None:
                break
            time.sleep(0.1)
        raise Failed("postgres did not start: " + open(self.log.name).read()[-2000:])

    def sql(self, db, *stmts):
        args = [os.path.join(self.bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port), "-U", "bench", "-d", db]
        for s in stmts:
            args += ["-c", s]
        return run(args, "psql").stdout

    def create(self, db):
        self.sql("postgres", f"CREATE DATABASE {db}")

    def dsn(self, db):
        return f"postgres://bench@127.0.0.1:{self.port}/{db}?sslmode=disable"

    def gotpc(self, db):
        return ["-d", "postgres", "-H", "127.0.0.1", "-P", str(self.port), "-U", "bench", "-D", db, "--conn-params", "sslmode=disable"]

    def settle(self, db):
        self.sql(db, "VACUUM ANALYZE", "CHECKPOINT")

    def version(self):
        return subprocess.run([os.path.join(self.bin, "postgres"), "--version"], capture_output=True, text=True).stdout.strip()

    def stop(self):
        if self.srv:
            self.srv.terminate(); self.srv.wait()


class MariaDB:
    name = "mariadb"

    def __init__(self):
        self.mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        self.install = shutil.which("mariadb-install-db")
        if not os.path.exists(self.mariadbd) or not self.install or not shutil.which("mariadb"):
            raise Failed("needs mariadbd, mariadb-install-db and mariadb: apt-get install mariadb-server mariadb-client")
        self.dir, ids = account("mysql")
        self.user = ["--user=mysql"] if ids else []
        self.port = free_port()
        self.sock = os.path.join(self.dir, "mysqld.sock")
        self.srv = None

    def start(self):
        data = os.path.join(self.dir, "data")
        run([self.install, "--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"] + self.user,
            "mariadb-install-db")
        self.log = open(os.path.join(self.dir, "mariadb.log"), "w")
        self.srv = subprocess.Popen([self.mariadbd, "--no-defaults", "--datadir=" + data, "--port=" + str(self.port),
                                     "--bind-address=127.0.0.1", "--socket=" + self.sock, "--pid-file=" + os.path.join(self.dir, "mysqld.pid"),
                                     "--skip-name-resolve", f"--max-connections={CLIENTS + 50}", "--innodb-buffer-pool-size=1G",
                                     "--innodb-log-file-size=1G"] + self.user, stdout=self.log, stderr=self.log)
        for _ in range(600):
            if subprocess.run(["mariadb", "--no-defaults", "-S", self.sock, "-uroot", "-e", "SELECT 1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
                break
            if self.srv.poll() is not None:
                raise Failed("mariadbd exited: " + open(self.log.name).read()[-2000:])
            time.sleep(0.1)
        else:
            raise Failed("mariadbd did not start: " + open(self.log.name).read()[-2000:])
        self.sql("", "CREATE USER bench@'127.0.0.1'", "GRANT ALL ON *.* TO bench@'127.0.0.1'")

    def sql(self, db, *stmts):
        return run(["mariadb", "--no-defaults", "-S", self.sock, "-uroot"] + ([db] if db else []) + ["-e", "; ".join(stmts)], "mariadb").stdout

    def create(self, db):
        self.sql("", f"CREATE DATABASE {db}")

    def dsn(self, db):
        return f"mysql://bench@tcp(127.0.0.1:{self.port})/{db}"

    def gotpc(self, db):
        return ["-d", "mysql", "-H", "127.0.0.1", "-P", str(self.port), "-U", "bench", "-D", db]

    def settle(self, db):
        pass

    def version(self):
        v = subprocess.run([self.mariadbd, "--version"], capture_output=True, text=True).stdout
        return "MariaDB " + v.split(" for ")[0].split("Ver ")[-1].strip()

    def stop(self):
        if self.srv:
            self.srv.terminate(); self.srv.wait()


def gotpc_run(eng, db, warehouses, threads, seconds):
    """go-tpc tpcc run: tpmC, transactions/s, client CPU µs per transaction, failed."""
    eng.settle(db)
    t = cpu()
    # --ignore-error: a thread that meets an error (a deadlock) goes on, as
    # dbgauge's clients do, instead of ending; the errors are counted.
    out = run([GOTPC, "tpcc", "run", "--warehouses", str(warehouses), "-T", str(threads), "--time", f"{seconds}s",
               "--ignore-error", "--interval", "3600s"] + eng.gotpc(db), "go-tpc tpcc run").stdout
    used = cpu() - t
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\[Summary\] (\w+)\s+- Takes\(s\): [\d.]+, Count: (\d+)", out, re.M)}
    m = re.search(r"^tpmC: ([\d.]+), tpmTotal: ([\d.]+), efficiency", out, re.M)
    if not m or not counts:
        raise Failed("go-tpc tpcc run printed no summary:\n" + "\n".join(out.splitlines()[-25:]))
    ok = sum(n for k, n in counts.items() if not k.endswith("_ERR"))
    bad = sum(n for k, n in counts.items() if k.endswith("_ERR"))
    return float(m.group(1)), float(m.group(2)) / 60, used / max(ok, 1) * 1e6, bad


def dbgauge_run(eng, db):
    """dbgauge run tpcc: tpmC, transactions/s, client CPU µs per transaction, failed."""
    res = os.path.join(work, "results")
    shutil.rmtree(res, ignore_errors=True)
    eng.settle(db)
    t = cpu()
    run([DBGAUGE, "run", "tpcc", "--warehouses", str(WAREHOUSES), "--clients", str(CLIENTS), "--duration", f"{DURATION}s",
         "--warmup", "0", "--ceiling", "off", "--db", eng.dsn(db), "--results", res], "dbgauge run tpcc")
    used = cpu() - t
    s = json.load(open(glob.glob(res + "/**/result.json", recursive=True)[0]))["summary"]
    tpmc = next(f["value"] for f in s["figures"] if f["name"] == "tpmC")
    return tpmc, s["ok"] / s["seconds"], used / max(s["ok"], 1) * 1e6, s.get("failed", 0)


def gotpc_check(eng, db, warehouses):
    """go-tpc tpcc check exits 0 whatever it finds: PASS only when it printed no failure.
    Its condition 3.3.2.10 sums each customer's history in a correlated
    subquery: without an index on history's customer columns (neither tool's
    schema has one) that is a scan of history for each of a warehouse's
    30,000 customers. The index is made here, after the measurements."""
    eng.sql(db, "CREATE INDEX IF NOT EXISTS vs_gotpc_h_customer ON history (h_c_w_id, h_c_d_id, h_c_id)")
    out = run([GOTPC, "tpcc", "check", "--warehouses", str(warehouses), "-T", "1"] + eng.gotpc(db), "go-tpc tpcc check", ok=(0, 1, 2))
    text = out.stdout + out.stderr
    bad = [ln.strip() for ln in text.splitlines() if re.search(r"failed|panic|error", ln, re.I) and "maxprocs" not in ln]
    return out.returncode == 0 and not bad, (bad[0] if bad else "no condition failed")


def dbgauge_check(eng, db, warehouses):
    out = subprocess.run([DBGAUGE, "check", "tpcc", "--warehouses", str(warehouses), "--check", "all", "--db", eng.dsn(db),
                          "--results", os.path.join(work, "check-results")], capture_output=True, text=True)
    return out.returncode, out.stdout + out.stderr


def med(xs):
    return sorted(xs)[len(xs) // 2]


def verdict(ok):
    return "PASS" if ok else "FAIL"


header = "%-8s %5s %13s %13s %7s %12s %12s %14s %14s %11s" % (
    "engine", "round", "dbgauge tpmC", "go-tpc tpmC", "÷", "dbgauge tx/s", "go-tpc tx/s", "dbgauge µs/tx", "go-tpc µs/tx", "failed d/g")
versions, problems = [], []
print(header, flush=True)
try:
    for name in ENGINES:
        eng = None
        try:
            eng = Postgres() if name == "postgres" else MariaDB()
            eng.start()
            versions.append(eng.version())
            eng.create("tpcc")
            run([DBGAUGE, "load", "tpcc", "--warehouses", str(WAREHOUSES), "--db", eng.dsn("tpcc"), "--ceiling", "off",
                 "--results", os.path.join(work, "load-results")], "dbgauge load tpcc")
            rows = []
            for r in range(1, ROUNDS + 1):
                if r % 2:
                    d = dbgauge_run(eng, "tpcc"); g = gotpc_run(eng, "tpcc", WAREHOUSES, CLIENTS, DURATION)
                else:
                    g = gotpc_run(eng, "tpcc", WAREHOUSES, CLIENTS, DURATION); d = dbgauge_run(eng, "tpcc")
                rows.append((d, g))
                print("%-8s %5d %13.1f %13.1f %7.3f %12.1f %12.1f %14.1f %14.1f %11s" % (
                    name, r, d[0], g[0], d[0] / g[0], d[1], g[1], d[2], g[2], f"{d[3]}/{g[3]}"), flush=True)
            ratios = sorted(d[0] / g[0] for d, g in rows)
            print("median %s dbgauge ÷ go-tpc tpmC: %.3f  (%d rounds, %.3f–%.3f); tpmC dbgauge %.1f, go-tpc %.1f; "
                  "client CPU µs/tx dbgauge %.1f (%.1f–%.1f), go-tpc %.1f (%.1f–%.1f)" % (
                      name, med(ratios), len(ratios), ratios[0], ratios[-1], med([d[0] for d, _ in rows]), med([g[0] for _, g in rows]),
                      med([d[2] for d, _ in rows]), min(d[2] for d, _ in rows), max(d[2] for d, _ in rows),
                      med([g[2] for _, g in rows]), min(g[2] for _, g in rows), max(g[2] for _, g in rows)), flush=True)
            if not CROSS:
                continue
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
            run([GOTPC, "tpcc", "prepare", "--warehouses", "1", "-T", "2", "--no-check"] + eng.gotpc("tpcc1"), "go-tpc tpcc prepare")
            gotpc_run(eng, "tpcc1", 1, CLIENTS, 10)
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
        except Failed as e:
            problems.append(f"{name}: {e}")
            print(f"{name}: FAILED: {e}", flush=True)
        finally:
            if eng:
                eng.stop()
    print(f"{WAREHOUSES} warehouses, {CLIENTS} clients, {DURATION} s per test, no keying or thinking times, TCP loopback, "
          f"server and client share the CPUs, 1 GB of buffers in both engines; go-tpc v1.0.12 ({GOTPC}), "
          f"{', '.join(versions)}; client CPU = user + system of each tool's process", flush=True)
finally:
    shutil.rmtree(work, ignore_errors=True)
if problems:
    sys.exit("bench: " + "; ".join(p.splitlines()[0] for p in problems))
PY
