#!/usr/bin/env bash
# Draws the app's icons from their SVG sources into build/: appicon.png
# (1024 px, what Wails and the window use), the hicolor sizes for Linux
# and icon.ico for Windows. The PNGs and the .ico are committed, so a
# build needs none of this; run it (make icons) after changing an SVG.
# Needs rsvg-convert (librsvg2-bin) and ImageMagick's convert.
set -euo pipefail
cd "$(dirname "$0")/.."
for t in rsvg-convert convert; do
  command -v "$t" >/dev/null || { echo "icons: $t is missing: apt-get install librsvg2-bin imagemagick" >&2; exit 1; }
done
b=build
# src SIZE: the SVG drawn for that size (the small one keeps 16-32 px legible).
src() { if (($1 <= 32)); then echo "$b/appicon-small.svg"; else echo "$b/appicon.svg"; fi; }
rsvg-convert -w 1024 -h 1024 "$b/appicon.svg" -o "$b/appicon.png"
for s in 16 24 32 48 64 128 256 512; do
  d="$b/linux/icons/hicolor/${s}x${s}/apps"
  mkdir -p "$d"
  rsvg-convert -w "$s" -h "$s" "$(src "$s")" -o "$d/agentdeck.png"
done
mkdir -p "$b/linux/icons/hicolor/scalable/apps"
cp "$b/appicon.svg" "$b/linux/icons/hicolor/scalable/apps/agentdeck.svg"
ico=()
for s in 16 24 32 48 64 256; do ico+=("$b/linux/icons/hicolor/${s}x${s}/apps/agentdeck.png"); done
convert "${ico[@]}" "$b/windows/icon.ico"
echo "icons: drawn into $b/"
