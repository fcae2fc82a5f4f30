#!/usr/bin/env bash
# Installs whatever a fresh Debian/Ubuntu machine lacks to build, test and run
# Agentdeck: system packages (apt, as root or through sudo), Go modules, npm
# packages and the Wails CLI in .bin/. Each step is skipped when it is done.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# Packages for the desktop build (WebKitGTK 4.1), the window smoke test
# (Xvfb, ImageMagick, xdotool, xclip, xprop), the browser tests (Debian's
# Chromium), and make package and its install test (dpkg-shlibdeps from
# dpkg-dev, desktop-file-validate, and a window manager, IceWM, that shows
# the installed window's icon).
apt_packages=(
  libgtk-3-dev libwebkit2gtk-4.1-dev pkg-config build-essential
  xvfb xauth imagemagick xdotool xclip x11-utils
  chromium chromium-driver fonts-noto-color-emoji
  dpkg-dev desktop-file-utils icewm
)

step() { printf '==> %s\n' "$*"; }

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    sudo=""
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo="sudo"
  else
    echo "agentdeck setup: these system packages are missing: ${missing[*]}" >&2
    echo "Install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}) and run make again." >&2
    exit 1
  fi
  step "installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

for tool in go node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "agentdeck setup: '$tool' is not on PATH. Install Go 1.26+ and Node.js 20+ and run make again." >&2
    exit 1
  fi
done

step "Go modules"
go mod download
(cd scale && go mod download)

# npm ci only when the lock file changed since the last install.
lock_sum="$(sha256sum frontend/package-lock.json | cut -d' ' -f1)"
if [[ ! -f frontend/node_modules/.lock-sum || "$(cat frontend/node_modules/.lock-sum)" != "$lock_sum" ]]; then
  step "npm packages"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_sum" > frontend/node_modules/.lock-sum
fi

bash scripts/install-wails.sh
