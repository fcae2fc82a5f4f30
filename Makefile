# Agentdeck. The two commands people need:
#   make run    set up what is missing, build, open the desktop window
#   make test   set up, then every check: vet, Go tests with -race, the
#               frontend's type check and unit tests, a release build and
#               the window smoke test
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
TAGS    := desktop,production,webkit2_41
LDFLAGS := -s -w -X github.com/agentdeck/agentdeck/backend/buildinfo.Version=$(VERSION)
BIN     := build/bin/agentdeck
export PATH := $(CURDIR)/.bin:$(PATH)

.PHONY: run test setup frontend build vet go-test fe-check fe-test smoke bindings dev bench clean

run: build
	./$(BIN) $(ARGS)

test: setup vet go-test fe-check fe-test build smoke
	@echo "make test: all checks passed"

setup:
	@bash scripts/setup.sh

frontend: setup
	cd frontend && npm run build
	touch frontend/dist/.gitkeep

build: frontend
	go build -tags $(TAGS) -ldflags "$(LDFLAGS)" -o $(BIN) .
	@echo "built $(BIN) $(VERSION)"

vet: setup
	go vet ./...
	go vet -tags $(TAGS) ./...
	@if go list -deps ./backend/... | grep -q wailsapp; then echo "backend/ must not import Wails" >&2; exit 1; fi

go-test: setup
	go test -race -count=1 ./...

fe-check: setup
	cd frontend && npm run check

fe-test: setup
	cd frontend && npm test

smoke: build
	bash scripts/smoke.sh $(BIN)

# Regenerates frontend/src/lib/wailsjs from the bound Go structs.
bindings: setup
	wails generate module -tags webkit2_41

dev: setup
	wails dev -tags webkit2_41

bench: setup
	@echo "no benchmarks yet"

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html
