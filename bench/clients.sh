#!/usr/bin/env bash
# Many clients: kv reads (--mix read=100, seed 002's test) at 64, 250, 400 and
# 1,000 clients on embedded SQLite (with its default page cache of 2 MiB per
# connection, and with 256 KiB) and on a managed PostgreSQL. Prints each
# count's records/s, its ratio to the first count's, p99, dbgauge's peak
# resident memory and its own part of it (anonymous, less the engine's
# allocations when the engine runs inside dbgauge), and the CPU per record of
# dbgauge and of the server (result.json's harness and server_cpu blocks).
#   RECORDS=100000 DURATION=20 WARMUP=20 CLIENTS=64,250,400,1000 RUNS="sqlite sqlite-256k postgres" bench/clients.sh
# Each count is a cell of one matrix: a fresh engine, the dataset loaded anew,
# the OS page cache dropped between cells when run as root.
# HUGEPAGES=N (as root) reserves N huge pages (vm.nr_hugepages) for the run
# and puts the old value back after it: PostgreSQL's shared memory then takes
# them (huge_pages=try), and 1,000 server processes stop faulting in
# shared_buffers page by page (docs/backends/postgres.md, "Many clients").
# SMOKE=1: 1,000 records, 2 and 4 clients, 1 s, no warm-up, every run.
# DBGAUGE=PATH measures another build of dbgauge (default: this checkout, built afresh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob RECORDS 100000 1000
knob DURATION 20 1
# Twenty seconds of warm-up: at 1,000 clients the first ten are the engines
# filling a thousand caches of their own (SQLite's page cache per connection,
# a PostgreSQL backend's mappings of shared_buffers), not the steady state.
knob WARMUP 20 0
knob CLIENTS 64,250,400,1000 2,4
knob RUNS "sqlite sqlite-256k postgres"
need_dbgauge
work=$(mktemp -d "${TMPDIR:-/tmp}/dbgauge-clients.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${HUGEPAGES:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "bench: HUGEPAGES needs root (it sets vm.nr_hugepages)" >&2; exit 2; }
	old_huge=$(cat /proc/sys/vm/nr_hugepages)
	trap 'rm -rf "$work"; echo "$old_huge" >/proc/sys/vm/nr_hugepages' EXIT
	echo "$HUGEPAGES" >/proc/sys/vm/nr_hugepages
	echo "vm.nr_hugepages=$(cat /proc/sys/vm/nr_hugepages) for this run (was $old_huge)"
fi
for run in $RUNS; do
	case $run in
	sqlite) flags=(--db sqlite) ;;
	sqlite-256k) flags=(--db sqlite --cache 256KB) ;;
	postgres) flags=(--db postgres:managed) ;;
	*) echo "bench: no run $run (sqlite, sqlite-256k, postgres)" >&2; exit 2 ;;
	esac
	out="$work/$run"
	"$DBGAUGE" run kv "${flags[@]}" --records "$RECORDS" --mix read=100 --clients "$CLIENTS" \
		--duration "${DURATION}s" --warmup "${WARMUP}s" --ceiling off --results "$out" >"$work/log" 2>&1 ||
		{ tail -20 "$work/log"; exit 1; }
	python3 - "$out" "$run ${flags[*]}" "$run" <<'PY'
import glob, json, os, sys
from lib import Failed, main, number
out, what, run = sys.argv[1:]
rows = []


def read():
    """Every count's cell, completed, with every figure the table prints."""
    want = sorted(int(c) for c in os.environ["CLIENTS"].split(","))
    for p in glob.glob(out + "/**/result.json", recursive=True):
        r = json.load(open(p))
        c = r["config"]["clients"]
        if r.get("status") != "completed" or not r.get("harness"):
            raise Failed(f"{what}, {c} clients: status {r.get('status')!r}{'' if r.get('harness') else ', no harness block'} ({p})")
        h, s = r["harness"], r.get("server_cpu") or {}
        fig = lambda v, name, zero=False: number(v, f"{what}, {c} clients: {name}", zero)
        own = fig(h.get("anon_peak_bytes"), "harness.anon_peak_bytes") - fig(h.get("engine_bytes", 0), "harness.engine_bytes", zero=True)
        # SQLite runs inside dbgauge: no server, no server CPU.
        srv = fig(s.get("cpu_per_unit_us"), "server_cpu.cpu_per_unit_us") if run == "postgres" else None
        rows.append((c, fig(r["summary"].get("rate"), "summary.rate"), fig(r["summary"].get("p99_us"), "summary.p99_us"),
                     fig(h.get("rss_peak_bytes"), "harness.rss_peak_bytes"), own, fig(h.get("cpu_per_unit_us"), "harness.cpu_per_unit_us"), srv))
    rows.sort()
    if [r[0] for r in rows] != want:
        raise Failed(f"{what}: results for {[r[0] for r in rows]} clients in {out}, want {want}")


main(read)
base = rows[0][1]
print(f"{what}: kv read=100, {rows[0][0]} clients = 1.00")
print("%8s %12s %8s %9s %12s %13s %15s %14s" % ("clients", "records/s", "÷ first", "p99 ms", "dbgauge RSS", "dbgauge own", "dbgauge µs/rec", "server µs/rec"))
for c, rate, p99, rss, own, cpu, srv in rows:
    print("%8d %12.0f %8.3f %9.1f %8.1f MiB %9.1f MiB %15.1f %14s" % (c, rate, rate / base, p99 / 1000, rss / 2**20, own / 2**20, cpu,
          "%.1f" % srv if srv else "—"))
PY
done
