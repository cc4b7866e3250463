#!/usr/bin/env bash
# Many clients: kv reads (--mix read=100, seed 002's test) on embedded SQLite
# and on a managed PostgreSQL at 64, 250, 400 and 1,000 clients. Prints each
# count's records/s, its ratio to the 64-client figure, p99, and dbgauge's own
# peak resident memory and CPU per record (result.json's harness block).
#   RECORDS=100000 DURATION=20 WARMUP=5 CLIENTS=64,250,400,1000 DBS="sqlite postgres:managed" bench/clients.sh
# Each count is a cell of one matrix: a fresh engine, the dataset loaded anew,
# the OS page cache dropped between cells when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-100000}
DURATION=${DURATION:-20}
WARMUP=${WARMUP:-5}
CLIENTS=${CLIENTS:-64,250,400,1000}
DBS=${DBS:-sqlite postgres:managed}
DBGAUGE=${DBGAUGE:-./dbgauge}
[ -n "${DBGAUGE_BUILT:-}" ] || [ "$DBGAUGE" != ./dbgauge ] || go build -o dbgauge ./cmd/dbgauge
work=$(mktemp -d "${TMPDIR:-/tmp}/dbgauge-clients.XXXXXX")
trap 'rm -rf "$work"' EXIT
for db in $DBS; do
	out="$work/${db%%:*}"
	"$DBGAUGE" run kv --db "$db" --records "$RECORDS" --mix read=100 --clients "$CLIENTS" \
		--duration "${DURATION}s" --warmup "${WARMUP}s" --ceiling off --results "$out" >"$work/log" 2>&1 ||
		{ tail -20 "$work/log"; exit 1; }
	python3 - "$out" "$db" <<'PY'
import glob, json, sys
out, db = sys.argv[1], sys.argv[2]
rows = []
for p in glob.glob(out + "/**/result.json", recursive=True):
    r = json.load(open(p))
    if r.get("status") != "completed" or not r.get("harness"):
        continue
    h = r["harness"]
    rows.append((r["config"]["clients"], r["summary"]["rate"], r["summary"]["p99_us"], h["rss_peak_bytes"], h["cpu_per_unit_us"], h["cores"]))
rows.sort()
if not rows:
    sys.exit(f"bench: no completed run for {db} in {out}")
base = rows[0][1]
print(f"{db}: kv read=100, {rows[0][0]} clients = 1.00")
print("%8s %12s %10s %10s %12s %14s %8s" % ("clients", "records/s", "÷ first", "p99 ms", "dbgauge RSS", "CPU µs/record", "cores"))
for c, rate, p99, rss, cpu, cores in rows:
    print("%8d %12.0f %10.3f %10.1f %9.1f MiB %14.1f %8.2f" % (c, rate, rate / base, p99 / 1000, rss / 2**20, cpu, cores))
PY
done
