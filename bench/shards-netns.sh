#!/usr/bin/env bash
# A run over many machines, on one: N shards (default 4) as separate dbgauge
# processes, each in a network namespace of its own with an address of its
# own, against one PostgreSQL server in another namespace, every namespace
# joined to the server's through a veth pair and a bridge. Each round runs,
# in an order that alternates, the same run as one process (SINGLE: N×C
# clients, from a namespace of its own, through the same bridge) and as N
# shards started together (--start-at), then merges the shards and checks:
# the merged unit count is the sum of the shards', and its histogram the
# merge of theirs, every count (bench/shardcheck); it prints the rates.
#   SHARDS=4 CLIENTS=4 DURATION=20 WARMUP=5 ROUNDS=3 RECORDS=100000 bench/shards-netns.sh
# The server commits without waiting for its disk (synchronous_commit off):
# this compares ways of driving it, not the disk's noise (MIX=update=100).
# PIN=1 places the server on CPU 0 and every dbgauge process, the one and the
# shards alike, on CPU 1 (taskset), as the server and the load machines are
# apart in a run over many machines; without it all share every CPU.
# Root (ip netns, veth); iproute2, jq and PostgreSQL installed. KEEP=1 leaves
# the namespaces, the server and the results (in $WORK) behind. SMOKE=1: 2
# shards of 1 client, 1,000 records, 1 s, no warm-up, 1 round, the shards
# told to start 5 s ahead (LEAD, 15 s). DBGAUGE=PATH runs another build of
# dbgauge (default: this checkout, built afresh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
knob SHARDS 4 2
knob CLIENTS 4 1
knob DURATION 20 1
knob WARMUP 5 0
knob ROUNDS 3 1
knob RECORDS 100000 1000
knob MIX read=100
knob VALUE 100
knob LEAD 15 5
srvcpu=() loadcpu=()
if [ "${PIN:-0}" = 1 ]; then srvcpu=(taskset -c 0) loadcpu=(taskset -c 1); fi
[ "$(id -u)" = 0 ] || { echo "shards-netns: run as root (ip netns)" >&2; exit 2; }
need ip iproute2
need jq jq
PG_BIN=${PG_BIN:-$(pg_bin)}
need_dbgauge
need_shardcheck
WORK=${WORK:-$(mktemp -d /tmp/dbgauge-shards.XXXXXX)}
chmod 755 "$WORK"
P=dbg31 # the namespaces' prefix
SRV=10.31.0.1
DB="postgres://bench@$SRV:5432/bench?sslmode=disable"

drop() { # the namespaces of this script, a killed run's too
	for ns in $(ip netns list | awk '{print $1}' | grep "^${P}-" || true); do ip netns del "$ns"; done
}
cleanup() {
	[ "${KEEP:-}" = 1 ] && { echo "kept: $WORK, namespaces ${P}-*"; return; }
	ip netns exec ${P}-srv runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -m immediate stop >/dev/null 2>&1 || true
	drop
	rm -rf "$WORK"
}
drop
trap cleanup EXIT

# The server's namespace and its bridge; a namespace per client process.
ip netns add ${P}-srv
ip -n ${P}-srv link add br0 type bridge
ip -n ${P}-srv addr add $SRV/24 dev br0
ip -n ${P}-srv link set br0 up
ip -n ${P}-srv link set lo up
join() { # join NAME ADDRESS: a namespace with one veth to the bridge
	ip netns add "${P}-$1"
	ip link add "v-$1" netns "${P}-$1" type veth peer name "b-$1" netns ${P}-srv
	ip -n "${P}-$1" addr add "$2/24" dev "v-$1"
	ip -n "${P}-$1" link set "v-$1" up
	ip -n "${P}-$1" link set lo up
	ip -n ${P}-srv link set "b-$1" master br0 up
}
for i in $(seq 0 $((SHARDS - 1))); do join "s$i" "10.31.0.$((10 + i))"; done
join single 10.31.0.9

# One PostgreSQL, listening on the bridge only.
mkdir -p "$WORK/pg" "$WORK/sock" && chown postgres: "$WORK/pg" "$WORK/sock" && chmod 700 "$WORK/pg"
runuser -u postgres -- "$PG_BIN/initdb" -D "$WORK/pg" -A trust -U postgres >/dev/null
echo "host all all 10.31.0.0/24 trust" >> "$WORK/pg/pg_hba.conf"
ip netns exec ${P}-srv "${srvcpu[@]}" runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg/server.log" -w \
	-o "-c listen_addresses=$SRV -c port=5432 -c unix_socket_directories=$WORK/sock -c max_connections=$((SHARDS * CLIENTS * 2 + 20)) -c shared_buffers=256MB -c synchronous_commit=off" start >/dev/null
