#!/usr/bin/env bash
# Window smoke test: launches the release binary under Xvfb against a
# scripted model server (fakellm), checks the shell rendered and the version
# it shows came from Go, then drives one real turn through the window
# (Ctrl+N, type, Enter): a plan, a Vega-Lite chart and a streamed markdown
# answer. It checks the turn was stored completed with its chart. Then it
# pastes an image copied by another program (xclip) into a new session and
# sends it: WebKitGTK hands such a paste to the page empty, and the backend
# reads the clipboard itself. Then an HTML artifact whose script must run
# in its sealed frame, and a Mermaid diagram. It saves screenshots of the
# shell, the conversation, the diagnostics panel, the image sent, the
# artifact and the diagram in build/smoke/.
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

# shellcheck source=lib.sh
source "$root/scripts/lib.sh"
start_work
db="$work/agentdeck.db"

# The scripted model and a provider pointing at it.
(cd "$root" && go build -o "$work/fakellm" ./backend/llm/llmtest/cmd/fakellm)
"$work/fakellm" >"$work/fakellm.url" 2>"$out/fakellm.log" &
pids+=($!)
for _ in $(seq 1 600); do [[ -s "$work/fakellm.url" ]] && break; sleep 0.1; done
url="$(cat "$work/fakellm.url")"
"$bin" providers add fake --db "$db" --base-url "$url" --model smoke-model --default 2>/dev/null

ready="$work/ready.json"
start=$(date +%s%N)
AGENTDECK_READY_FILE="$ready" "$bin" --db "$db" >"$out/app.log" 2>&1 &
pid=$!
pids+=($pid)

for _ in $(seq 1 1200); do
  [[ -s "$ready" ]] && break
  kill -0 "$pid" 2>/dev/null || { cat "$out/app.log" >&2; fail "the app exited before its UI was ready"; }
  sleep 0.1
done
[[ -s "$ready" ]] || { cat "$out/app.log" >&2; fail "the UI did not report ready within 120 s"; }
ready_ms=$(( ($(date +%s%N) - start) / 1000000 ))

wid="$(xdotool search --sync --onlyvisible --name '^Agentdeck$' | head -1)"
[[ -n "$wid" ]] || fail "no window titled Agentdeck"
# The window carries the app's icon (build/linux/icons/.../256x256), not GTK's default.
wm_icon="$(xprop -id "$wid" -f _NET_WM_ICON 32c ' = $0, $1\n' _NET_WM_ICON 2>&1)"
[[ "$wm_icon" == "_NET_WM_ICON(CARDINAL) = 256, 256" ]] || fail "the window has no 256 px icon: $wm_icon"
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

# One real turn through the window: new session, type, Enter.
xdotool windowactivate --sync "$wid" 2>/dev/null || true
xdotool windowfocus --sync "$wid"
xdotool key --window "$wid" ctrl+n
sleep 0.5
xdotool type --delay 15 "Chart revenue by region for Q3"
xdotool key Return

