#!/usr/bin/env bash
# dbgauge disk against fio and pg_test_fsync: the same folder, 8 KiB blocks, one
# block rewritten at a fixed offset, for fdatasync and for O_DSYNC. pg_test_fsync
# opens its O_DSYNC file with O_DIRECT, so the O_DSYNC rows use O_DIRECT in all
# three; the fdatasync rows are buffered in all three, and fio keeps its page in
# the cache (--invalidate=0) as a log writer and pg_test_fsync do. Tools alternate
# within each round, each taking every place in turn, so that a machine's drift
# hits all of them; the medians of the ratios are the figures to quote.
# pg_test_fsync runs its whole suite (PG_SECS, default SECS, per test) once a round.
# DBGAUGE=PATH measures another build of dbgauge (default: this checkout, built afresh).
#   DIR=/var/lib/db SECS=1 ROUNDS=10 bench/vs-fio.sh
# SMOKE=1: 1 round (every test of it 1 s long already). Without
# pg_test_fsync its columns say nan, except under SMOKE=1, which fails.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob DIR "$PWD"
knob SECS 1
knob PG_SECS "$SECS"
knob ROUNDS 10 1
knob PG_TEST_FSYNC "$(ls "$(pg_bin)/pg_test_fsync" 2>/dev/null)"
need fio fio
[ -n "$PG_TEST_FSYNC" ] || [ "$SMOKE" != 1 ] || fail "pg_test_fsync is missing: apt-get install postgresql (or PG_TEST_FSYNC=PATH)"
need_dbgauge
work=$(mktemp -d "$DIR/.dbgauge-vs-fio.XXXXXX")
trap 'rm -rf "$work"' EXIT

dbgauge() { # method [--direct] → ops/s
	rm -rf "$work/r"
	"$DBGAUGE" disk --path "$work" --block 8k --pattern rewrite --method "$1" ${2:-} --duration "${SECS}s" --results "$work/r" >"$work/log" 2>&1 ||
		fail "dbgauge disk --method $1 ${2:-} exited $?: $(tail -5 "$work/log")"
	num "dbgauge disk's flushes/s ($1 ${2:-})" "$(python3 -c "import lib; print(lib.result('$work/r')['disk']['cells'][0]['rate'])")"
}

fio_rate() { # fio options… → write iops
	fio --name=vs --filename="$work/fio.dat" --size=8k --bs=8k --rw=write --ioengine=psync --invalidate=0 \
		--time_based --runtime="$SECS" --output-format=json "$@" >"$work/fio.json" 2>"$work/log" ||
		fail "fio $* exited $?: $(tail -5 "$work/log")"
	num "fio's write iops ($*)" "$(python3 -c "import json,sys; print(json.load(open('$work/fio.json'))['jobs'][0]['write']['iops'])")"
}

pg_rates() { # → "fdatasync open_datasync" ops/s for one 8 kB write
	[ -n "$PG_TEST_FSYNC" ] || { echo "nan nan"; return; }
	"$PG_TEST_FSYNC" -s "$PG_SECS" -f "$work/pg.dat" >"$work/pg.out" 2>&1 || fail "pg_test_fsync exited $?: $(tail -5 "$work/pg.out")"
	local f o
	read -r f o < <(awk '
		/using one 8kB write/ {one=1} /using two 8kB writes/ {one=0}
		one && $1=="fdatasync" {f=$2} one && $1=="open_datasync" {o=$2}
		END {print (f==""?"-":f), (o==""?"-":o)}' "$work/pg.out")
	num "pg_test_fsync's fdatasync ops/sec" "$f" >/dev/null
	num "pg_test_fsync's open_datasync ops/sec" "$o" >/dev/null
	echo "$f $o"
}

rows="$work/rows"
: >"$rows"
printf '%-22s %5s %10s %10s %10s %9s %9s\n' method round dbgauge/s fio/s pg/s "÷fio" "÷pg"
for ((r = 1; r <= ROUNDS; r++)); do
	# The five measurements rotate: each takes every place in the round in turn.
	for ((k = 0; k < 5; k++)); do
		case $(((k + r) % 5)) in
		0) df=$(dbgauge fdatasync) ;;
		1) ff=$(fio_rate --fdatasync=1) ;;
		2) do=$(dbgauge odsync --direct) ;;
		3) fo=$(fio_rate --sync=dsync --direct=1) ;;
		4) pg=$(pg_rates); read -r pf po <<<"$pg" ;;
		esac
	done
	(python3 - "$r" "$df" "$ff" "$pf" "$do" "$fo" "$po" <<'PY'
import sys, math
r, df, ff, pf, do, fo, po = sys.argv[1], *map(float, sys.argv[2:])
def ratio(a, b): return a / b if b and not math.isnan(b) else float("nan")
for name, d, f, p in (("fdatasync", df, ff, pf), ("O_DSYNC (O_DIRECT)", do, fo, po)):
    print("%-22s %5s %10.0f %10.0f %10.0f %9.3f %9.3f" % (name, r, d, f, p, ratio(d, f), ratio(d, p)))
PY
	) | tee -a "$rows"
done
python3 - "$rows" <<'PY'
import sys, statistics, math
rows = [l.rsplit(None, 6) for l in open(sys.argv[1])]
for name in ("fdatasync", "O_DSYNC (O_DIRECT)"):
    sel = [r for r in rows if r[0].strip() == name]
    for col, tool in ((5, "fio"), (6, "pg_test_fsync")):
        vals = [float(r[col]) for r in sel if not math.isnan(float(r[col]))]
        if vals:
            print("median dbgauge ÷ %-13s %-20s %.3f  (%d rounds, %.3f–%.3f)" % (tool, name, statistics.median(vals), len(vals), min(vals), max(vals)))
    rates = ["%s %.0f" % (tool, statistics.median(v)) for tool, col in (("dbgauge", 2), ("fio", 3), ("pg_test_fsync", 4))
             if (v := [float(r[col]) for r in sel if not math.isnan(float(r[col]))])]
    print("median flushes/s %-24s %s" % (name, ", ".join(rates)))
PY
echo "$SECS s per test ($PG_SECS s for pg_test_fsync), 8 KiB, in $DIR ($(fio --version), $("$PG_TEST_FSYNC" --version 2>/dev/null || echo 'no pg_test_fsync'))."
