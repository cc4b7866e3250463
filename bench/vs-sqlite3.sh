#!/usr/bin/env bash
# insert: dbgauge against the sqlite3 shell (C), on the same folder, in the same run.
#
# Both commit N single-row INSERTs into mytab (f1 integer, f2 varchar(100)), WAL,
# one transaction per row (seed 004). The sqlite3 shell parses every statement,
# so dbgauge runs with --prepare each to compare like with like; the
# --prepare once figure shows what keeping statements buys.
# Rounds alternate anchor and dbgauge, so that drift on a noisy machine hits both.
# Prints, per durability, the rate of each and the ratio dbgauge / sqlite3.
#   N=10000 ROUNDS=3 bench/vs-sqlite3.sh
# SMOKE=1: 200 rows, 1 round. DBGAUGE=PATH measures another build of dbgauge
# (default: this checkout, built afresh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob N 10000 200
knob ROUNDS 3 1
need sqlite3 sqlite3
need_dbgauge
work=$(mktemp -d "${TMPDIR:-/tmp}/dbgauge-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
text=$(printf 'abcdefghijklmnopqrstuvwxyz%.0s' 1 2 3 4 | cut -c1-100)

anchor() { # durability → inserts/s
	local sync=$1 db="$work/anchor.db"
	rm -f "$db" "$db-wal" "$db-shm"
	{
		echo "PRAGMA journal_mode=WAL; PRAGMA synchronous=$sync;"
		echo "CREATE TABLE mytab (f1 integer, f2 varchar(100));"
		for ((i = 1; i <= N; i++)); do echo "BEGIN; INSERT INTO mytab (f1, f2) VALUES ($i, '$text'); COMMIT;"; done
	} >"$work/script.sql"
	local t0 t1
	t0=$(date +%s.%N)
	sqlite3 "$db" <"$work/script.sql" >/dev/null
	t1=$(date +%s.%N)
	num "sqlite3's inserts/s" "$(python3 -c "print($N / ($t1 - $t0))")"
}

dbgauge() { # durability prepare → inserts/s
	local out="$work/results"
	rm -rf "$out"
	"$DBGAUGE" run insert --units "$N" --durability "$1" --prepare "$2" --results "$out" >"$work/log" 2>&1 ||
		fail "dbgauge run insert --durability $1 --prepare $2 exited $?: $(tail -5 "$work/log")"
	num "dbgauge's inserts/s (--durability $1 --prepare $2)" "$(python3 -c "import lib; print(lib.result('$out')['summary']['rate'])")"
}

printf '%-10s %5s %14s %14s %14s %8s %8s\n' durability round "sqlite3/s" "each/s" "once/s" "each÷" "once÷"
for dur in off sync; do
	sync=OFF; [ "$dur" = sync ] && sync=FULL
	for ((r = 1; r <= ROUNDS; r++)); do
		a=$(anchor "$sync")
		e=$(dbgauge "$dur" each)
		o=$(dbgauge "$dur" once)
		python3 -c "print('%-10s %5d %14.0f %14.0f %14.0f %8.2f %8.2f' % ('$dur', $r, $a, $e, $o, $e/$a, $o/$a))"
	done
done
echo "N=$N rows per run; ratios above 1 mean dbgauge (Go, mattn/go-sqlite3 $(go list -m -f '{{.Version}}' github.com/mattn/go-sqlite3)) beat the sqlite3 shell ($(sqlite3 --version | cut -d' ' -f1))."
