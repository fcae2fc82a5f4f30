#!/usr/bin/env bash
# Builds the Temporal CLI (temporalio/cli, with its embedded dev server:
# `temporal server start-dev`) into .bin/temporal, once per version. It is
# a large program: minutes on 2 cores the first time.
set -euo pipefail

TEMPORAL_VERSION="${TEMPORAL_VERSION:-v1.9.1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.bin"
stamp="$bin/.temporal-$TEMPORAL_VERSION"

if [[ -x "$bin/temporal" && -f "$stamp" ]]; then
  exit 0
fi
echo "==> building the Temporal CLI $TEMPORAL_VERSION into .bin/ (minutes the first time)"
mkdir -p "$bin"
GOBIN="$bin" go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION"
rm -f "$bin"/.temporal-*
touch "$stamp"
