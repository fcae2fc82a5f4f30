#!/usr/bin/env bash
# Window smoke test: launches the release binary under Xvfb, waits until the
# page reports that its shell rendered and that a bound Go method answered,
# takes a screenshot (build/smoke/window.png) and checks it is the app's shell
# and not a blank or template page.
set -euo pipefail
bin="$(realpath "${1:?usage: smoke.sh path/to/agentdeck}")"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/build/smoke"
mkdir -p "$out"

fail() { echo "smoke: FAIL: $*" >&2; exit 1; }

# `version` must work with no display at all.
want_version="$(env -u DISPLAY -u WAYLAND_DISPLAY "$bin" version | awk '{print $2}')"
[[ -n "$want_version" ]] || fail "'agentdeck version' printed nothing"

if [[ "${SMOKE_INNER:-}" != 1 ]]; then
  exec env SMOKE_INNER=1 xvfb-run -a -s "-screen 0 1280x800x24" bash "$0" "$bin"
fi

work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
ready="$work/ready.json"

start=$(date +%s%N)
AGENTDECK_READY_FILE="$ready" "$bin" --db "$work/agentdeck.db" >"$out/app.log" 2>&1 &
pid=$!

for _ in $(seq 1 300); do
  [[ -s "$ready" ]] && break
  kill -0 "$pid" 2>/dev/null || { cat "$out/app.log" >&2; fail "the app exited before its UI was ready"; }
  sleep 0.1
done
[[ -s "$ready" ]] || { cat "$out/app.log" >&2; fail "the UI did not report ready within 30 s"; }
ready_ms=$(( ($(date +%s%N) - start) / 1000000 ))

xdotool search --sync --onlyvisible --name '^Agentdeck$' >/dev/null || fail "no window titled Agentdeck"
sleep 0.5 # let the first paint settle after the ready report
import -window root "$out/window.png"

report="$(cat "$ready")"
echo "smoke: ready after ${ready_ms} ms: $report"
grep -q "\"version_shown\":\"v$want_version\"" <<<"$report" \
  || fail "the UI shows a version other than the binary's (v$want_version): $report"
for region in sidebar main composer; do
  grep -q "\"$region\"" <<<"$report" || fail "the $region region did not render: $report"
done

# The picture must be the shell: many colours (text, not a blank page), and a
# sidebar whose background differs from the main pane's.
colours=$(convert "$out/window.png" -format '%k' info:)
(( colours > 40 )) || fail "the screenshot has only $colours colours; the window looks blank"
side=$(convert "$out/window.png" -format '%[pixel:p{136,420}]' info:)
main=$(convert "$out/window.png" -format '%[pixel:p{1100,300}]' info:)
[[ "$side" != "$main" ]] || fail "sidebar and main pane have the same colour ($side); the shell did not render"

echo "smoke: ok: version v$want_version shown, $colours colours, sidebar $side, main $main; screenshot $out/window.png"
