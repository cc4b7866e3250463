# dbgauge — make help lists the targets.
GOLANGCI_VERSION := v2.15.0
GOTESTSUM_VERSION := v1.13.0
GOBIN ?= $(shell go env GOPATH)/bin

.PHONY: help build run test test-short lint fmt docs bench bench-smoke clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

build: ## build ./dbgauge
	go build -o dbgauge ./cmd/dbgauge

run: build ## the main job: nms on embedded SQLite
	./dbgauge run nms

# The race runtime sleeps a second before every instrumented process exits
# (GORACE atexit_sleep_ms, default 1000): each test binary and each child
# dbgauge starts of itself. Races are reported as they happen either way.
# The packages are compiled on every CPU first (go build -race, which links
# no test binary: a go test -run '^$' here linked and started each of them
# once more, about 100 s of two CPUs); then the packages are tested three at
# a time: no test asserts a rate or a duration that depends on the machine's
# speed (performance is bench/'s), so a test must pass beside other
# packages' as it passes beside a CPU hog.
# gotestsum (pinned, installed if missing) runs go test -json and prints
# what go test prints, then every skipped test with its reason: a test that
# did not run is said, not hidden in a package's "ok". test.json keeps every
# test's events and times (go tool test2json's format) for a profile.
# The packages start in the order given: the four that take minutes first
# (go test drops their repeat in ./...), so that at the end the short ones
# fill the other slots instead of one long package running alone. Three
# packages at a time: with two, the CPUs were 82 % busy over a run (bench's
# scripts and the clusters' starts mostly wait), 94 % while session and cli
# ran together.
# -ldflags=-w: each test binary is linked without DWARF, which only a
# debugger reads (a race report and a panic's trace come from the symbol
# table Go keeps): a race-built test binary linked in 4 s of CPU instead of
# 7.5 s, and make test links about 67 of them.
LONGEST := ./internal/session ./internal/cli ./bench ./internal/catalog
test: ## the whole test suite, with the race detector (README command 2); ends with the list of skips
	-@go build -race ./... >/dev/null 2>&1
	@$(GOBIN)/gotestsum --version 2>/dev/null | grep -q '$(GOTESTSUM_VERSION)' || \
		GOFLAGS= go install gotest.tools/gotestsum@$(GOTESTSUM_VERSION)
	GORACE=atexit_sleep_ms=0 $(GOBIN)/gotestsum --format standard-quiet --jsonfile test.json -- -race -ldflags=-w -count=1 -p 3 -timeout 20m $(LONGEST) ./...

test-short: ## the quick tests only
	go test -short -count=1 ./...

lint: ## gofmt, go mod tidy, go vet and golangci-lint (installed at the pinned version if missing)
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: the files above need formatting"; exit 1; }
	@go mod tidy -diff || { echo "go.mod: run go mod tidy"; exit 1; }
	go vet ./...
	@$(GOBIN)/golangci-lint version 2>/dev/null | grep -q '$(patsubst v%,%,$(GOLANGCI_VERSION))' || \
		GOFLAGS= go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	$(GOBIN)/golangci-lint run ./...

fmt: ## format the code
	gofmt -w .

docs: ## regenerate docs/knobs.md from the catalog
	go test ./internal/cli -run TestKnobsDoc -update

bench: build ## dbgauge against its anchors (see bench/README.md)
	DBGAUGE=$(CURDIR)/dbgauge bench/vs-sqlite3.sh

bench-smoke: ## every script in bench/ in its smoke mode, as make test runs them (bench/smoke_test.go)
	go test -count=1 -run TestSmoke -v ./bench/

clean: ## remove the binary, local results and the last test.json
	rm -rf dbgauge results test.json
