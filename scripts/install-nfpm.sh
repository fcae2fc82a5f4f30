#!/usr/bin/env bash
# Builds nfpm (goreleaser/nfpm, the .deb packager) into .bin/nfpm, once per
# version: about 40 s the first time.
set -euo pipefail

NFPM_VERSION="${NFPM_VERSION:-v2.45.2}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.bin"
stamp="$bin/.nfpm-$NFPM_VERSION"

if [[ -x "$bin/nfpm" && -f "$stamp" ]]; then
  exit 0
fi
echo "==> building nfpm $NFPM_VERSION into .bin/ (under a minute the first time)"
mkdir -p "$bin"
GOBIN="$bin" go install "github.com/goreleaser/nfpm/v2/cmd/nfpm@$NFPM_VERSION"
rm -f "$bin"/.nfpm-*
touch "$stamp"
