#!/usr/bin/env bash
# make package: Agentdeck's packages, into build/package/:
#   agentdeck_<version>_amd64.deb           (nfpm; build/linux/nfpm.yaml)
#   agentdeck-<version>-linux-amd64.tar.gz  (binary, desktop entry, icons, INSTALL)
#   agentdeck-<version>-windows-amd64.exe   (cross-compiled, no cgo; icon,
#                                            manifest and version resources)
#   SHA256SUMS
# Usage: scripts/package.sh VERSION COMMIT
# The Linux binary is make build's (build/bin/agentdeck, which
# build/linux/nfpm.yaml names), stamped with the same version.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

version="${1:?usage: package.sh VERSION COMMIT}"
commit="${2:?usage: package.sh VERSION COMMIT}"
bin=build/bin/agentdeck
out=build/package
pkg="github.com/agentdeck/agentdeck/backend/buildinfo"

fail() { echo "package: $*" >&2; exit 1; }
step() { printf '==> %s\n' "$*"; }

[[ -x "$bin" ]] || fail "no binary at $bin: run make build first"
shown="$("$bin" version | awk '{print $2}')"
[[ "$shown" == "$version" ]] || fail "$bin is version $shown, not $version: run make build again"

rm -rf "$out"
mkdir -p "$out"
bash scripts/install-nfpm.sh

# The .deb. Its Depends are what the binary links, as Debian's own tool
# reads them (dpkg-shlibdeps looks up which package holds each library).
step "the .deb"
shlib="$(mktemp -d)"
syso="$root/rsrc_windows_amd64.syso"
trap 'rm -rf "$shlib" "$syso"' EXIT
mkdir -p "$shlib/debian"
echo "Source: agentdeck" > "$shlib/debian/control"
cp "$bin" "$shlib/agentdeck"
depends="$(cd "$shlib" && dpkg-shlibdeps -O agentdeck 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[[ "$depends" == *libwebkit2gtk-4.1-0* && "$depends" == *libgtk-3-0* ]] \
  || fail "dpkg-shlibdeps did not find WebKitGTK 4.1 and GTK 3 among the binary's libraries: '$depends'"
maintainer="${MAINTAINER:-}"
if [[ -z "$maintainer" && -n "${DEBEMAIL:-}" ]]; then
  maintainer="${DEBFULLNAME:-Agentdeck maintainers} <$DEBEMAIL>"
fi
if [[ -z "$maintainer" ]] && git config user.email >/dev/null 2>&1; then
  maintainer="$(git config user.name || echo Agentdeck maintainers) <$(git config user.email)>"
fi
[[ -n "$maintainer" ]] || maintainer="$(git log -1 --format='%an <%ae>')"
# Debian wants a changelog, even for a package built from its own source:
# one entry, this build, from its commit.
mkdir -p "$out/.stage"
{
  printf 'agentdeck (%s) unstable; urgency=medium\n\n' "$version"
  printf '  * Built from commit %s.\n\n' "$commit"
  printf ' -- %s  %s\n' "$maintainer" "$(git log -1 --format=%cD)"
} | gzip -9n > "$out/.stage/changelog.gz"
# A manual page from the binary's own usage text, so `man agentdeck` says
# what `agentdeck help` does.
{
  printf '.TH AGENTDECK 1 "%s" "agentdeck %s" "User Commands"\n' "$(git log -1 --format=%cs)" "$version"
  printf '.SH NAME\nagentdeck \\- local workbench for LLM agents and workflows\n'
  printf '.SH SYNOPSIS\n.nf\n'
  env -u DISPLAY "$bin" help | sed -e 's/\\/\\\\/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\&&/"
  printf '.fi\n.SH DESCRIPTION\n'
  printf 'Agentdeck runs LLM agents and multi\\-stage workflows against any OpenAI\\-compatible model, '
  printf 'streams every step, and keeps every session, turn and model call in one SQLite file '
  printf 'to review, search, export and replay offline.\n'
  printf '.SH FILES\n.TP\n.I ~/.local/share/agentdeck/agentdeck.db\n'
  printf 'the database (\\fB$XDG_DATA_HOME/agentdeck\\fR if set); the log, workflows and MCP servers are beside it. '
  printf 'Removing the package leaves it.\n'
  printf '.SH ENVIRONMENT\n.TP\n.B AGENTDECK_DB\nthe database file, as \\fB\\-\\-db\\fR.\n'
} | gzip -9n > "$out/.stage/agentdeck.1.gz"
VERSION="$version" DEPENDS="$depends" MAINTAINER="$maintainer" \
  .bin/nfpm package --config build/linux/nfpm.yaml --packager deb --target "$out/" >/dev/null
rm -rf "$out/.stage"
deb="$out/agentdeck_${version}_amd64.deb"
[[ -f "$deb" ]] || fail "nfpm wrote no $deb: $(ls "$out")"

# The tarball: what a user installs by hand, or with its install.sh into
# ~/.local (no root).
step "the tarball"
name="agentdeck-$version-linux-amd64"
stage="$shlib/$name"
mkdir -p "$stage"
cp "$bin" "$stage/agentdeck"
cp build/linux/agentdeck.desktop "$stage/"
cp -r build/linux/icons "$stage/icons"
cp build/linux/icons/hicolor/256x256/apps/agentdeck.png "$stage/agentdeck.png"
cp build/linux/install.sh build/linux/INSTALL.md "$stage/"
chmod 0755 "$stage/agentdeck" "$stage/install.sh"
tar -C "$shlib" --owner=0 --group=0 --sort=name -czf "$out/$name.tar.gz" "$name"

# The Windows .exe: no cgo (modernc SQLite, go-keyring's wincred), and the
# resources Wails' own build gives it, from build/windows.
step "the Windows .exe"
exe="$out/agentdeck-$version-windows-amd64.exe"
go run ./scripts/winres syso -version "$version" -numeric "$(bash scripts/version.sh --numeric)" -out "$syso"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -tags desktop,production \
  -ldflags "-s -w -H windowsgui -X $pkg.Version=$version -X $pkg.Commit=$commit" -o "$exe" .
rm -f "$syso"
go run ./scripts/winres check -version "$version" "$exe"

step "SHA256SUMS"
(cd "$out" && sha256sum -- *.deb *.tar.gz *.exe > SHA256SUMS)
ls -l "$out"
echo "package: $version in $out"