ip netns exec ${P}-srv runuser -u postgres -- "$PG_BIN/psql" -qh "$WORK/sock" -U postgres -c "CREATE ROLE bench LOGIN" -c "CREATE DATABASE bench OWNER bench" >/dev/null
echo "server: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on $SRV in ${P}-srv; shards in ${P}-s0…s$((SHARDS - 1)) (10.31.0.10…), one process in ${P}-single (10.31.0.9)"
ip netns exec ${P}-s0 "$DBGAUGE" load kv --db "$DB" --records "$RECORDS" --value-bytes "$VALUE" --seed 1 >"$WORK/load.log" 2>&1 ||
	fail "dbgauge load kv exited $?: $(tail -5 "$WORK/load.log")"
grep -m1 -E ": (loaded|reused)" "$WORK/load.log" || true

common=(--db "$DB" --records "$RECORDS" --value-bytes "$VALUE" --mix "$MIX" --seed 1 --warmup "${WARMUP}s" --duration "${DURATION}s" --ceiling off)
single() { # single ROUND
	ip netns exec ${P}-single "${loadcpu[@]}" "$DBGAUGE" run kv "${common[@]}" --clients $((SHARDS * CLIENTS)) --results "$WORK/r$1" >"$WORK/r$1-single.log" 2>&1 ||
		fail "the one process exited $?: $(tail -5 "$WORK/r$1-single.log")"
	mv "$WORK/r$1"/2*-kv-* "$WORK/r$1/single"
}
sharded() { # sharded ROUND
	local at pids=()
	at=$(date -u -d "+$LEAD sec" +%Y-%m-%dT%H:%M:%SZ) # every shard ready before it (each checks the data)
	for i in $(seq 0 $((SHARDS - 1))); do
		ip netns exec "${P}-s$i" "${loadcpu[@]}" "$DBGAUGE" run kv "${common[@]}" --clients "$CLIENTS" --shard "$i/$SHARDS" --start-at "$at" \
			--results "$WORK/r$1" >"$WORK/r$1-shard-$i.log" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail "shard $i exited $?: $(tail -5 "$WORK/r$1-shard-$i.log")"; done
	"$DBGAUGE" merge "$WORK/r$1"/shard-* --out "$WORK/r$1/merged" >"$WORK/r$1-merge.log" 2>&1 ||
		fail "dbgauge merge exited $?: $(tail -5 "$WORK/r$1-merge.log")"
}
# jq's n(WHAT): the figure, when it is a number (at least zero unless signed).
figures='def n($what): if type == "number" and . >= 0 then . else error("\($what) is \(tojson)") end;
def signed($what): if type == "number" then . else error("\($what) is \(tojson)") end;'

printf "%-6s %-8s %12s %10s %10s %9s %9s %s\n" round how rate ok "p50 µs" "p99 µs" spread/ms check
for r in $(seq 1 "$ROUNDS"); do
	mkdir -p "$WORK/r$r"
	if [ $((r % 2)) = 1 ]; then single "$r"; sharded "$r"; else sharded "$r"; single "$r"; fi
	check=$(bench/.bin/shardcheck "$WORK/r$r/merged" "$WORK/r$r"/shard-*) || fail "round $r: shardcheck: $check"
	for how in single merged; do
		row=$(jq -r --arg r "$r" --arg how "$how" "$figures"'[$r, $how, (.summary.rate|n("rate")|floor), (.summary.ok|n("ok")), (.summary.p50_us|n("p50")), (.summary.p99_us|n("p99")), ((.merged.start_spread_seconds // 0 | n("start spread")) * 1000 | tostring | .[0:6])] | @tsv' "$WORK/r$r/$how/result.json")
		awk -F'\t' -v c="$([ $how = merged ] && echo "$check" || echo -)" '{printf "%-6s %-8s %12s %10s %10s %9s %9s %s\n", $1, $2, $3, $4, $5, $6, $7, c}' <<<"$row"
	done
	ratio=$(jq -rn --slurpfile a "$WORK/r$r/single/result.json" --slurpfile b "$WORK/r$r/merged/result.json" \
		"$figures"'"       merged ÷ single: \(($b[0].summary.rate|n("merged rate")) / ($a[0].summary.rate|n("single rate")) * 1000 | round / 1000)"')
	echo "$ratio" | tee -a "$WORK/ratios"
	for i in $(seq 0 $((SHARDS - 1))); do
		line=$(jq -r --arg i "$i" "$figures"'"       shard \($i): \(.summary.rate|n("rate")|floor)/s ok \(.summary.ok|n("ok")) from \(.environment.hostname), clients \(.shard.first_client|n("first client"))–\(.shard.first_client + .config.clients - 1), late \(.shard.late_seconds|n("late")*1000|floor) ms, clock offset \(.shard.clock.offset_us|signed("clock offset")) µs ±\(.shard.clock.rtt_us|n("rtt")/2) µs"' "$WORK/r$r/shard-$i/result.json")
		echo "$line"
	done
done
awk '{s += $NF; n++; if (n == 1 || $NF < lo) lo = $NF; if ($NF > hi) hi = $NF} END {printf "merged ÷ single over %d rounds: mean %.3f, from %.3f to %.3f\n", n, s / n, lo, hi}' "$WORK/ratios"
echo "$([ "${PIN:-0}" = 1 ] && echo 'server on CPU 0, every dbgauge process on CPU 1' || echo 'server and dbgauge processes share the CPUs')"
