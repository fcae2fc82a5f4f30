#!/usr/bin/env bash
# Builds a Go command into .bin/, once per version:
#
#   install-go-tool.sh PACKAGE@VERSION NAME [NOTE]
#
# PACKAGE@VERSION is what `go install` takes; NAME is the binary it makes
# (.bin/NAME); NOTE is said in brackets as it is built (what it is, how
# long that takes). A stamp .bin/.NAME-VERSION says which version .bin/NAME
# is: with the stamp and the binary there nothing is done, and another
# VERSION builds it again and replaces the stamp. install-nfpm.sh and
# install-temporal.sh pin their tool's version and call this.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 || "$1" != *@* ]]; then
  echo "usage: $0 PACKAGE@VERSION NAME [NOTE]" >&2
  exit 2
fi
pkg="$1"
name="$2"
note="${3:-}"
version="${pkg##*@}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.bin"
# shellcheck source=lib.sh
source "$root/scripts/lib.sh"

if tool_is_current "$name" "$version"; then
  exit 0
fi
echo "==> building .bin/$name $version${note:+ ($note)}"
mkdir -p "$bin"
GOBIN="$bin" go install "$pkg"
if [[ ! -x "$bin/$name" ]]; then
  echo "$0: go install $pkg made no .bin/$name" >&2
  exit 1
fi
tool_stamp "$name" "$version"
