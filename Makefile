# glint's hygiene. Every target installs what it needs.
#
#   make build        bin/glintd and bin/glint-load
#   make run          build, then start glintd on ./data with the default listeners
#   make test         test dependencies, go vet, go test -race (CI runs this)
#   make lint         go vet, gofmt, staticcheck; the server builds for macOS too (it runs on Linux)
#   make rewrite      rewrite every golden file (internal/golden) from what the code gives now; review the diff
#   make conformance  the highlighting conformance suite (../shared/conformance) on a fresh glintd
#   make fuzz         every fuzz target for FUZZTIME each
#   make bench        Go benchmarks, then the race against the peers (bench/cmd/race)
#   make bench-quick  the same, short (Brown, one run of 2 s: ~6 min on 2 cores)
#   make bench-test   vet and test the benchmark's own Go modules (bench/bleve, bench/peers),
#                     which go test ./... does not enter; PostgreSQL and FTS5 required
#   make jepsen       JEPSEN_RUNS seeded runs of JEPSEN_DURATION each (seeds from JEPSEN_SEED) under JEPSEN_NEMESES:
#                     register (linearizable) and set (no acknowledged write lost) workloads; a summary table, exit 1 on
#                     any violation (docs/testing-replication.md); JEPSEN_PARALLEL runs at once
#   make jepsen-campaign  issue 27's campaign: 200 runs of 60 s on a three-node cluster under every nemesis,
#                     two at a time (about 1 h 50 min on 2 cores)
#   make soak         the mixed load for SOAK_DURATION at SOAK_CLIENTS clients after SOAK_WARMUP: per-10-s latency,
#                     throughput, RSS and goroutines to bench/results/soak-*.json and .svg

GO                  ?= go
BIN                 := bin
# The newest staticcheck that resolves through the module proxy here and knows Go 1.26.
STATICCHECK_VERSION ?= v0.8.2
# The whole suite takes a few minutes on 2 cores; the timeout only catches a hang.
TEST_TIMEOUT        ?= 12m
FUZZTIME            ?= 10s
SOAK_CLIENTS        ?= 8
SOAK_DURATION       ?= 10m
SOAK_WARMUP         ?= 2m
SOAK_ARGS           ?=
JEPSEN_RUNS         ?= 5
JEPSEN_DURATION     ?= 60s
JEPSEN_NEMESES      ?= kill,stop
JEPSEN_SEED         ?= 1
JEPSEN_ARGS         ?=
JEPSEN_PARALLEL     ?= 1

.PHONY: build run test test-deps lint rewrite conformance fuzz bench bench-quick bench-build bench-deps bench-test soak jepsen jepsen-campaign

build:
	$(GO) build -o $(BIN)/glintd ./cmd/glintd
	$(GO) build -o $(BIN)/glint-load ./cmd/glint-load

run: build
	$(BIN)/glintd --data ./data

test-deps:
	scripts/install-test-deps.sh

test: test-deps
	$(GO) vet ./...
	GLINT_REQUIRE_SPHINX=1 GLINT_REQUIRE_CLIENTS=1 GLINT_REQUIRE_FAULTS=1 $(GO) test -race -timeout $(TEST_TIMEOUT) ./...

lint:
	$(GO) vet ./...
	@unformatted="$$(gofmt -l $$($(GO) list -f '{{.Dir}}' ./...))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$unformatted"; exit 1; fi
	GOBIN=$(CURDIR)/$(BIN)/tools $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(BIN)/tools/staticcheck ./...
	GOOS=darwin GOARCH=arm64 $(GO) build ./...

# The packages whose tests import internal/golden take -rewrite (the others
# would reject the flag). e2e needs what make test-deps installs.
rewrite: test-deps
	$(GO) test -count=1 $$($(GO) list -f '{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | \
		awk '/internal\/golden/ && $$1 !~ /internal\/golden$$/ {print $$1}') -rewrite
	git status --short -- '*testdata*'

# The reference's own answers; fails when fewer cases pass than
# scripts/conformance.min records.
conformance: test-deps
	scripts/conformance.sh

# Fuzz targets are found with go test -list, package by package (-fuzz takes one
# package and one target at a time).
fuzz:
	@set -e; for pkg in $$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 3s $$pkg; \
		done; \
	done

# The peers' servers (Sphinx, PostgreSQL) and a C compiler for SQLite's cgo.
bench-deps:
	scripts/install-bench-deps.sh

# The race runs the peers even while glintd does not build (glint is then
# reported as skipped), so a stale bin/glintd is removed first.
# The corpora are prepared first: the Go benchmarks on real text read them
# from the cache (and skip without it).
bench-build: bench-deps
	@rm -f $(BIN)/glintd
	-$(GO) build -o $(BIN)/glintd ./cmd/glintd
	$(GO) build -o $(BIN)/glint-load ./cmd/glint-load
	$(GO) run ./bench/cmd/corpus -queries brown debian

bench: bench-build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) run ./bench/cmd/race -glintd $(BIN)/glintd

# The peers' module needs cgo and the build tag for SQLite's FTS5; its tests
# start a private PostgreSQL cluster.
bench-test: bench-deps
	cd bench/bleve && $(GO) vet ./... && $(GO) test ./...
	cd bench/peers && $(GO) vet -tags sqlite_fts5 ./... && \
		GLINT_REQUIRE_POSTGRES=1 GLINT_REQUIRE_SQLITE=1 $(GO) test -tags sqlite_fts5 ./...

bench-quick: bench-build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1x ./...
	$(GO) run ./bench/cmd/race -quick -glintd $(BIN)/glintd

# The short version runs in make test (e2e TestSoakShort).
soak: build
	$(GO) run ./bench/cmd/corpus -queries brown
	$(GO) run ./bench/cmd/soak -glintd $(BIN)/glintd -clients $(SOAK_CLIENTS) -duration $(SOAK_DURATION) -warmup $(SOAK_WARMUP) -latest $(SOAK_ARGS)

# The short version runs in make test (e2e TestJepsenShort). A failed run's
# history, porcupine's HTML and node logs are left in jepsen-results/seed-N.
jepsen: build
	$(GO) run ./cmd/glint-jepsen -glintd $(BIN)/glintd -runs $(JEPSEN_RUNS) -duration $(JEPSEN_DURATION) \
		-nemeses $(JEPSEN_NEMESES) -seed $(JEPSEN_SEED) -parallel $(JEPSEN_PARALLEL) $(JEPSEN_ARGS)

# The replication campaign of issue 27 (its seeds from JEPSEN_SEED).
jepsen-campaign: build
	$(GO) run ./cmd/glint-jepsen -glintd $(BIN)/glintd -nodes 3 -runs 200 -duration 60s -parallel 2 \
		-nemeses kill,stop,partition,cut,wipe,member,delay,loss -seed $(JEPSEN_SEED) $(JEPSEN_ARGS)
