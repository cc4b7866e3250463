#!/usr/bin/env bash
# dbgauge run objects against zodbshootout 0.8.0 (the seed 003 tool), phase by
# phase, on a FileStorage and on ZEO, with the same objects per pass, object
# size and concurrency, alternating (dbgauge first in odd rounds, zodbshootout
# first in even ones); the ratio of objects/s per phase, and what dbgauge's
# Python worker cost per request and per object.
#
# What each tool does per phase is in docs/workloads/objects.md
# ("zodbshootout 0.8.0, phase by phase"). In short, zodbshootout times one
# pass of n objects (--object-counts) in one transaction inside its own
# process (pyperf, perf_counter around the pass), clears caches outside the
# clock, and reports seconds per pass of the slowest of its c workers; its
# objects/s here is c × n ÷ that. dbgauge runs each phase for DURATION s,
# closed loop, every object a unit, timed in Go: a pass's reads are one
# request to the worker (the objects' CRC-32s, or their values on cold), its
# writes one commit of the pass's objects through the storage API; its
# objects/s is every object done ÷ the measure phase, clearing included.
#
#   - FileStorage: dbgauge --db zodb:PATH (one worker process, a thread per
#     client, one DB), zodbshootout `--threads shared` at c > 1 (one DB
#     shared by threads: zodbshootout disables FileStorage with processes at
#     c > 1, a FileStorage being one process's) and its one process at c = 1.
#   - ZEO: one runzeo (ZEO 6.2, from zodbshootout's environment) serving two
#     FileStorages: `1` to dbgauge (zeo://127.0.0.1:PORT, a worker process
#     per client) and `zs` to zodbshootout (a process per worker).
#   - Sizes: zodbshootout -s SIZE and dbgauge --object-bytes SIZE (the
#     record; both pickles are some 60 bytes longer); dbgauge's conferences
#     have 8 contributions, so that OBJECTS (a multiple of 10) is whole
#     conferences, and its pickle cache (--cache-objects 10000) holds a pass
#     as zodbshootout's (3 × n objects) does.
#   - warm is not the same work: zodbshootout 0.8.0's warm (write/read)
#     changes every object of the pass, commits, reads them back and commits,
#     in a new DB each pass; dbgauge's warm reads, a new client's caches each
#     pass (seed 003's warm). Its ratio is printed and marked, not judged.
#
# Printed per round: objects/s of each tool and dbgauge ÷ zodbshootout;
# dbgauge's worker CPU per request and per object (harness.worker of
# result.json: time.process_time of its workers over the measure phase) and
# its requests per pass. Then the median per storage, concurrency and phase,
# and whether it is within 10 %.
#
#   OBJECTS=1000 SIZE=512 CONCURRENCY="1 2" PHASES="add update cold warm hot steamin" \
#   STORAGES="file zeo" DURATION=5 ROUNDS=3 CONFERENCES=2000 \
#   PYPERF="-p 3 -n 3 -w 1" bench/vs-zodbshootout.sh
# SMOKE=1: 100 objects a pass, 200 conferences, concurrency 1, 1 s per phase,
# add and hot only (a write and a read, each phase the same path here), one
# round, zodbshootout one value of one loop. zodbshootout's environment is
# made in bench/.bin/zodbshootout when missing (bench/lib.sh,
# need_zodbshootout; its pins: bench/zodbshootout/requirements.txt);
# ZODBSHOOTOUT=PATH runs another Python that has it. dbgauge's own is made by
# `dbgauge engines install zodb` when missing. VERBOSE=1 shows each command
# and its seconds on stderr. DBGAUGE=PATH measures another build of dbgauge.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob OBJECTS 1000 100
knob SIZE 512
knob CONCURRENCY "1 2" 1
knob PHASES "add update cold warm hot steamin" "add hot"
knob STORAGES "file zeo"
knob DURATION 5 1
knob ROUNDS 3 1
knob CONFERENCES 2000 200
knob PYPERF "-p 3 -n 3 -w 1" "-p 1 -n 1 -w 0 -l 1"
need_dbgauge
need_zodbshootout
"$DBGAUGE" engines install zodb >/dev/null || fail "dbgauge engines install zodb failed"
exec python3 - "$@" <<'PY'
import json, os, shutil, socket, subprocess
import lib
from lib import Failed, number, run

