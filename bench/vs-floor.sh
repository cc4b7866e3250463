#!/usr/bin/env bash
# dbgauge against the floor of its language and the C clients, in one run:
# for each engine and placement, three tools on the same table, the same
# statement and the same server, alternating, ROUNDS times:
#   c        the C client: pgbench -S -M prepared (PostgreSQL), sysbench
#            oltp_point_select (MariaDB), bench/floor/c/sqlite_select.c
#            (SQLite, compiled against go-sqlite3's own amalgamation);
#   floor    bench/floor: the same Go driver as dbgauge, N goroutines, the
#            same statement, no harness (pgconn prepared; go-sql-driver/mysql
#            and go-sqlite3 through database/sql/driver inside Conn.Raw);
#   dbgauge  run tpcb --select-only (PostgreSQL, SQLite) and run script -f
#            with sysbench's statement (MariaDB).
# Printed per test: transactions/s, and per transaction the tool's CPU (user
# and system of its process, from rusage), its context switches (rusage) and
# the server's CPU (its process tree, from /proc); then the medians, with
# dbgauge ÷ floor, dbgauge ÷ C and floor ÷ C. After the rounds, each tool runs
# once more for COUNT seconds under `perf stat -e raw_syscalls:sys_enter`
# for its system calls per transaction (a pass of its own: counting them
# slows every call a little), and the Go tools' heap allocations per
# transaction (the floor's own report, dbgauge's harness block).
#
# Placements (PLACES="shared apart"): shared, the server and the tool on
# both CPUs; apart, the server's every thread on CPU 0 and the tool on CPU 1.
# SQLite runs inside the tool: apart gives it CPU 1 alone.
#
#   ENGINES="postgres mariadb sqlite" CLIENTS=8 DURATION=20 ROUNDS=3 SCALE=10 N=100000 COUNT=5 bench/vs-floor.sh
# VARIANTS="pgx sql interpolate gogc400 procs1" adds the floor with one thing
# changed, as more tools in the rotation, where it applies: pgx (PostgreSQL:
# pgx.Conn's QueryRow and its statement cache, what most Go programs write),
# sql (MariaDB, SQLite: database/sql's Stmt and Row), interpolate (MariaDB:
# interpolateParams=true, the text protocol), gogcN (GOGC=N), procsN
# (GOMAXPROCS=N): what a driver's public API and Go's settings do to the floor.
# SMOKE=1: 2 clients, 1 s per test and per perf pass, 1 round, scale 1 and
# 1,000 rows, every engine, apart only (shared is the same path, unplaced).
# DBGAUGE=PATH measures another build of dbgauge (default: this checkout, built afresh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob ENGINES "postgres mariadb sqlite"
knob PLACES "shared apart" apart
knob CLIENTS 8 2
knob DURATION 20 1
knob ROUNDS 3 1
knob SCALE 10 1
knob N 100000 1000
knob COUNT 5 1
knob VARIANTS ""
need_dbgauge
need_floor
exec python3 - "$@" <<'PY'
import json, os, re, resource, shutil, subprocess
import lib
from lib import Failed, number

ENGINES = lib.words("ENGINES")
PLACES = lib.words("PLACES")
CLIENTS, DURATION, ROUNDS, SCALE, N, COUNT = lib.ints("CLIENTS DURATION ROUNDS SCALE N COUNT")
DBGAUGE = lib.setting("DBGAUGE")
FLOOR = "bench/.bin/floor"
if any(e not in ("postgres", "mariadb", "sqlite") for e in ENGINES) or any(p not in ("shared", "apart") for p in PLACES):
    raise SystemExit("bench: ENGINES takes postgres, mariadb and sqlite; PLACES shared and apart")
if "apart" in PLACES and os.cpu_count() < 2:
    raise SystemExit("bench: PLACES=apart needs two CPUs")
PERF = shutil.which("perf") and subprocess.run(["perf", "stat", "-e", "raw_syscalls:sys_enter", "-x,", "true"],
                                                capture_output=True).returncode == 0
if lib.SMOKE and COUNT > 0 and not PERF:
    raise SystemExit("bench: perf stat -e raw_syscalls:sys_enter does not work here (apt-get install linux-perf; root): "
                     "a smoke run reads every figure, or give COUNT=0")

work = lib.workdir("dbgauge-vs-floor-")
servers = []  # each stopped at the end
place = "shared"


def tool_cpus():
    if place == "apart":
        os.sched_setaffinity(0, {1})


def tree(pid):
    """pid and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                todo += [int(c) for c in open(f"/proc/{p}/task/{t}/children").read().split()]
        except OSError:
            pass
    return out


def place_server(pid):
    """Every thread of the server's tree on CPU 0 (apart) or on all (shared)."""
    cpus = {0} if place == "apart" else set(range(os.cpu_count()))
    for p in tree(pid):
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                os.sched_setaffinity(int(t), cpus)
        except OSError:
            pass


