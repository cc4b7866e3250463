# The image a run over many machines uses (deploy/kubernetes/indexed-job.yaml,
# docs/many-machines.md): dbgauge alone, linked statically, on distroless.
#
#   docker build -t dbgauge .
#   docker run --rm -v $PWD/results:/results dbgauge run kv --db postgres://… --results /results
#
# deploy/docker-steps.sh runs the build stage's commands on a Debian 12 machine
# without Docker and checks that it gives the same: a static binary that runs
# alone in an empty root.

# --- build: Go with cgo (SQLite, GDBM), linked statically ---------------------
FROM golang:1.26-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libgdbm-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
# netgo, osusergo: Go's own resolver and user lookup (glibc's would need its
# shared libraries at run time); sqlite_omit_load_extension: no dlopen.
RUN CGO_ENABLED=1 go build -trimpath -buildvcs=false -tags netgo,osusergo,sqlite_omit_load_extension -ldflags "-s -w -linkmode external -extldflags -static" -o /out/dbgauge ./cmd/dbgauge
RUN /out/dbgauge --version && ! ldd /out/dbgauge

# --- run: the binary, CA certificates and time zones, nothing else --------------
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dbgauge /usr/local/bin/dbgauge
WORKDIR /results
ENTRYPOINT ["/usr/local/bin/dbgauge"]
CMD ["--help"]
