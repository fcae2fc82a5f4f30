#!/usr/bin/env bash
# Builds nfpm (goreleaser/nfpm, the .deb packager) into .bin/nfpm, once per
# version: about 40 s the first time.
set -euo pipefail

NFPM_VERSION="${NFPM_VERSION:-v2.45.2}"
exec bash "$(dirname "$0")/install-go-tool.sh" "github.com/goreleaser/nfpm/v2/cmd/nfpm@$NFPM_VERSION" nfpm \
  "the .deb packager: under a minute the first time"