def server_cpu(pid):
    """CPU seconds of the server's tree, the children it reaped included."""
    total = 0
    for i, p in enumerate(tree(pid)):
        try:
            f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(f[11]) + int(f[12]) + (int(f[13]) + int(f[14]) if i == 0 else 0)
    return total / lib.TICK


def usage():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime, r.ru_stime, r.ru_nvcsw + r.ru_nivcsw


def measure(args, parse, pid=None, env=None):
    """Runs args on the tool's CPUs; returns (tps, transactions, allocs/tx or None) from parse(stdout), and the deltas."""
    u0, s0 = usage(), (server_cpu(pid) if pid else 0)
    out = lib.run(args, os.path.basename(args[0]), preexec_fn=tool_cpus, env=env)
    u1, s1 = usage(), (server_cpu(pid) if pid else 0)
    tps, n, allocs, loop = parse(out.stdout)
    return {"tps": tps, "user": (u1[0] - u0[0]) / n * 1e6, "sys": (u1[1] - u0[1]) / n * 1e6,
            "csw": (u1[2] - u0[2]) / n, "server": (s1 - s0) / n * 1e6 if pid else None, "allocs": allocs, "loop": loop}


def syscalls(args, parse, env=None):
    """System calls per transaction under perf stat (its own pass)."""
    if not PERF:
        return None
    f = os.path.join(work, "perf.csv")
    out = lib.run(["perf", "stat", "-e", "raw_syscalls:sys_enter", "-x,", "-o", f, "--"] + args, "perf stat " + os.path.basename(args[0]),
                  preexec_fn=tool_cpus, env=env)
    _, n, _, _ = parse(out.stdout)
    for line in open(f):
        if "raw_syscalls:sys_enter" in line:
            return number(line.split(",")[0], "perf stat's raw_syscalls:sys_enter") / n
    raise Failed(f"perf stat counted no raw_syscalls:sys_enter:\n{open(f).read()}")


def floor_parse(out):
    try:
        r = json.loads(out)
    except ValueError:
        raise Failed(f"the floor printed no JSON line:\n{lib.tail(out)}") from None
    return (number(r.get("tps"), "the floor's tps"), number(r.get("transactions"), "the floor's transactions"),
            number(r.get("allocs_per_tx"), "the floor's allocs_per_tx", zero=True), number(r.get("cpu_us_per_tx"), "the floor's cpu_us_per_tx"))


def dbgauge_cmd(res, *run):
    shutil.rmtree(res, ignore_errors=True)
    return [DBGAUGE, "run"] + list(run) + ["--clients", str(CLIENTS), "--warmup", "0", "--ceiling", "off", "--results", res]


def dbgauge_parse(res):
    def parse(_):
        r = lib.result(res)
        h = r.get("harness") or {}
        return (number(r["summary"].get("rate"), "dbgauge's rate"), number(r["summary"].get("ok"), "dbgauge's transactions"),
                number(h.get("allocs_per_unit"), "dbgauge's harness.allocs_per_unit", zero=True),
                number(h.get("cpu_per_unit_us"), "dbgauge's harness.cpu_per_unit_us"))
    return parse


class Postgres:
    name, anchor = "postgres", "pgbench"

    def __init__(self):
        self.srv = lib.Postgres(work, CLIENTS + 20, ["shared_buffers=512MB"])
        servers.append(self.srv)
        self.pid = self.srv.start().srv.pid
        self.env = self.srv.env()
        lib.run([self.srv.tool("pgbench"), "-i", "-q", "-s", str(SCALE)], "pgbench -i", env=self.env)
        self.dsn = self.srv.dsn("postgres")
        self.res = os.path.join(work, "pg-results")

    def tests(self):
        def c(d):
            def parse(out):
                n = lib.grab(r"number of transactions actually processed: (\d+)", out, "pgbench's transactions")
                return lib.grab(r"tps = ([\d.]+) \(without initial connection time\)", out, "pgbench's tps"), n, None, None
            return [self.srv.tool("pgbench"), "-M", "prepared", "-S", "-n", "-c", str(CLIENTS),
                    "-j", str(min(CLIENTS, os.cpu_count())), "-T", str(d)], parse, self.env
        def floor(d):
            return [FLOOR, "pg", "-dsn", self.dsn, "-scale", str(SCALE), "-clients", str(CLIENTS), "-duration", f"{d}s"], floor_parse, None
        def dbgauge(d):
            return dbgauge_cmd(self.res, "tpcb", "--select-only", "--db", self.dsn, "--scale", str(SCALE), "--duration", f"{d}s"), dbgauge_parse(self.res), None
        return {"c": c, "floor": floor, "dbgauge": dbgauge}


