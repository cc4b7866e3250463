#!/bin/sh
# Runs the build stage of ../Dockerfile without Docker, on a Debian 12
# (bookworm) machine like golang:1.26-bookworm: the same commands, each
# checked to be in the Dockerfile word for word, in a copy of what the
# Dockerfile COPYs. Then it does what the run stage gives the binary: an
# empty root (distroless/static has CA certificates and time zones only),
# and runs dbgauge in it against SQLite.
#
#   deploy/docker-steps.sh [WORK_DIR]      (root: the empty root is a chroot)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/dbgauge-docker.XXXXXX)}
dockerfile="$repo/Dockerfile"

# step CMD: CMD must be a RUN line of the Dockerfile's, as written there;
# it runs with the image's /out/ read as $work/out/.
step() {
	grep -qxF "RUN $1" "$dockerfile" || { echo "docker-steps: not in the Dockerfile: RUN $1" >&2; exit 1; }
	echo "+ RUN $1"
	sh -c "$(printf '%s' "$1" | sed "s#/out/#$work/out/#g")"
}

echo "== build stage, in $work/src"
# FROM golang:1.26-bookworm: this machine's Go and Debian stand for the image's.
go version
grep -q 'VERSION_CODENAME=bookworm' /etc/os-release || echo "docker-steps: not Debian 12: the image's build stage is" >&2
if [ "$(id -u)" = 0 ]; then
	step 'apt-get update && apt-get install -y --no-install-recommends libgdbm-dev && rm -rf /var/lib/apt/lists/*'
else
	dpkg -s libgdbm-dev >/dev/null 2>&1 || { echo "docker-steps: install libgdbm-dev (as root)" >&2; exit 1; }
	echo "(not root: libgdbm-dev is installed already)"
fi
mkdir -p "$work/src" "$work/out"
cd "$work/src"
# WORKDIR /src; COPY go.mod go.sum ./
cp "$repo/go.mod" "$repo/go.sum" .
step 'go mod download'
# COPY cmd ./cmd; COPY internal ./internal (less testdata: .dockerignore)
cp -r "$repo/cmd" "$repo/internal" .
find internal -type d -name testdata -prune -exec rm -rf {} +
build=$(grep -m1 '^RUN CGO_ENABLED=1 go build' "$dockerfile" | sed 's/^RUN //')
step "$build"
step '/out/dbgauge --version && ! ldd /out/dbgauge'
ls -l "$work/out/dbgauge"
file "$work/out/dbgauge" 2>/dev/null || true

echo "== run stage: the binary alone in an empty root"
if [ "$(id -u)" != 0 ]; then
	echo "(not root: no chroot; the binary is static, which is what the run stage needs)"
	exit 0
fi
root="$work/root"
mkdir -p "$root/usr/local/bin" "$root/results" "$root/tmp" "$root/proc"
cp "$work/out/dbgauge" "$root/usr/local/bin/dbgauge"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
chroot "$root" /usr/local/bin/dbgauge --version
chroot "$root" /usr/local/bin/dbgauge run kv --db sqlite:/tmp/kv.db --records 1000 --clients 2 --warmup 0s --duration 2s --ceiling off --results /results
ls "$root/results"
