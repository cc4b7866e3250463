#!/usr/bin/env bash
# telemetry: what dbgauge's per-second telemetry (the data folder's device, the
# CPUs, the engine's counters once a second and its waits ten times a second)
# costs the run: tpcb --select-only on managed PostgreSQL, --telemetry on and
# off alternating, one matrix: the same placement, the same data size, the
# cells interleaved round by round (on, off, on, off…).
# Its own anchor is the run without it. Prints each round's rates, the ratio
# on ÷ off, and the mean and spread over the rounds (goal ≥ 0.98).
#   CLIENTS=8 DURATION=20 ROUNDS=5 SCALE=10 bench/telemetry.sh
# SMOKE=1: 2 s each, 1 round, scale 1. DBGAUGE=PATH measures another build.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob CLIENTS 8 2
knob DURATION 20 2
knob ROUNDS 5 1
knob SCALE 10 1
need python3 python3
need_dbgauge
work=$(mktemp -d "${TMPDIR:-/tmp}/dbgauge-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$DBGAUGE" run tpcb --select-only --db postgres:managed --scale "$SCALE" -c "$CLIENTS" --duration "${DURATION}s" \
	--telemetry on,off --repeat "$ROUNDS" --results "$work/m" >"$work/log" 2>&1 ||
	fail "dbgauge run tpcb --telemetry on,off exited $?: $(tail -5 "$work/log")"
python3 - "$work/m" <<'PY'
import glob, json, os, statistics, sys
sys.path.insert(0, "bench")
import lib
cells = {}
for f in glob.glob(os.path.join(sys.argv[1], "**", "result.json"), recursive=True):
    r = json.load(open(f))
    on = r["config"]["knobs"].get("telemetry", "on")
    cells.setdefault(r["id"].rsplit("-r", 1)[-1], {})[on] = lib.number(r["summary"]["rate"], "a cell's rate")
rounds = sorted(cells, key=int)
if not rounds or any(set(cells[k]) != {"on", "off"} for k in rounds):
    raise SystemExit(f"bench: want each round's on and off cells, found {cells}")
print("%5s %14s %14s %8s" % ("round", "on/s", "off/s", "on÷off"))
ratios = []
for k in rounds:
    on, off = cells[k]["on"], cells[k]["off"]
    ratios.append(on / off)
    print("%5s %14.0f %14.0f %8.3f" % (k, on, off, on / off))
spread = f" (min {min(ratios):.3f}, max {max(ratios):.3f})" if len(ratios) > 1 else ""
print(f"telemetry on ÷ off: mean {statistics.mean(ratios):.3f} over {len(ratios)} round(s){spread}; goal ≥ 0.98")
PY