class MariaDB:
    name, anchor = "mariadb", "sysbench"

    def __init__(self):
        if not shutil.which("sysbench"):
            raise SystemExit("bench: sysbench is missing: apt-get install sysbench")
        self.srv = lib.MariaDB(work, CLIENTS + 50, ["--innodb-buffer-pool-size=512M"])
        servers.append(self.srv)
        self.pid = self.srv.start().srv.pid
        self.srv.create("bench")
        self.sb = self.srv.sysbench("bench", N)
        lib.run(self.sb + ["prepare"], "sysbench prepare")
        self.dsn = self.srv.dsn("bench")
        self.driver_dsn = f"bench@tcp(127.0.0.1:{self.srv.port})/bench"
        self.script = os.path.join(self.srv.dir, "point_select.sql")
        with open(self.script, "w") as f:
            f.write(f"\\set id random(1, {N})\nSELECT c FROM sbtest1 WHERE id = :id;\n")
        self.res = os.path.join(work, "mariadb-results")

    def tests(self):
        def c(d):
            def parse(out):
                m = r"transactions:\s+(\d+)\s+\(([\d.]+) per sec"
                return lib.grab(m, out, "sysbench's transactions per second", group=2), lib.grab(m, out, "sysbench's transactions"), None, None
            return self.sb + [f"--threads={CLIENTS}", f"--time={d}", "--rand-type=uniform", "--report-interval=0", "run"], parse, None
        def floor(d):
            return [FLOOR, "mysql", "-dsn", self.driver_dsn, "-rows", str(N), "-clients", str(CLIENTS), "-duration", f"{d}s"], floor_parse, None
        def dbgauge(d):
            return dbgauge_cmd(self.res, "script", "-f", self.script, "--db", self.dsn, "--duration", f"{d}s"), dbgauge_parse(self.res), None
        return {"c": c, "floor": floor, "dbgauge": dbgauge}


class SQLite:
    name, anchor = "sqlite", "C (sqlite3 API)"

    def __init__(self):
        self.dir = os.path.join(work, "sqlite"); os.mkdir(self.dir)
        self.file = os.path.join(self.dir, "pgbench.db")
        lib.run([DBGAUGE, "load", "tpcb", "--scale", str(SCALE), "--db", "sqlite:" + self.file], "dbgauge load tpcb")
        self.res = os.path.join(work, "sqlite-results")
        self.pid = None  # SQLite runs inside each tool

    def tests(self):
        def c(d):
            def parse(out):
                try:
                    r = json.loads(out)
                except ValueError:
                    raise Failed(f"sqlite_select printed no JSON line:\n{lib.tail(out)}") from None
                return number(r.get("tps"), "sqlite_select's tps"), number(r.get("transactions"), "sqlite_select's transactions"), None, None
            return ["bench/.bin/sqlite_select", self.file, str(SCALE), str(CLIENTS), str(d)], parse, None
        def floor(d):
            return [FLOOR, "sqlite", "-path", self.file, "-scale", str(SCALE), "-clients", str(CLIENTS), "-duration", f"{d}s"], floor_parse, None
        def dbgauge(d):
            return dbgauge_cmd(self.res, "tpcb", "--select-only", "--db", "sqlite:" + self.file, "--scale", str(SCALE), "--duration", f"{d}s"), dbgauge_parse(self.res), None
        return {"c": c, "floor": floor, "dbgauge": dbgauge}


TOOLS = ["c", "floor", "dbgauge"]
VARIANTS = lib.words("VARIANTS")


def variant(eng, name, floor):
    """floor:NAME, the floor with one thing changed, or None where NAME does not apply to eng."""
    def f(d):
        args, parse, env = floor(d)
        args, env = list(args), dict(env or os.environ)
        if name == "pgx" and eng.name == "postgres":
            args += ["-api", "pgx"]
        elif name == "sql" and eng.name in ("mariadb", "sqlite"):
            args += ["-api", "sql"]
        elif name == "interpolate" and eng.name == "mariadb":
            args[args.index("-dsn") + 1] += "?interpolateParams=true"
        elif name.startswith("gogc"):
            env["GOGC"] = name[4:]
        elif name.startswith("procs"):
            env["GOMAXPROCS"] = name[5:]
        else:
            return None
        return args, parse, env
    return f if f(1) else None

med = lib.med
fmt = lambda v, f="%.2f": "n/a" if v is None else f % v


