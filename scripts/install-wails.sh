#!/usr/bin/env bash
# Builds the Wails CLI into .bin/wails.
#
# `go install github.com/wailsapp/wails/v2/cmd/wails@v2.9.2` fails with Go 1.26
# (golang.org/x/tools v0.17.0 no longer compiles), so we build the CLI from the
# module source with a newer x/tools. See ../shared/TOOLCHAIN.md.
set -euo pipefail

WAILS_VERSION="${WAILS_VERSION:-v2.9.2}"
XTOOLS_VERSION="${XTOOLS_VERSION:-v0.52.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.bin"
# shellcheck source=lib.sh
source "$root/scripts/lib.sh"

if tool_is_current wails "$WAILS_VERSION"; then
  exit 0
fi

echo "==> building the Wails CLI $WAILS_VERSION into .bin/ (about a minute the first time)"
mkdir -p "$bin"
tmp="$(mktemp -d)"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

go mod download "github.com/wailsapp/wails/v2@$WAILS_VERSION"
cp -r "$(go env GOMODCACHE)/github.com/wailsapp/wails/v2@$WAILS_VERSION" "$tmp/wails"
chmod -R u+w "$tmp/wails"
(
  cd "$tmp/wails"
  GOFLAGS=-mod=mod go get "golang.org/x/tools@$XTOOLS_VERSION" >/dev/null 2>&1
  GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1
  go build -o "$bin/wails" ./cmd/wails
)
tool_stamp wails "$WAILS_VERSION"
echo "==> .bin/wails $("$bin/wails" version 2>/dev/null || echo built)"
