# AFR — Agent Flight Recorder. Two commands on a fresh machine (Go, Node/npm, make):
#   make demo    run the main job on the embedded default chain
#   make test    run every test
# Everything else is installed by `make setup`, which is idempotent.

GO        ?= go
NPM       ?= npm
BIN       := $(CURDIR)/node_modules/.bin
export PATH := $(BIN):$(PATH)

GOFLAGS_TEST ?= -count=1
FUZZTIME     ?= 10s

.PHONY: all setup chromium build test test-go test-forge gas-snapshot artifacts fuzz bench demo demo-anvil vectors conformance-table clean help

all: build

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

# The npm toolchain is reinstalled only when the lock file changes.
node_modules/.installed: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund
	@touch $@

setup: node_modules/.installed chromium ## install Go modules, the pinned npm toolchain (forge, anvil, cast, solc-js, OpenZeppelin) and Chromium
	$(GO) mod download
	cd checkpoint/witnessinterop && $(GO) mod download

# Chromium for the browser tests (internal/browser): Debian's chromium, installed when no browser is
# found and this user can install packages (root, or passwordless sudo). Otherwise, or when the
# install fails, one line says why, and the browser tests will skip saying the same.
chromium:
	@b=$${AFR_CHROMIUM:-$$(command -v chromium || command -v chromium-browser || command -v google-chrome)}; \
	if [ -n "$$b" ]; then echo "setup: the browser tests use $$b"; \
	elif ! command -v apt-get >/dev/null; then echo "setup: no Chromium and no apt-get to install it: the browser tests will be skipped (install Chromium, or set AFR_CHROMIUM to its binary)"; \
	else \
	  if [ "$$(id -u)" = 0 ]; then sudo=; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	  else echo "setup: Chromium is not installed and installing it needs root or passwordless sudo: the browser tests will be skipped (run: sudo apt-get install chromium)"; exit 0; fi; \
	  echo "setup: installing Debian's chromium for the browser tests"; \
	  { $$sudo apt-get update -qq && $$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
	    || echo "setup: installing chromium failed (see above): the browser tests will be skipped"; \
	fi

# SeaweedFS's weed (Apache-2.0), the S3-compatible server the replica tests start on loopback
# (replica/s3test): built from the module proxy's source into bin/tools once per version. Its
# module has replace directives, so `go install mod@version` refuses it: the source is
# downloaded, then built in place (its own go.mod and go.sum pin its dependencies).
WEED_MODULE  := github.com/seaweedfs/seaweedfs
WEED_VERSION := v0.0.0-20261109003541-7506e5f91cd6
WEED         := $(CURDIR)/bin/tools/weed-$(WEED_VERSION)
export AFR_WEED := $(WEED)
.PHONY: s3server
s3server: $(WEED) ## build the S3 server of the replica tests (SeaweedFS weed, ~10 min the first time)

$(WEED):
	@mkdir -p $(dir $@)
	@src=$$($(GO) mod download -json $(WEED_MODULE)@$(WEED_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	  test -n "$$src" || { echo "s3server: cannot download $(WEED_MODULE)@$(WEED_VERSION)"; exit 1; }; \
	  echo "s3server: building weed from $$src"; \
	  cd "$$src" && GOFLAGS=-mod=readonly $(GO) build -ldflags="-s -w" -o $@.tmp ./weed && mv $@.tmp $@

build: setup ## build the afr CLI into bin/
	$(GO) build -o bin/afr ./cmd/afr

test: setup s3server test-forge test-specs test-go ## run every test (forge first: go test reads its output, e.g. to check the committed bindings and embedded artifacts; go test last, so its summary closes the run)

# go test includes the staleness checks of what is generated from the contracts: the Go bindings
# (contracts/bindings, TestBindingsUpToDate) and the embedded artifacts (contracts/artifacts,
# TestEmbeddedUpToDate, against the contracts/out that test-forge has just built).
test-go:
	$(GO) vet ./...
	$(GO) test $(GOFLAGS_TEST) ./...

# Ginkgo spec suites (specs/), with the Ginkgo CLI pinned by go.mod: every suite on the default
# backend (the in-process chain), then the anvil-labelled suites again against a real anvil; randomized, no pending or
# empty suites; JSON reports in specs/.reports (gitignored). Live fork specs (label "live") run
# only with AFR_FORK_RPC and AFR_FORK_BLOCK set: see docs/SPECS.md.
GINKGO       := $(GO) run github.com/onsi/ginkgo/v2/ginkgo
GINKGO_FLAGS := -r --randomize-all --fail-on-pending --fail-on-empty --keep-going --timeout=10m --output-dir=specs/.reports
SPEC_LABELS  ?= !live
ANVIL_SPECS  := ./specs/account ./specs/incident ./specs/gas ./specs/forkmode ./specs/examples
# The example suites compile their own contracts, as a user's module does (each its foundry.toml).
EXAMPLE_CONTRACTS := specs/examples/vault specs/examples/cheats specs/examples/lending specs/examples/bugs
.PHONY: test-specs gas-baseline example-contracts
example-contracts: setup ## build the example suites' own contracts (forge, from each example's foundry.toml)
	@for d in $(EXAMPLE_CONTRACTS); do (cd $$d && forge build) || exit 1; done

test-specs: setup example-contracts ## run the Ginkgo spec suites (in-process chain, then the anvil-labelled ones on anvil)
	$(GINKGO) $(GINKGO_FLAGS) --label-filter='$(SPEC_LABELS)' --json-report=embedded.json ./specs
	AFR_BACKEND=anvil $(GINKGO) $(GINKGO_FLAGS) --label-filter='anvil && $(SPEC_LABELS)' --json-report=anvil.json $(ANVIL_SPECS)

gas-baseline: setup ## rewrite fixtures/gas/baseline.json after an intended gas change (commit it with the change, saying why)
	AFR_GAS_UPDATE=1 $(GINKGO) --label-filter='!live' ./specs/gas
	@git --no-pager diff --stat -- fixtures/gas/baseline.json || true

# forge tests, then the gas regression check: `forge snapshot --check` fails with forge's diff
# when any test's gas differs from the committed .gas-snapshot. Update it on purpose with
# `make gas-snapshot` and commit the new file together with the change that caused it.
# Fuzz and invariant tests are left out of the snapshot: their gas depends on their inputs,
# which forge draws from the sources' literals and replays from locally persisted failures,
# so it differs between a developer's tree and a fresh clone; they still run in `forge test`.
# The examples with forge tests of their own (the lending example's are the twins of its afrspec
# specs, docs/PERFORMANCE.md) run them in their own folder, with their own foundry.toml. The
# planted-bugs example's forge test runs only its fixed twins (its foundry.toml's match_contract):
# the planted twins' invariant tests fail by design, each finding its bug, so they run under its
# `planted` profile in BenchmarkPlanted, which fails when forge does not find the bug.
SNAPSHOT_FLAGS := --no-match-test '^(testFuzz|invariant)_'
EXAMPLE_FORGE_TESTS := specs/examples/lending specs/examples/bugs
test-forge:
	@if ls contracts/src/*.sol >/dev/null 2>&1; then forge build && forge test && forge snapshot $(SNAPSHOT_FLAGS) --check .gas-snapshot; fi
	@for d in $(EXAMPLE_FORGE_TESTS); do (cd $$d && forge test) || exit 1; done

artifacts: setup ## regenerate the embedded contract artifacts (contracts/artifacts/targets.json) after changing contracts/test/utils/Targets.sol
	$(GO) generate ./contracts/artifacts

gas-snapshot: setup ## rewrite .gas-snapshot after an intended gas change (commit it with the change)
	forge snapshot $(SNAPSHOT_FLAGS) --snap .gas-snapshot

fuzz: setup ## run each fuzz target for FUZZTIME (default 10s)
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

bench: setup ## run the benchmarks whose figures are in docs/PERFORMANCE.md (about 5 minutes)
	$(GO) test -run '^$$' -bench BenchmarkRecord -benchtime 10000x -count 5 ./recorder/
	$(GO) test -run '^$$' -bench BenchmarkSync -benchtime 3000x ./recorder/
	$(GO) test -run '^$$' -bench BenchmarkServe -benchtime 3000x ./serve/
	$(GO) test -run '^$$' -bench 'BenchmarkVerify$$' -benchtime 3x -timeout 30m ./verifier/
	$(GO) test -run '^$$' -bench BenchmarkVerifyBundle -benchtime 5000x -timeout 30m ./verifier/
	$(GO) test -run '^$$' -bench . -benchtime 1s -count 5 ./evm/
	$(GO) test -run '^$$' -bench . -benchtime 20x -benchmem ./tracesim/

# The table of docs/CONFORMANCE.md, from a run of the conformance tests (fails when they fail).
conformance-table: ## print the go-ethereum tracer fixture conformance table of docs/CONFORMANCE.md
	@out=$$(mktemp) && $(GO) test -count=1 -v -run Conformance ./evm ./tracesim > $$out; s=$$?; \
	  awk -f internal/gethfixtures/table.awk $$out; rm -f $$out; exit $$s

vectors: ## regenerate the test vectors in fixtures/vectors
	$(GO) run ./fixtures/vectors/gen

demo: setup ## the main job on the embedded default chain (report in a new temporary directory)
	$(GO) run ./cmd/afr demo

demo-anvil: setup ## the same demo on an anvil process it starts and stops
	$(GO) run ./cmd/afr demo --backend anvil

clean:
	rm -rf bin contracts/out contracts/cache node_modules
