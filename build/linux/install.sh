#!/bin/sh
# Installs Agentdeck from this folder for you alone, with no root: the
# binary in ~/.local/bin, the desktop entry and icons in ~/.local/share.
#   ./install.sh              install (or update)
#   ./install.sh --uninstall  remove them again; your data stays (see INSTALL.md)
# PREFIX=/some/where ./install.sh installs under another prefix.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
if [ -n "${PREFIX:-}" ]; then
  bindir="$PREFIX/bin" share="$PREFIX/share"
else
  bindir="$HOME/.local/bin" share="${XDG_DATA_HOME:-$HOME/.local/share}"
fi
apps="$share/applications"
icons="$share/icons/hicolor"
sizes="16x16 24x24 32x32 48x48 64x64 128x128 256x256 512x512"

# An icon cache that exists must be brought up to date, or the menu shows
# no icon; where there is none, icons are found without one, so none is
# made. (The entry has no MimeType, so there is no mimeinfo.cache to update.)
refresh() {
  if [ -f "$icons/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t "$icons" 2>/dev/null || true
  fi
}

if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$bindir/agentdeck" "$apps/agentdeck.desktop" "$icons/scalable/apps/agentdeck.svg"
  for s in $sizes; do rm -f "$icons/$s/apps/agentdeck.png"; done
  refresh
  echo "Agentdeck is removed. Your sessions are still in ~/.local/share/agentdeck (delete that folder to remove them too)."
  exit 0
fi
[ $# -eq 0 ] || { echo "usage: $0 [--uninstall]" >&2; exit 2; }

mkdir -p "$bindir" "$apps" "$icons/scalable/apps"
install -m 0755 "$here/agentdeck" "$bindir/agentdeck"
# The entry names the binary by its full path: ~/.local/bin is not on every
# desktop session's PATH.
sed "s|^Exec=agentdeck|Exec=$bindir/agentdeck|" "$here/agentdeck.desktop" > "$apps/agentdeck.desktop"
chmod 0644 "$apps/agentdeck.desktop"
for s in $sizes; do
  mkdir -p "$icons/$s/apps"
  install -m 0644 "$here/icons/hicolor/$s/apps/agentdeck.png" "$icons/$s/apps/agentdeck.png"
done
install -m 0644 "$here/icons/hicolor/scalable/apps/agentdeck.svg" "$icons/scalable/apps/agentdeck.svg"
refresh
echo "Agentdeck $("$bindir/agentdeck" version | cut -d' ' -f2) is installed: find it in your applications menu, or run $bindir/agentdeck"
