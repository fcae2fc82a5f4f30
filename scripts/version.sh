#!/usr/bin/env bash
# Prints Agentdeck's version, the one the binary, `agentdeck version`, the
# About box, exports and every package carry. From git:
#   on a tag vX.Y.Z          X.Y.Z
#   after a tag vX.Y.Z       X.Y.Z+git<YYYYMMDD>.<sha>   (sorts after X.Y.Z)
#   with no tag              0.0.0~git<YYYYMMDD>.<sha>   (sorts before 0.0.0)
# <YYYYMMDD> is the commit's date in UTC, so a commit always gets the same
# version; a tree with uncommitted changes adds ".dirty". A Debian version
# must start with a digit, hence 0.0.0 rather than the bare hash.
#   --numeric   X.Y.Z alone (0.0.0 untagged): Windows' file version fields
#   --commit    the commit's 12-character hash
set -euo pipefail
cd "$(dirname "$0")/.."

if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  # A source tree without its history: still a valid Debian version.
  case "${1:-}" in
    --numeric) echo 0.0.0 ;;
    --commit) echo unknown ;;
    *) echo 0.0.0~src ;;
  esac
  exit 0
fi

sha="$(git rev-parse --short=7 HEAD)"
tag="$(git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || true)"
base="${tag#v}"
[[ "$base" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || base=""

case "${1:-}" in
  --numeric) echo "${base:-0.0.0}"; exit 0 ;;
  --commit) git rev-parse --short=12 HEAD; exit 0 ;;
  "") ;;
  *) echo "usage: $0 [--numeric|--commit]" >&2; exit 2 ;;
esac

date="$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d HEAD)"
if [[ -n "$base" && "$(git rev-list -n1 "$tag")" == "$(git rev-parse HEAD)" ]]; then
  version="$base"
elif [[ -n "$base" ]]; then
  version="$base+git$date.$sha"
else
  version="0.0.0~git$date.$sha"
fi
if ! git diff --quiet HEAD -- 2>/dev/null; then
  version="$version.dirty"
fi
echo "$version"
