#!/usr/bin/env bash
# Browser end-to-end tests: starts the scripted model (fakellm) and the
# release binary in browser mode (`agentdeck serve`) on a fresh database,
# then runs the Playwright tests in frontend/e2e in Debian's Chromium.
#
#   bash scripts/e2e.sh [path/to/agentdeck] [playwright args...]
#
# The database has five providers: "fake" (fakellm, the default), "dead"
# (a closed port, for the unreachable-server test), "second" (a second
# fakellm, with the model second-model, that answers "whoami" as second),
# and two more on the first fakellm for the usage tests: "small", whose
# model has a 2,000-token window and a price (the context meter's warnings,
# costs), and "capped", priced high with a $0.10 monthly budget that asks
# (the budget's warning and Send anyway).
# Named screenshots, failure screenshots and traces, and the servers' logs
# go to build/e2e/. Everything started here is stopped on exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/bin/agentdeck"
if [[ $# -gt 0 && "$1" != -* ]]; then bin="$1"; shift; fi
bin="$(realpath "$bin")"
out="$root/build/e2e"

fail() { echo "e2e: FAIL: $*" >&2; exit 1; }

[[ -x "$bin" ]] || fail "no agentdeck binary at $bin: run 'make build' first"
[[ -x /usr/bin/chromium ]] || fail "/usr/bin/chromium is missing: run 'make setup' (apt-get install chromium)"
[[ -d "$root/frontend/node_modules/@playwright/test" ]] || fail "@playwright/test is not installed: run 'make setup' (npm ci in frontend)"

rm -rf "$out"
mkdir -p "$out"
# shellcheck source=lib.sh
source "$root/scripts/lib.sh"
start_work

# waitfor FILE PID WHAT: until FILE has content, while PID lives (10 s).
waitfor() {
  for _ in $(seq 1 100); do
    [[ -s "$1" ]] && return 0
    kill -0 "$2" 2>/dev/null || fail "$3 exited early; see $out"
    sleep 0.1
  done
  fail "$3 did not start within 10 s; see $out"
}

start=$(date +%s)

# The scripted model.
(cd "$root" && go build -o "$work/fakellm" ./backend/llm/llmtest/cmd/fakellm)
"$work/fakellm" >"$work/fakellm.url" 2>"$out/fakellm.log" &
pids+=($!)
waitfor "$work/fakellm.url" "${pids[-1]}" fakellm
model_url="$(head -1 "$work/fakellm.url")"

# A second scripted model, for the tests that run on another provider.
"$work/fakellm" -name second -models second-model >"$work/second.url" 2>"$out/second.log" &
pids+=($!)
waitfor "$work/second.url" "${pids[-1]}" "the second fakellm"
second_url="$(head -1 "$work/second.url")"

# A port nothing listens on: take a free one and let it go.
dead_port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

# Everything the app keeps (database, workflows/, mcp.json, secrets) in $work.
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
db="$work/data/agentdeck.db"
mkdir -p "$work/data"
"$bin" providers add fake --db "$db" --base-url "$model_url" --model smoke-model --default 2>/dev/null
"$bin" providers add dead --db "$db" --base-url "http://127.0.0.1:$dead_port/v1" --model dead-model 2>/dev/null
"$bin" providers add second --db "$db" --base-url "$second_url" --model second-model 2>/dev/null
# Their own providers, so the default one's window and cost stay as the other tests expect.
"$bin" providers add small --db "$db" --base-url "$model_url" --model smoke-model --window 2000 --price 2.5,10 2>/dev/null
"$bin" providers add capped --db "$db" --base-url "$model_url" --model smoke-model --price 250,1000 --budget 0.1 --over ask 2>/dev/null

# Port 0: the kernel picks a free port and serve prints the URL it got.
"$bin" serve --db "$db" --addr 127.0.0.1:0 >"$work/serve.out" 2>"$out/serve.log" &
pids+=($!)
for _ in $(seq 1 100); do
  grep -q 'token=' "$work/serve.out" 2>/dev/null && break
  kill -0 "${pids[-1]}" 2>/dev/null || { cat "$out/serve.log" >&2; fail "agentdeck serve exited early"; }
  sleep 0.1
done
url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*' "$work/serve.out" | head -1 || true)"
[[ -n "$url" ]] || { cat "$work/serve.out" "$out/serve.log" >&2; fail "agentdeck serve printed no URL with a token"; }
echo "e2e: model at $model_url, app at ${url%%\?*}"

export E2E_URL="$url" E2E_DB="$db" E2E_BIN="$bin" E2E_OUT="$out" E2E_CHROMIUM=/usr/bin/chromium E2E_MODEL_URL="$model_url"
code=0
(cd "$root/frontend" && npx playwright test "$@") || code=$?
echo "e2e: $(( $(date +%s) - start )) s; screenshots and logs in $out"
exit "$code"
