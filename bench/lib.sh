# What the scripts in bench/ share; each sources it from the checkout's root
# (cd "$(dirname "$0")/.." && . bench/lib.sh), and so does .ci/run, for the
# peers it installs. Nothing here runs when sourced but the smoke setting.
#
# SMOKE=1 makes any script a check of itself rather than a measurement: one
# round, a second or two per tool, the smallest dataset, the same path (every
# server started, every tool run, every figure read). A figure that cannot be
# read, or a tool that fails, ends the script with exit 1 in either mode.
SMOKE=${SMOKE:-0}
export SMOKE
# A command that fails inside $(…) fails the script too, as set -e makes it outside.
shopt -s inherit_errexit
# The scripts' Python parts import bench/lib.py, leaving no __pycache__ behind.
export PYTHONPATH="$PWD/bench${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1

# knob NAME FULL [SMOKE]: NAME keeps a value given in the environment;
# otherwise it is FULL, or SMOKE's value under SMOKE=1. Exported, for the
# script's Python part (lib.setting).
knob() {
	if [ -z "${!1+set}" ]; then
		if [ "$SMOKE" = 1 ] && [ $# -ge 3 ]; then printf -v "$1" '%s' "$3"; else printf -v "$1" '%s' "$2"; fi
	fi
	export "${1?}"
}

# fail WHAT…: one line on stderr, exit 1.
fail() {
	echo "bench: $*" >&2
	exit 1
}

# need COMMAND PACKAGE: exit 2 when COMMAND is missing, saying what to install.
need() {
	command -v "$1" >/dev/null || { echo "bench: $1 is missing: apt-get install $2" >&2; exit 2; }
}

# pg_bin: the newest /usr/lib/postgresql/N/bin the system installed, as
# dbgauge's postgres:managed takes it: the versions scripts/install-pg-versions.sh
# added (a dbgauge-source.txt beside bin) only when there is no other.
pg_bin() {
	local d own="" any=""
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do
		any=$d
		[ -e "$d/../dbgauge-source.txt" ] || own=$d
	done
	echo "${own:-$any}"
}

# num WHAT VALUE: prints VALUE when it is a number above zero; fails naming WHAT otherwise.
num() {
	[[ $2 =~ ^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$ ]] && awk -v v="$2" 'BEGIN {exit !(v > 0)}' ||
		fail "$1: '$2' is not a positive figure"
	echo "$2"
}

# need_dbgauge: DBGAUGE, the build to measure: the one given, or this
# checkout built afresh (a dbgauge left from another checkout is never measured).
need_dbgauge() {
	if [ -z "${DBGAUGE:-}" ]; then
		mkdir -p bench/.bin
		go build -o bench/.bin/dbgauge ./cmd/dbgauge
		DBGAUGE=$PWD/bench/.bin/dbgauge
	fi
	[ -x "$DBGAUGE" ] || fail "DBGAUGE=$DBGAUGE is not an executable"
	export DBGAUGE
}

# need_gotpc: GOTPC, go-tpc v1.0.12: the one given, or bench/.bin/go-tpc,
# installed there from the Go module proxy when missing.
need_gotpc() {
	if [ -z "${GOTPC:-}" ]; then
		GOTPC=$PWD/bench/.bin/go-tpc
		[ -x "$GOTPC" ] || GOFLAGS= GOBIN="$PWD/bench/.bin" go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.12 ||
			fail "go-tpc did not install"
	fi
	export GOTPC
}

# need_goycsb: GOYCSB, go-ycsb v1.0.3: the one given, or bench/.bin/go-ycsb,
# built there when missing (go install …@v1.0.3 refuses it: its go.mod has a
# replace directive; the module as the proxy serves it is built as the main
# module instead, with its own go.mod and go.sum).
need_goycsb() {
	if [ -z "${GOYCSB:-}" ]; then
		GOYCSB=$PWD/bench/.bin/go-ycsb
		if [ ! -x "$GOYCSB" ]; then
			local tmp src
			tmp=$(mktemp -d)
			src=$(cd "$tmp" && go mod download -json github.com/pingcap/go-ycsb@v1.0.3 | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
			cp -r "$src" "$tmp/go-ycsb" && chmod -R u+w "$tmp/go-ycsb"
			mkdir -p bench/.bin
			echo "bench: building go-ycsb v1.0.3 into bench/.bin (a few minutes)" >&2
			(cd "$tmp/go-ycsb" && GOFLAGS= nice -n 19 go build -o "$tmp/go-ycsb.bin" ./cmd/go-ycsb) || { rm -rf "$tmp"; fail "go-ycsb did not build"; }
			mv "$tmp/go-ycsb.bin" "$GOYCSB"
			rm -rf "$tmp"
		fi
	fi
	export GOYCSB
}

# need_floor: bench/.bin/floor, built afresh, and bench/.bin/sqlite_select
# (bench/floor/c), compiled when missing against go-sqlite3's own copy of
# SQLite with go-sqlite3's #cgo CFLAGS (sqlite3.go), at cgo's default -O2.
need_floor() {
	mkdir -p bench/.bin
	go build -o bench/.bin/floor ./bench/floor || fail "bench/floor did not build"
	if [ ! -x bench/.bin/sqlite_select ]; then
		local amal
		amal=$(go list -m -f '{{.Dir}}' github.com/mattn/go-sqlite3)
		gcc -O2 -std=gnu99 -DSQLITE_ENABLE_RTREE -DSQLITE_THREADSAFE=1 -DHAVE_USLEEP=1 -DSQLITE_ENABLE_FTS3 \
			-DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_TRACE_SIZE_LIMIT=15 -DSQLITE_OMIT_DEPRECATED \
			-DSQLITE_DEFAULT_WAL_SYNCHRONOUS=1 -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT -Wno-deprecated-declarations \
			-I"$amal" -o bench/.bin/sqlite_select bench/floor/c/sqlite_select.c "$amal/sqlite3-binding.c" -lpthread -ldl -lm ||
			fail "bench/floor/c/sqlite_select.c did not compile"
	fi
}

# need_shardcheck: bench/.bin/shardcheck, built afresh (shards-netns.sh).
need_shardcheck() {
	mkdir -p bench/.bin
	go build -o bench/.bin/shardcheck ./bench/shardcheck || fail "bench/shardcheck did not build"
}

# need_zodbshootout: ZODBSHOOTOUT, the Python of zodbshootout 0.8.0's own
# virtualenv: the one given, or bench/.bin/zodbshootout, made there with
# Python 3.11 from bench/zodbshootout/requirements.txt (every package pinned,
# installed with --no-deps) when missing or made from other pins.
need_zodbshootout() {
	if [ -z "${ZODBSHOOTOUT:-}" ]; then
		local env=$PWD/bench/.bin/zodbshootout req=$PWD/bench/zodbshootout/requirements.txt py=/usr/bin/python3.11
		if ! cmp -s "$req" "$env/requirements.txt"; then
			[ -x "$py" ] || py=$(command -v python3.11) ||
				{ echo "bench: python3.11 is missing: apt-get install python3.11-venv" >&2; exit 2; }
			echo "bench: making zodbshootout 0.8.0's environment in bench/.bin/zodbshootout" >&2
			rm -rf "$env"
			"$py" -m venv "$env" && "$env/bin/pip" install -q --disable-pip-version-check --no-deps -r "$req" ||
				{ rm -rf "$env"; fail "zodbshootout's environment did not install"; }
			cp "$req" "$env/requirements.txt"
		fi
		ZODBSHOOTOUT=$env/bin/python
	fi
	[ -x "$ZODBSHOOTOUT" ] || fail "ZODBSHOOTOUT=$ZODBSHOOTOUT is not an executable"
	export ZODBSHOOTOUT
}
