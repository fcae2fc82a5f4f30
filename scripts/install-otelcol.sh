#!/usr/bin/env bash
# Builds the OpenTelemetry Collector of tools/otelcol (an OTLP receiver and
# contrib's file exporter, release v0.161.0: see its main.go) into
# .bin/otelcol-agentdeck, once per version of that module: the stamp
# .bin/.otelcol-agentdeck-HASH names the sha256 of its go.mod, go.sum and
# Go files, so a change to any of them builds it again. make test-otel
# (e2e/otel) starts it on loopback.
#
# A large program: 6m09s on 2 cores the first time (a 49 MB binary), under
# a second when the stamp matches.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.bin"
mod="$root/tools/otelcol"
name=otelcol-agentdeck
# shellcheck source=lib.sh
source "$root/scripts/lib.sh"

version="$(cd "$mod" && cat go.mod go.sum ./*.go | sha256sum | cut -c1-16)"
if tool_is_current "$name" "$version"; then
  exit 0
fi
echo "==> building .bin/$name $version (an OpenTelemetry Collector: about 6 minutes the first time)"
mkdir -p "$bin"
go build -C "$mod" -trimpath -ldflags "-s -w" -o "$bin/$name" .
tool_stamp "$name" "$version"