OBJECTS, SIZE, DURATION, ROUNDS, CONFERENCES = lib.ints("OBJECTS SIZE DURATION ROUNDS CONFERENCES")
CONCURRENCY = [int(c) for c in lib.words("CONCURRENCY")]
PHASES = lib.words("PHASES")
STORAGES = lib.words("STORAGES")
PYPERF = lib.words("PYPERF")
DBGAUGE = lib.setting("DBGAUGE")
ZS = lib.setting("ZODBSHOOTOUT")
CONTRIBUTIONS = 8  # a conference and its room and 8 contributions: 10 objects
for p in PHASES:
    if p not in ("add", "update", "cold", "warm", "hot", "steamin"):
        raise SystemExit(f"bench: unknown phase {p!r}: PHASES takes add update cold warm hot steamin")
for s in STORAGES:
    if s not in ("file", "zeo"):
        raise SystemExit(f"bench: unknown storage {s!r}: STORAGES takes file and zeo")
if OBJECTS % (CONTRIBUTIONS + 2):
    raise SystemExit(f"bench: OBJECTS={OBJECTS}: give a multiple of {CONTRIBUTIONS + 2} (whole conferences)")
NOT_SAME = {"warm": "zodbshootout's warm writes, then reads: not the same work"}

work = lib.workdir("dbgauge-vs-zodbshootout-")


class ZEO(lib.Server):
    """One runzeo (zodbshootout's environment's ZEO) on a free loopback port,
    serving storage 1 (dbgauge's) and zs (zodbshootout's), each a FileStorage."""

    def __init__(self):
        self.dir = os.path.join(work, "zeo")
        os.mkdir(self.dir)
        self.port = lib.free_port()
        self.log = os.path.join(self.dir, "zeo.log")
        self.conf = os.path.join(self.dir, "zeo.conf")
        with open(self.conf, "w") as f:
            f.write(f"<zeo>\n  address 127.0.0.1:{self.port}\n</zeo>\n"
                    f"<filestorage 1>\n  path {self.dir}/dbgauge.fs\n</filestorage>\n"
                    f"<filestorage zs>\n  path {self.dir}/zodbshootout.fs\n</filestorage>\n")

    def start(self):
        runzeo = os.path.join(os.path.dirname(ZS), "runzeo")
        with open(self.log, "w") as log:
            self.srv = subprocess.Popen([runzeo, "-C", self.conf], stdout=log, stderr=subprocess.STDOUT)
        self.wait(self.ready, 300, "runzeo")

    def ready(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), 0.2).close()
            return True
        except OSError:
            return False


def zs_conf(storage, zeo):
    """zodbshootout's ZConfig file for storage: one database, named as its result file is."""
    path = os.path.join(work, f"zodbshootout-{storage}.conf")
    with open(path, "w") as f:
        if storage == "file":
            os.makedirs(os.path.join(work, "file"), exist_ok=True)
            f.write(f"<zodb file>\n  <filestorage>\n    path {work}/file/zodbshootout.fs\n  </filestorage>\n</zodb>\n")
        else:
            f.write(f"<zodb zeo>\n  <zeoclient>\n    server 127.0.0.1:{zeo.port}\n    storage zs\n  </zeoclient>\n</zodb>\n")
    return path


def zodbshootout(storage, conf, c, phase):
    """zodbshootout's objects/s for phase: c × n ÷ the mean of its values
    (pyperf's: seconds per pass of the slowest of its c workers)."""
    out = os.path.join(work, "zs.json")  # pyperf's -o refuses a file that is there
    if os.path.exists(out):
        os.remove(out)
    shutil.rmtree(os.path.join(work, "zs.d"), ignore_errors=True)
    threads = ["--threads", "shared"] if storage == "file" and c > 1 else []
    run([ZS, "-m", "zodbshootout", "--include-mapping", "false", "--fail-fast", "--object-counts", str(OBJECTS),
         "-s", str(SIZE), "-c", str(c)] + threads + PYPERF + ["-q", "-o", out, conf, phase], "zodbshootout", cwd=work)
    with open(os.path.join(work, "zs.d", f"{storage}_{OBJECTS}.json")) as f:
        suite = json.load(f)
    # pyperf keeps metadata common to every benchmark (one, here) in the suite's
    values = [v for b in suite["benchmarks"] if {**suite.get("metadata", {}), **b.get("metadata", {})}.get("name") == phase
              for r in b["runs"] for v in r.get("values", [])]
    if not values:
        raise Failed(f"zodbshootout wrote no values for {phase}")
    t = number(sum(values) / len(values), f"zodbshootout's seconds per pass of {phase}")
    return c * OBJECTS / t


