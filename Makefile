# Agentdeck. The two commands people need:
#   make run    set up what is missing, build, open the desktop window
#   make test   set up, then every check: vet, Go tests with -race, the
#               frontend's type check and unit tests, a release build, the
#               browser end-to-end tests, the window smoke test, and the
#               packages built, installed, launched and removed
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# One version from git for the binary, the packages and the About box (the
# tag, or 0.0.0~git<date>.<sha>: scripts/version.sh), read once per make.
VERSION ?= $(shell bash scripts/version.sh)
COMMIT  ?= $(shell bash scripts/version.sh --commit)
VERSION := $(VERSION)
COMMIT  := $(COMMIT)
# make test's chains are makes of their own: the same version in all.
export VERSION COMMIT
TAGS    := desktop,production,webkit2_41
LDFLAGS := -s -w -X github.com/agentdeck/agentdeck/backend/buildinfo.Version=$(VERSION) \
           -X github.com/agentdeck/agentdeck/backend/buildinfo.Commit=$(COMMIT)
BIN     := build/bin/agentdeck
STATICCHECK := v0.8.2
export PATH := $(CURDIR)/.bin:$(PATH)

.PHONY: run test setup frontend build vet go-test test-scale test-otel bench-scale worker resilience e2e-cli fuzz fe-check fe-test e2e smoke bindings dev bench clean icons package package-test

run: build
	./$(BIN) $(ARGS)

# The same checks as one after another, in two pairs of chains that share
# the 2 cores (measured in e2e/README.md, "Time"): the Go checks beside the
# frontend's (go test's tail is one package on one core), then, after the
# release build, the browser tests beside the window smoke test and the
# packages (which mostly wait for windows). The chains share no files: the
# frontend's build, which rewrites frontend/dist that the Go checks embed,
# comes after both of the first. Set-up runs once, first, and the release
# build once (SETUP_DONE, BUILD_DONE: the chains' targets skip them). Each
# line says its chain ([go], [fe], [e2e], [pkg]); a failure in either chain
# fails make test, after the other chain of its pair has ended.
test: setup
	@$(MAKE) --no-print-directory -j2 SETUP_DONE=1 test-go test-fe
	@$(MAKE) --no-print-directory SETUP_DONE=1 build
	@$(MAKE) --no-print-directory -j2 SETUP_DONE=1 BUILD_DONE=1 test-e2e test-pkg
	@echo "make test: all checks passed"

# The chains of make test; each runs its targets in order.
.PHONY: test-go test-fe test-e2e test-pkg
test-go:
	@{ $(MAKE) vet && $(MAKE) go-test && $(MAKE) fuzz; } 2>&1 | sed -u 's/^/[go] /'
test-fe:
	@{ $(MAKE) fe-check && $(MAKE) fe-test; } 2>&1 | sed -u 's/^/[fe] /'
test-e2e:
	@$(MAKE) e2e 2>&1 | sed -u 's/^/[e2e] /'
test-pkg:
	@{ $(MAKE) smoke && $(MAKE) package-test; } 2>&1 | sed -u 's/^/[pkg] /'

setup:
ifndef SETUP_DONE
	@bash scripts/setup.sh
endif

frontend: setup
	cd frontend && npm run build
	touch frontend/dist/.gitkeep

ifndef BUILD_DONE
build: frontend
	go build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(BIN) .
	@echo "built $(BIN) $(VERSION)"
else
build:
endif

vet: setup
	go vet ./...
	go vet -tags $(TAGS) ./...
	go vet -C scale -tags scale ./...
	go vet -tags otel ./e2e/otel/
	go run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...
	cd scale && go run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) -tags scale ./...
	go run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) -tags otel ./e2e/otel/
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "not gofmt'ed (run gofmt -w):" $$unformatted >&2; exit 1; fi
	@if go list -deps ./backend/... | grep -q wailsapp; then echo "backend/ must not import Wails" >&2; exit 1; fi
	@# Prettier is to TypeScript and Svelte what gofmt is to Go (npm run format).
	cd frontend && npm run --silent format:check

# -timeout: one generous bound for a whole package, for loaded 2-core
# machines (the default 10m is not); tests themselves wait for events.
go-test: setup
	go test -race -count=1 -timeout 30m ./...
	go test -C scale -race -count=1 -timeout 10m ./...
	@# The PDF compile-cache test skips under -race (PDFium compiles for
	@# minutes there); it runs here without it, so CI runs it too.
	go test -count=1 -run TestPDFCompileCache ./backend/knowledge/extract

