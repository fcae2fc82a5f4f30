#!/usr/bin/env bash
# Builds the Temporal CLI (temporalio/cli, with its embedded dev server:
# `temporal server start-dev`) into .bin/temporal, once per version. It is
# a large program: 4m42s on 2 cores the first time, a 252 MB binary.
#
# v1.5.1, not v1.9.1: v1.9.1's go.mod replaces its nested module
# github.com/temporalio/cli/cliext with ./cliext, which `go install @version`
# refuses and which the module proxy here does not serve; v1.5.1 has no
# replace and builds (Temporal Server 1.29.1; `temporal server start-dev`).
set -euo pipefail

TEMPORAL_VERSION="${TEMPORAL_VERSION:-v1.5.1}"
exec bash "$(dirname "$0")/install-go-tool.sh" "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION" temporal \
  "the Temporal CLI: about 5 minutes the first time"
