#!/usr/bin/env bash
# make package-test: proves the packages install, launch and uninstall on
# this machine.
#   The .deb: dpkg -i; `agentdeck version` prints the package's version; the
#   installed desktop entry passes desktop-file-validate; the app started by
#   the entry's Exec line under Xvfb (with a throwaway HOME) shows its window
#   with the app's icon (xprop _NET_WM_ICON), screenshot in
#   build/package-test/; dpkg -r leaves nothing of the package, and the
#   user's data where it was.
#   The tarball: install.sh into a throwaway HOME, the same checks of what
#   it wrote, and install.sh --uninstall.
# It refuses to run where an agentdeck package is already installed, and
# removes what it installed whatever happens. Needs root or password-less
# sudo for dpkg.
# Usage: scripts/package-test.sh VERSION
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
version="${1:?usage: package-test.sh VERSION}"
deb="build/package/agentdeck_${version}_amd64.deb"
tarball="build/package/agentdeck-$version-linux-amd64.tar.gz"
out="$root/build/package-test"

fail() { echo "package-test: FAIL: $*" >&2; exit 1; }
step() { printf '==> %s\n' "$*"; }

[[ -f "$deb" && -f "$tarball" ]] || fail "no packages for $version in build/package: run make package"
(cd build/package && sha256sum --quiet -c SHA256SUMS) || fail "build/package/SHA256SUMS does not match the packages"

if [[ "${PACKAGE_TEST_INNER:-}" != 1 ]]; then
  if [[ $(id -u) -eq 0 ]]; then
    sudo=""
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo="sudo"
  else
    fail "installing the .deb needs root or password-less sudo; run it as root: sudo make package-test"
  fi
  if dpkg-query -W -f='${Status}' agentdeck 2>/dev/null | grep -q "installed"; then
    fail "an agentdeck package is already installed ($(dpkg-query -W -f='${Version}' agentdeck)); this test installs and removes its own, so it will not touch that one. Remove it first (sudo dpkg -r agentdeck), or run this on another machine."
  fi
  exec env PACKAGE_TEST_INNER=1 SUDO="$sudo" xvfb-run -a -s "-screen 0 1280x800x24" bash "$0" "$version"
fi
sudo="${SUDO:-}"

rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d)"
home="$work/home"
mkdir -p "$home"
installed=0
app=""
wm=""
cleanup() {
  for p in $app $wm; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if ((installed)); then $sudo dpkg -r agentdeck >/dev/null 2>&1 || echo "package-test: could not remove the agentdeck package: run sudo dpkg -r agentdeck" >&2; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Every file the package holds; none may exist before it is installed.
mapfile -t files < <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}')
((${#files[@]} >= 10)) || fail "the .deb holds only ${#files[@]} files"
for f in "${files[@]}"; do
  [[ ! -e "$f" ]] || fail "$f exists though no agentdeck package is installed; remove it first, this test will not overwrite it"
done

step "dpkg -i $(basename "$deb")"
installed=1
$sudo dpkg -i "$deb" >"$out/dpkg-install.log" 2>&1 || { cat "$out/dpkg-install.log" >&2; fail "dpkg -i failed"; }
[[ "$(dpkg-query -W -f='${Version}' agentdeck)" == "$version" ]] || fail "dpkg says version $(dpkg-query -W -f='${Version}' agentdeck), not $version"
for f in "${files[@]}"; do [[ -e "$f" ]] || fail "$f is missing after dpkg -i"; done
shown="$(env -u DISPLAY HOME="$home" /usr/bin/agentdeck version)"
[[ "$(awk '{print $2}' <<<"$shown")" == "$version" ]] || fail "/usr/bin/agentdeck version printed '$shown', not $version"
desktop-file-validate /usr/share/applications/agentdeck.desktop || fail "desktop-file-validate refused the installed entry"

# Start it as a desktop would: the entry's Exec line (field codes such as %U
# dropped), in a throwaway HOME so the database goes to its default place.
exec_line="$(sed -n 's/^Exec=//p' /usr/share/applications/agentdeck.desktop | head -1 | sed 's/ *%[fFuUick]//g')"
[[ -n "$exec_line" ]] || fail "the installed entry has no Exec line"
# A window manager draws the title bar and task bar with the window's icon,
# so the screenshot shows what a user sees.
HOME="$home" icewm >"$out/wm.log" 2>&1 &
wm=$!
step "starting '$exec_line' as the desktop entry says"
ready="$work/ready.json"
(
  cd "$home"
  exec env -i DISPLAY="$DISPLAY" HOME="$home" PATH=/usr/bin:/bin XAUTHORITY="${XAUTHORITY:-}" \
    AGENTDECK_READY_FILE="$ready" sh -c "exec $exec_line"
) >"$out/app.log" 2>&1 &
app=$!
for _ in $(seq 1 1200); do
  [[ -s "$ready" ]] && break
  kill -0 "$app" 2>/dev/null || { cat "$out/app.log" >&2; fail "the installed app exited before its window was ready"; }
  sleep 0.1
done
[[ -s "$ready" ]] || { cat "$out/app.log" >&2; fail "the installed app's window was not ready within 120 s"; }
grep -q "\"version_shown\":\"v$version\"" "$ready" || fail "the installed app shows another version: $(cat "$ready")"
wid="$(xdotool search --sync --onlyvisible --name '^Agentdeck$' | head -1)"
[[ -n "$wid" ]] || fail "no window titled Agentdeck"
wm_class="$(xprop -id "$wid" WM_CLASS)"
grep -q '"agentdeck"' <<<"$wm_class" || fail "the window's WM_CLASS ($wm_class) does not match the entry's StartupWMClass=agentdeck"
wm_icon="$(xprop -id "$wid" -f _NET_WM_ICON 32c ' = $0, $1\n' _NET_WM_ICON 2>&1)"
[[ "$wm_icon" == "_NET_WM_ICON(CARDINAL) = 256, 256" ]] || fail "the installed app's window has no 256 px icon: $wm_icon"
sleep 0.5 # let the first paint settle after the ready report
import -window root "$out/installed-window.png"
data="$home/.local/share/agentdeck/agentdeck.db"
[[ -s "$data" ]] || fail "the installed app made no database at $data"
kill "$app"
wait "$app" 2>/dev/null || true
app=""

step "dpkg -r agentdeck"
$sudo dpkg -r agentdeck >"$out/dpkg-remove.log" 2>&1 || { cat "$out/dpkg-remove.log" >&2; fail "dpkg -r failed"; }
installed=0
if dpkg-query -W -f='${Status}' agentdeck 2>/dev/null | grep -q "ok installed"; then fail "dpkg still lists agentdeck as installed"; fi
for f in "${files[@]}"; do [[ ! -e "$f" ]] || fail "$f is left after dpkg -r"; done
[[ -s "$data" ]] || fail "dpkg -r took the user's data ($data) with it"

step "the tarball's install.sh"
tar -C "$work" -xzf "$tarball"
dir="$work/agentdeck-$version-linux-amd64"
HOME="$home" XDG_DATA_HOME="" sh "$dir/install.sh" >"$out/install-sh.log"
local_files=(.local/bin/agentdeck .local/share/applications/agentdeck.desktop
  .local/share/icons/hicolor/256x256/apps/agentdeck.png .local/share/icons/hicolor/scalable/apps/agentdeck.svg)
for f in "${local_files[@]}"; do [[ -e "$home/$f" ]] || fail "install.sh did not write ~/$f"; done
[[ "$("$home/.local/bin/agentdeck" version | awk '{print $2}')" == "$version" ]] || fail "the tarball's binary is not $version"
desktop-file-validate "$home/.local/share/applications/agentdeck.desktop" || fail "desktop-file-validate refused install.sh's entry"
grep -qx "Exec=$home/.local/bin/agentdeck" "$home/.local/share/applications/agentdeck.desktop" || fail "install.sh's entry does not run ~/.local/bin/agentdeck"
HOME="$home" XDG_DATA_HOME="" sh "$dir/install.sh" --uninstall >>"$out/install-sh.log"
left="$(cd "$home" && find .local -type f ! -path '.local/share/agentdeck/*' | sort)"
[[ -z "$left" ]] || fail "install.sh --uninstall left: $left"
[[ -s "$data" ]] || fail "install.sh --uninstall took the user's data with it"

echo "package-test: ok: $version installed with dpkg (${#files[@]} files), launched from its desktop entry with its icon, removed with only the user's data left; the tarball installed into ~/.local and uninstalled; screenshot $out/installed-window.png"