# Evaluations on a real Temporal server (temporal server start-dev, on
# loopback): two agentdeck-workers against the scripted model, one killed
# with SIGKILL mid-run, and Stop. The Temporal CLI is built into .bin/
# once (about 5 minutes cold); see docs/SCALE.md.
WORKER_BIN := build/bin/agentdeck-worker
test-scale: setup worker
	bash scripts/install-temporal.sh
	AGENTDECK_WORKER_BIN=$(CURDIR)/$(WORKER_BIN) TEMPORAL_BIN=$(CURDIR)/.bin/temporal \
		go test -C scale -tags scale -race -count=1 -timeout 20m ./scaletest/

# The OpenTelemetry export against a real collector on loopback (e2e/otel):
# the collector of tools/otelcol (OTLP receiver, file exporter, release
# v0.161.0) is built into .bin/ once per its go.sum (about 6 minutes
# cold), then live and past turns go to it over OTLP HTTP and gRPC and
# what it wrote is read back; docs/OBSERVABILITY.md.
test-otel: setup
	bash scripts/install-otelcol.sh
	OTELCOL_BIN=$(CURDIR)/.bin/otelcol-agentdeck \
		go test -tags otel -race -count=1 -timeout 15m ./e2e/otel/

# Throughput locally and on Temporal with 1, 2 and 4 workers, and the
# overhead of a cell as an activity (docs/SCALE.md has the figures).
bench-scale: setup worker
	bash scripts/install-temporal.sh
	AGENTDECK_WORKER_BIN=$(CURDIR)/$(WORKER_BIN) TEMPORAL_BIN=$(CURDIR)/.bin/temporal \
		go test -C scale -tags scale -run '^$$' -bench BenchmarkScale -benchtime 1x -count $(or $(COUNT),3) -timeout 60m ./scaletest/

# agentdeck-worker, from its own module (scale/), beside agentdeck so that
# agentdeck eval --temporal finds it.
worker: setup
	go build -C scale -ldflags "$(LDFLAGS)" -o $(CURDIR)/$(WORKER_BIN) ./cmd/agentdeck-worker

# The end-to-end suites are listed in e2e/README.md. Two of them alone
# (both also run in go-test): the resilience suite (the 10,000-turn soak:
# AGENTDECK_SOAK=1 go test -count=1 -run TestSoak -timeout 60m ./e2e/resilience/)
# and the built command driven as a person does (e2e/cli).
resilience: setup
	go test -race -count=1 ./e2e/resilience/

e2e-cli: setup
	go test -race -count=1 ./e2e/cli/

# Every fuzz target for FUZZTIME each (default 3s): FUZZTIME=1m make fuzz
fuzz: setup
	bash scripts/fuzz.sh

fe-check: setup
	cd frontend && npm run check
	cd frontend && npm run lint
	@$(MAKE) --no-print-directory types-check

fe-test: setup
	cd frontend && npm test

# The browser tests (Playwright in Debian's Chromium) against `agentdeck
# serve` and the scripted model; screenshots in build/e2e. One test:
# make e2e ARGS='-g search'
e2e: build
	bash scripts/e2e.sh $(BIN) $(ARGS)

smoke: build
	bash scripts/smoke.sh $(BIN)

# Regenerates frontend/src/lib/wailsjs from the bound Go structs.
bindings: setup
	wails generate module -tags webkit2_41
	@# api.ts calls window.go.app.API itself and types it with src/lib/generated.ts
	@# (make types): the wrappers and models.ts Wails writes into go/ are unused.
	rm -rf frontend/src/lib/wailsjs/go

# Regenerates frontend/src/lib/generated.ts, the TypeScript types of the API,
# the events and the turn results, from the Go types (frontend/typegen: tygo,
# pinned in its go.mod). types-check, run by fe-check, tests the generator and
# fails while the file is stale.
TYPEGEN := go run -C frontend/typegen . -root $(CURDIR)
.PHONY: types types-check

types:
	$(TYPEGEN)

types-check:
	go test -C frontend/typegen -count=1 ./...
	$(TYPEGEN) -check

dev: setup
	wails dev -tags webkit2_41

bench: setup
	bash scripts/bench.sh

# The app's icons, drawn from build/appicon.svg (needs librsvg2-bin); the
# results are committed, so no other target needs this one.
icons:
	bash scripts/icons.sh

# The packages, into build/package/: a .deb (nfpm), a Linux tarball, the
# Windows .exe (cross-compiled, with its icon and version resources) and
# SHA256SUMS. scripts/package.sh says what is in each.
package: build
	bash scripts/package.sh '$(VERSION)' '$(COMMIT)'

# Installs the .deb (root or sudo), starts it from its desktop entry under
# Xvfb, removes it, and does the same with the tarball's install.sh: see
# scripts/package-test.sh. It refuses where agentdeck is already installed.
package-test: package
	bash scripts/package-test.sh '$(VERSION)'

clean:
	rm -rf build/bin build/package frontend/dist/assets frontend/dist/index.html