def dbgauge(db, c, phase):
    """dbgauge's objects/s, its workers' CPU µs per request and per object, and requests per pass."""
    res = os.path.join(work, "results")
    shutil.rmtree(res, ignore_errors=True)
    run([DBGAUGE, "run", "objects", "--db", db, "--phase", phase, "--concurrency", str(c), "--objects", str(OBJECTS),
         "--contributions", str(CONTRIBUTIONS), "--conferences", str(CONFERENCES), "--object-bytes", str(SIZE),
         "--duration", f"{DURATION}s", "--warmup", "0s", "--progress", "0", "--ceiling", "off", "--results", res],
        "dbgauge run objects")
    r = lib.result(res)
    s = r["summary"]
    ok = number(s.get("ok"), "dbgauge's objects done")
    w = (r.get("harness") or {}).get("worker") or {}
    reqs = number(w.get("requests"), "dbgauge's worker requests")
    return (number(s.get("rate"), "dbgauge's objects/s"), number(w.get("cpu_per_request_us"), "the worker's CPU µs per request"),
            number(w.get("cpu_per_unit_us"), "the worker's CPU µs per object"), reqs / (ok / OBJECTS))


def body():
    print("%-5s %3s %-8s %5s %13s %13s %7s %14s %14s %9s" % (
        "store", "c", "phase", "round", "dbgauge obj/s", "zodbsh. obj/s", "÷", "worker µs/req", "worker µs/obj", "req/pass"), flush=True)
    zeo, rows = None, {}
    try:
        if "zeo" in STORAGES:
            zeo = ZEO()
            zeo.start()
        for storage in STORAGES:
            conf = zs_conf(storage, zeo)
            db = f"zodb:{work}/file/dbgauge.fs" if storage == "file" else f"zeo://127.0.0.1:{zeo.port}"
            for c in CONCURRENCY:
                for phase in PHASES:
                    for r in range(1, ROUNDS + 1):
                        if r % 2:
                            d = dbgauge(db, c, phase); z = zodbshootout(storage, conf, c, phase)
                        else:
                            z = zodbshootout(storage, conf, c, phase); d = dbgauge(db, c, phase)
                        rows.setdefault((storage, c, phase), []).append((d, z))
                        print("%-5s %3d %-8s %5d %13.0f %13.0f %7.3f %14.1f %14.2f %9.2f" % (
                            storage, c, phase, r, d[0], z, d[0] / z, d[1], d[2], d[3]), flush=True)
    finally:
        if zeo:
            zeo.stop()
    med = lib.med
    for (storage, c, phase), rs in rows.items():
        ratios = sorted(d[0] / z for d, z in rs)
        m = med(ratios)
        verdict = NOT_SAME.get(phase) or ("within 10 %" if abs(m - 1) <= 0.10 else "NOT within 10 %")
        print("median %s c=%d %-7s dbgauge ÷ zodbshootout %.3f (%d rounds, %.3f–%.3f); objects/s dbgauge %.0f, zodbshootout %.0f; "
              "worker %.1f µs/request, %.2f µs/object: %s" % (
                  storage, c, phase, m, len(ratios), ratios[0], ratios[-1], med([d[0] for d, _ in rs]), med([z for _, z in rs]),
                  med([d[1] for d, _ in rs]), med([d[2] for d, _ in rs]), verdict), flush=True)
    print(f"{OBJECTS} objects a pass of {SIZE} bytes, {DURATION} s per dbgauge phase, zodbshootout {' '.join(PYPERF)}; "
          f"ZODB 6.4, ZEO 6.2 in both; dbgauge {DBGAUGE}, zodbshootout 0.8.0 ({ZS})", flush=True)


lib.main(body, cleanup=[lambda: shutil.rmtree(work, ignore_errors=True)])
PY