state=""
for _ in $(seq 1 1200); do
  sid="$("$bin" sessions list --db "$db" --json | grep -o '"id": "[^"]*"' | head -1 | cut -d'"' -f4 || true)"
  if [[ -n "$sid" ]]; then
    show="$("$bin" sessions show "$sid" --db "$db" --json)"
    state="$(grep -o '"state": "[^"]*"' <<<"$show" | head -1 | cut -d'"' -f4 || true)"
    [[ "$state" == "completed" || "$state" == "failed" || "$state" == "cancelled" ]] && break
  fi
  sleep 0.1
done
[[ "$state" == "completed" ]] || { cat "$out/app.log" >&2; fail "the turn typed into the window did not complete (state '$state')"; }
turn="$(grep -o '"id": "[^"]*"' <<<"$show" | sed -n 2p | cut -d'"' -f4)"
detail="$("$bin" turns show "$turn" --db "$db" --json --events)"
grep -q '"type": "chart"' <<<"$detail" || fail "the turn has no chart event"
grep -q '"type": "plan_generated"' <<<"$detail" || fail "the turn has no plan"
# Vega-Lite's default bar colour (#4c78a8) must come on screen: the chart
# drew. It renders after the turn ends, in its own time: look until it is
# there (a loaded machine takes longer; the bound only ends a hang).
bars=0
for _ in $(seq 1 120); do
  import -window root "$out/conversation.png"
  bars=$(convert "$out/conversation.png" -fill black +opaque 'rgb(76,120,168)' -fill white -opaque 'rgb(76,120,168)' -format '%[fx:int(mean*w*h)]' info:)
  (( bars > 500 )) && break
  sleep 0.5
done
(( bars > 500 )) || fail "no chart bars on screen ($bars pixels of the bar colour)"

xdotool key --window "$wid" ctrl+shift+d
diff_px=0
for _ in $(seq 1 120); do
  import -window root "$out/diagnostics.png"
  diff_px=$(compare -metric AE "$out/conversation.png" "$out/diagnostics.png" null: 2>&1 || true)
  (( ${diff_px%.*} > 10000 )) && break
  sleep 0.5
done
(( ${diff_px%.*} > 10000 )) || fail "the diagnostics panel did not open ($diff_px pixels changed)"

# An image pasted into the window: copied by another program, as a
# screenshot tool does, then Ctrl+V in a new session's composer.
convert -size 320x200 gradient:'#4c78a8-#f58518' "$work/clip.png"
xclip -quiet -selection clipboard -t image/png -i "$work/clip.png" >"$work/xclip.log" 2>&1 &
pids+=($!)
xdotool key --window "$wid" ctrl+shift+d # the diagnostics panel closes
xdotool key --window "$wid" ctrl+n
sleep 0.5
xdotool key --window "$wid" ctrl+v
xdotool type --delay 15 "What does this picture show?"
xdotool key Return
image_sid=""
for _ in $(seq 1 1200); do
  image_sid="$("$bin" sessions list --db "$db" --json | grep -o '"id": "[^"]*"' | head -1 | cut -d'"' -f4 || true)"
  if [[ -n "$image_sid" && "$image_sid" != "$sid" ]]; then
    show="$("$bin" sessions show "$image_sid" --db "$db" --json)"
    state="$(grep -o '"state": "[^"]*"' <<<"$show" | head -1 | cut -d'"' -f4 || true)"
    [[ "$state" == "completed" || "$state" == "failed" || "$state" == "cancelled" ]] && break
  fi
  sleep 0.1
done
[[ "$image_sid" != "$sid" && "$state" == "completed" ]] || { cat "$out/app.log" >&2; fail "the message with a pasted image did not complete (state '$state')"; }
sent="$("$bin" sessions export "$image_sid" --db "$db" --format json)"
grep -q '"name": "pasted-image.png"' <<<"$sent" || fail "the pasted image was not stored with the message: $(head -c 2000 <<<"$sent")"
grep -q "\"sha256\": \"$(sha256sum "$work/clip.png" | cut -d' ' -f1)\"" <<<"$sent" || fail "the image stored is not the bytes copied"
import -window root "$out/image.png"

# A session of its own for an artifact (an HTML page whose script paints
# its last line #12b886) and a Mermaid diagram, drawn by WebKitGTK: the
# browser tests run in Chromium only.
xdotool key --window "$wid" ctrl+n
sleep 0.5
send_and_wait() { # message, then waits for the newest session's newest turn to end
  local before
  before="$("$bin" sessions list --db "$db" --json | grep -c '"id"' || true)"
  xdotool type --delay 15 "$1"
  xdotool key Return
  for _ in $(seq 1 1200); do
    art_sid="$("$bin" sessions list --db "$db" --json | grep -o '"id": "[^"]*"' | head -1 | cut -d'"' -f4 || true)"
    if [[ -n "$art_sid" && "$art_sid" != "$sid" && "$art_sid" != "$image_sid" ]]; then
      show="$("$bin" sessions show "$art_sid" --db "$db" --json)"
      n_done="$(grep -c '"state": "completed"' <<<"$show" || true)"
      (( n_done >= $2 )) && return 0
      grep -q '"state": "failed"' <<<"$show" && break
    fi
    sleep 0.1
  done
  cat "$out/app.log" >&2
  fail "the message '$1' did not complete in the window (sessions before: $before)"
}
send_and_wait "Show artifact v1 in the window" 1
art_turn="$(grep -o '"id": "[^"]*"' <<<"$show" | sed -n 2p | cut -d'"' -f4)"
"$bin" turns show "$art_turn" --db "$db" --json --events | grep -q '"type": "artifact"' || fail "the turn has no artifact event"
xdotool key --window "$wid" ctrl+shift+a
ran=0
for _ in $(seq 1 120); do
  import -window root "$out/artifact.png"
  ran=$(convert "$out/artifact.png" -fill black +opaque 'rgb(18,184,134)' -fill white -opaque 'rgb(18,184,134)' -format '%[fx:int(mean*w*h)]' info:)
  (( ran > 500 )) && break
  sleep 0.5
done
(( ran > 500 )) || fail "the artifact's script did not run in its frame ($ran pixels of the colour it paints)"
xdotool key --window "$wid" ctrl+shift+a # the panel closes
send_and_wait "Draw a mermaid diagram in the window" 2
nodes=0
for _ in $(seq 1 120); do
  import -window root "$out/mermaid.png"
  nodes=$(convert "$out/mermaid.png" -fill black +opaque 'rgb(236,236,255)' -fill white -opaque 'rgb(236,236,255)' -format '%[fx:int(mean*w*h)]' info:)
  (( nodes > 500 )) && break
  sleep 0.5
done
(( nodes > 500 )) || fail "no Mermaid diagram on screen ($nodes pixels of its node colour)"

echo "smoke: ok: version v$want_version shown, $colours colours; a turn with a plan and a chart ($bars bar pixels) completed through the window; an image pasted from another program was sent and stored as copied; an artifact's script ran in its frame ($ran pixels) and a Mermaid diagram drew ($nodes node pixels); screenshots in $out"