def body():
    global place
    engines = []
    for e in ENGINES:
        engines.append({"postgres": Postgres, "mariadb": MariaDB, "sqlite": SQLite}[e]())
    print("%-9s %-7s %5s %-13s %11s %9s %9s %9s %9s %8s %10s" % ("engine", "place", "round", "tool", "tx/s", "µs user", "µs sys", "µs loop", "ctxsw/tx", "allocs", "server µs"), flush=True)
    got = {}
    tools = {}
    for eng in engines:
        tests = eng.tests()
        for v in VARIANTS:
            if variant(eng, v, tests["floor"]):
                tests["floor:" + v] = variant(eng, v, tests["floor"])
        TOOLS_E = tools[eng.name] = TOOLS + [t for t in tests if t.startswith("floor:")]
        for place in PLACES:
            if eng.pid:
                place_server(eng.pid)
            for r in range(ROUNDS):
                k = r % len(TOOLS_E)
                for tool in TOOLS_E[k:] + TOOLS_E[:k]:
                    args, parse, env = tests[tool](DURATION)
                    m = measure(args, parse, eng.pid, env)
                    got.setdefault((eng.name, place, tool), []).append(m)
                    print("%-9s %-7s %5d %-13s %11.0f %9.2f %9.2f %9s %9.3f %8s %10s" % (eng.name, place, r + 1, tool, m["tps"], m["user"], m["sys"], fmt(m["loop"]),
                                                                                     m["csw"], fmt(m["allocs"], "%.1f"), fmt(m["server"])), flush=True)
            if COUNT > 0:
                for tool in TOOLS_E:
                    args, parse, env = tests[tool](COUNT)
                    got[(eng.name, place, tool, "syscalls")] = syscalls(args, parse, env)
    print()
    print("medians of %d rounds, %d clients, %d s each; syscalls/tx from a %d s pass under perf stat" % (ROUNDS, CLIENTS, DURATION, COUNT))
    print("%-9s %-7s %-13s %11s %8s %8s %9s %9s %9s %9s %9s %9s %8s %10s" % ("engine", "place", "tool", "tx/s", "÷ C", "÷ floor", "CPU µs/tx", "µs user", "µs sys",
                                                                           "µs loop", "syscalls", "ctxsw/tx", "allocs", "server µs"))
    for eng in engines:
        for place in PLACES:
            m = {t: got[(eng.name, place, t)] for t in tools[eng.name]}
            tps = {t: med([x["tps"] for x in m[t]]) for t in tools[eng.name]}
            for t in tools[eng.name]:
                # Ratios per round (the tools ran in the same round), then their median.
                rc = med([a["tps"] / b["tps"] for a, b in zip(m[t], m["c"])])
                rf = med([a["tps"] / b["tps"] for a, b in zip(m[t], m["floor"])])
                opt = lambda k, f="%.2f": fmt(med([x[k] for x in m[t]]) if all(x[k] is not None for x in m[t]) else None, f)
                print("%-9s %-7s %-13s %11.0f %8.3f %8.3f %9.2f %9.2f %9.2f %9s %9s %9.3f %8s %10s" % (
                    eng.name, place, t, tps[t], rc, rf, med([x["user"] + x["sys"] for x in m[t]]), med([x["user"] for x in m[t]]),
                    med([x["sys"] for x in m[t]]), opt("loop"), fmt(got.get((eng.name, place, t, "syscalls"))), med([x["csw"] for x in m[t]]),
                    opt("allocs", "%.1f"), opt("server")), flush=True)
            cpu = lambda t: med([x["user"] + x["sys"] for x in m[t]])
            loop = lambda t: med([x["loop"] for x in m[t]])
            print(f"  {eng.name} {place}: dbgauge ÷ floor {med([a['tps'] / b['tps'] for a, b in zip(m['dbgauge'], m['floor'])]):.3f} in tx/s, "
                  f"{loop('dbgauge') / loop('floor'):.3f}× its CPU per tx in the measured loop ({cpu('dbgauge') / cpu('floor'):.3f}× the whole process's); "
                  f"floor ÷ {eng.anchor} {med([a['tps'] / b['tps'] for a, b in zip(m['floor'], m['c'])]):.3f}, dbgauge ÷ {eng.anchor} "
                  f"{med([a['tps'] / b['tps'] for a, b in zip(m['dbgauge'], m['c'])]):.3f}", flush=True)
    print(f"{os.cpu_count()} CPUs; shared: server and tool on every CPU; apart: server on CPU 0, tool on CPU 1 (SQLite: the tool on CPU 1); "
          f"CPU = user + system of the tool's process (rusage), start and end included; µs loop = the Go tools' own count over the "
          f"measured loop alone (the floor's report, dbgauge's harness block: its measure phase); server µs = the server's process tree's")


lib.main(body, cleanup=[lambda: [s.stop() for s in servers], lambda: shutil.rmtree(work, ignore_errors=True)])
PY
