#!/usr/bin/env bash
# make bench: runs every Go benchmark of the repo (one package at a time, so
# they do not compete for the 2 cores), the peer comparison (bench/peer, its
# own module), and the desktop measurements (release binary under Xvfb),
# then writes docs/BENCHMARKS.md with bench/report and prints the summary.
#
# Not part of `make test`: nothing here asserts a time. The run takes a few
# minutes; everything it generates lives in one temp dir, removed at the end.
#
#   scripts/bench.sh                       the whole run
#   scripts/bench.sh desktop BIN FLOOR HISTORY_DB OUT [BASE_BIN]
#                                          the desktop part alone (inside Xvfb)
#   scripts/bench.sh ui BIN PEER_TEST UI_DIR OUT
#                                          the browser streaming part alone
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# Benchmarks that run once and repeat inside (200 stops, 100 Stop alls, a 10 s recording,
# a generated 600 MB database, the sidebar's two databases of 10,000
# sessions); every other benchmark runs 5 iterations.
ONCE='^(BenchmarkStopLatency|BenchmarkStopAll|BenchmarkReplay|BenchmarkRerunFromLastStep|BenchmarkHistoryAtScale|BenchmarkSidebar10k)$'
BENCHTIME=5x
PEER_BENCHTIME=10x
# The tree before issue 22, measured in the same run on the figures that
# issue set out to move, so that the report shows before and after as
# ratios from one run on one machine.
BASELINE=${BENCH_BASELINE:-e7df445}
X_SCREEN="-screen 0 1280x800x24"

step() { printf '\n==> %s\n' "$*" >&2; }

# ---------------------------------------------------------------- desktop --

# tree PID: the pid and all its descendants.
tree() {
  ps -e -o pid=,ppid= | awk -v root="$1" '
    { parent[$1] = $2 }
    END {
      want[root] = 1; changed = 1
      while (changed) { changed = 0; for (p in parent) if (!(p in want) && (parent[p] in want)) { want[p] = 1; changed = 1 } }
      for (p in want) print p
    }'
}

# mem PID: "RSS_MB PSS_MB MAIN_MB WEB_MB NET_MB MAIN_PSS_MB WEB_PSS_MB NET_PSS_MB"
# summed over the process tree. RSS counts a library each process maps in
# full in every process; PSS shares it out among them, so the PSS of the
# tree is what the tree costs the machine.
mem() {
  local rss=0 pss=0 main=0 web=0 net=0 mainp=0 webp=0 netp=0 p kb pkb comm
  for p in $(tree "$1"); do
    [[ -r /proc/$p/status ]] || continue
    kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
    kb=${kb:-0}
    pkb=$(awk '/^Pss:/ {print $2; exit}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
    pkb=${pkb:-0}
    rss=$((rss + kb))
    pss=$((pss + pkb))
    comm=$(cat "/proc/$p/comm" 2>/dev/null || true)
    case "$comm" in
      WebKitWebProces*) web=$((web + kb)) webp=$((webp + pkb)) ;;
      WebKitNetworkPr*) net=$((net + kb)) netp=$((netp + pkb)) ;;
      *) [[ $p == "$1" ]] && main=$((main + kb)) mainp=$((mainp + pkb)) ;;
    esac
  done
  awk -v r="$rss" -v p="$pss" -v m="$main" -v w="$web" -v n="$net" -v mp="$mainp" -v wp="$webp" -v np="$netp" \
    'BEGIN { printf "%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", r/1024, p/1024, m/1024, w/1024, n/1024, mp/1024, wp/1024, np/1024 }'
}

# launch BIN READY_FILE LOG [ARGS...]: starts BIN, waits for its ready file
# and sets PID and READY_MS (empty when it never got ready).
launch() {
  local bin=$1 ready=$2 log=$3
  shift 3
  rm -f "$ready"
  local start
  start=$(date +%s%N)
  AGENTDECK_READY_FILE="$ready" "$bin" "$@" >"$log" 2>&1 &
  PID=$!
  READY_MS=""
  for _ in $(seq 1 3000); do
    if [[ -s $ready ]]; then
      READY_MS=$((($(date +%s%N) - start) / 1000000))
      return 0
    fi
    kill -0 "$PID" 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}

# quit PID: SIGTERM (the app quits cleanly on it), then waits for the
# WebKit children too, so the next start does not compete with them.
quit() {
  local pids p
  pids=$(tree "$1")
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  for p in $pids; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
  done
}

# header_sig: a signature of the main pane's header strip, which shows the
# open session's title.
header_sig() {
  local shot=$1
  import -window root "$shot"
  convert "$shot" -crop 900x50+280+0 +repage -format '%#' info:
}

# measure NAME BIN DB_DIR: one cold start and its idle memory.
measure() {
  local name=$1 bin=$2 dir=$3 m
  if ! launch "$bin" "$dir/ready.json" "$dir/$name.log" --db "$dir/agentdeck.db"; then
    quit "$PID"
    echo "note $name the window did not report ready within 30 s: $(tail -3 "$dir/$name.log" | tr '\n' ' ')" >>"$OUT"
    return
  fi
  sleep 3 # idle
  m=($(mem "$PID"))
  quit "$PID"
  echo "${name}_ready_ms $READY_MS" >>"$OUT"
  echo "${name}_rss_mb ${m[0]}" >>"$OUT"
  echo "${name}_pss_mb ${m[1]}" >>"$OUT"
  echo "${name}_main_rss_mb ${m[2]}" >>"$OUT"
  echo "${name}_webprocess_rss_mb ${m[3]}" >>"$OUT"
  echo "${name}_networkprocess_rss_mb ${m[4]}" >>"$OUT"
  echo "${name}_main_pss_mb ${m[5]}" >>"$OUT"
  echo "${name}_webprocess_pss_mb ${m[6]}" >>"$OUT"
  echo "${name}_networkprocess_pss_mb ${m[7]}" >>"$OUT"
}

# desktop BIN FLOOR HISTORY_DB OUT [BASE_BIN]: the desktop part, run
# inside Xvfb; with BASE_BIN, the baseline's binary starts beside the two.
desktop() {
  local bin=$1 floor=$2 history=$3 basebin=${5:-}
  OUT=$4
  local work i m
  work=$(mktemp -d)
  for i in 1 2 3 4 5; do
    # Alternate which goes first, as the Go benchmarks do.
    mkdir -p "$work/a$i" "$work/f$i" "$work/b$i"
    if ((i % 2)); then
      measure agentdeck "$bin" "$work/a$i"
      measure floor "$floor" "$work/f$i"
      [[ -n $basebin ]] && measure base "$basebin" "$work/b$i"
    else
      [[ -n $basebin ]] && measure base "$basebin" "$work/b$i"
      measure floor "$floor" "$work/f$i"
      measure agentdeck "$bin" "$work/a$i"
    fi
  done
  if [[ ! -f $history ]]; then
    echo "note history the generated history database is missing (BenchmarkHistoryAtScale did not run)" >>"$OUT"
    rm -rf "$work"
    return
  fi
  for i in 1 2 3; do
    if ! launch "$bin" "$work/history-ready.json" "$work/history.log" --db "$history"; then
      quit "$PID"
      echo "note history the window did not report ready with the generated history: $(tail -3 "$work/history.log" | tr '\n' ' ')" >>"$OUT"
      break
    fi
    sleep 3
    m=($(mem "$PID"))
    echo "history_ready_ms $READY_MS" >>"$OUT"
    echo "history_idle_rss_mb ${m[0]}" >>"$OUT"
    echo "history_idle_pss_mb ${m[1]}" >>"$OUT"
    # The UI has no way to open a session by itself: click the first
    # session of the list (the 5,000-turn one, the most recently active).
    # The coordinates follow the current sidebar layout; the header must
    # change for the measurement to count.
    local before after wid
    before=$(header_sig "$work/before.png")
    wid=$(xdotool search --onlyvisible --name '^Agentdeck$' | head -1 || true)
    if [[ -n $wid ]]; then
      xdotool mousemove --window "$wid" 109 221 click 1 || true
    fi
    sleep 3
    after=$(header_sig "$work/after.png")
    if [[ -n $wid && $before != "$after" ]]; then
      m=($(mem "$PID"))
      echo "history_open_rss_mb ${m[0]}" >>"$OUT"
      echo "history_open_pss_mb ${m[1]}" >>"$OUT"
    else
      echo "note history_open clicking the first session (109,221) did not open it (the sidebar layout may have changed); only idle memory with the history is measured" >>"$OUT"
    fi
    quit "$PID"
  done
  rm -rf "$work"
}

# ------------------------------------------------------------ ui stream --

# wait_line FILE REGEX: waits up to 30 s for a line matching REGEX in FILE
# and prints the first match.
wait_line() {
  local line
  for _ in $(seq 1 300); do
    line=$(grep -m1 -oE "$2" "$1" 2>/dev/null || true)
    if [[ -n $line ]]; then
      echo "$line"
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# ui_providers BIN URL DB: the scripted server as the default provider,
# bench, and as bench2, bench3 and bench4.
ui_providers() {
  "$1" providers add bench --base-url "$2" --model m --default --db "$3" || return 1
  local i
  for i in 2 3 4; do "$1" providers add "bench$i" --base-url "$2" --model m --db "$3" || return 1; done
}

# ui BIN PEER_TEST UI_DIR OUT: figure 7. The scripted server (the peer test
# binary in its UI mode) streams a markdown answer at 2,000 tokens/s for
# 40 s; `agentdeck serve` uses it as its default provider (and as bench2,
# bench3 and bench4, the other columns of a side-by-side message);
# headless Chromium sends a message and records its frames and what each
# update costs, then four columns side by side (bench/ui/stream.mjs,
# installed in UI_DIR).
ui() {
  local bin=$1 peer=$2 dir=$3 out=$4
  local work spid vpid url page hold
  work=$(mktemp -d)
  mkfifo "$work/hold"
  AGENTDECK_PEER_SERVER=ui "$peer" -test.run='^TestScriptedServer$' <"$work/hold" >"$work/server.out" 2>&1 &
  spid=$!
  exec {hold}>"$work/hold" # the server runs until this closes
  if ! url=$(wait_line "$work/server.out" 'http://127\.0\.0\.1:[0-9]+/v1'); then
    echo "note ui not measured: the scripted server did not start" >>"$out"
  elif ! ui_providers "$bin" "$url" "$work/agentdeck.db" >"$work/providers.out" 2>&1; then
    echo "note ui not measured: could not add the providers: $(head -c 200 "$work/providers.out")" >>"$out"
  else
    "$bin" serve --db "$work/agentdeck.db" --addr 127.0.0.1:0 >"$work/serve.out" 2>&1 &
    vpid=$!
    if ! page=$(wait_line "$work/serve.out" 'http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]+'); then
      echo "note ui not measured: agentdeck serve did not start: $(head -c 200 "$work/serve.out")" >>"$out"
    elif ! node "$dir/stream.mjs" "$page" 25 4 >"$work/ui.out" 2>"$work/ui.err"; then
      cat "$work/ui.out" >>"$out" # what it measured before it failed
      echo "note ui_partial the browser harness failed partway: $(grep -m1 -E 'Error|error' "$work/ui.err" | cut -c1-300)" >>"$out"
    else
      cat "$work/ui.out" >>"$out"
    fi
    # Figure 7c: the first paint of a 200-node Mermaid diagram against a
    # plain 200-line code block's (bench/ui/mermaid.mjs).
    if [[ -n ${page:-} ]] && ! node "$dir/mermaid.mjs" "$page" 5 >"$work/paint.out" 2>"$work/paint.err"; then
      echo "note mermaid not measured: the browser harness failed: $(grep -m1 -E 'Error|error' "$work/paint.err" | cut -c1-300)" >>"$out"
    elif [[ -n ${page:-} ]]; then
      cat "$work/paint.out" >>"$out"
    fi
    kill -TERM "$vpid" 2>/dev/null || true
    wait "$vpid" 2>/dev/null || true
  fi
  exec {hold}>&-
  wait "$spid" 2>/dev/null || true
  rm -rf "$work"
}

case ${1:-} in
desktop | ui)
  "$@"
  exit 0
  ;;
esac

# settle SECONDS: the machine may be shared; give other work up to SECONDS
# to finish (1-minute load average at most the number of cores).
settle() {
  local cores i
  cores=$(nproc)
  for ((i = 0; i < $1; i += 5)); do
    awk -v c="$cores" '{ exit !($1 > c) }' /proc/loadavg || return 0
    ((i == 0)) && echo "bench: load average $(cut -d' ' -f1 /proc/loadavg) on $cores cores; waiting up to $1 s for it to drop" >&2
    sleep 5
  done
}

# ------------------------------------------------------------------- main --

started=$(date +%s)
settle 120
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
run="$(mktemp -d "${TMPDIR:-/tmp}/agentdeck-bench.XXXXXX")"
base="$run/base" # the baseline's worktree
trap 'git worktree remove --force "$base" >/dev/null 2>&1 || true; rm -rf "$run"' EXIT
export AGENTDECK_BENCH_DIR="$run" # the generated history database, for the desktop part
gobench="$run/go-bench.txt"
desk="$run/desktop.txt"
: >"$gobench"
: >"$desk"

# gotest OUT DIR PKG BENCHTIME REGEX [SKIP]: one package's benchmarks,
# output appended to OUT; a failure is recorded and the run goes on.
gotest() {
  local out=$1 dir=$2 pkg=$3 bt=$4 re=$5 skip=${6:-}
  local args=(test -run='^$' -bench="$re" -benchtime="$bt" -count=1 -timeout=30m)
  [[ -n $skip ]] && args+=(-skip="$skip")
  step "go ${args[*]} $pkg (in $dir)"
  (cd "$dir" && go "${args[@]}" "$pkg") 2>&1 | tee -a "$out" || echo "FAIL $pkg" | tee -a "$out"
}

# Every package of the app's module with a benchmark.
mapfile -t pkgs < <(grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=frontend --exclude-dir=peer \
  '^func Benchmark' . | xargs -n1 dirname | sort -u)
for p in "${pkgs[@]}"; do
  gotest "$gobench" . "$p" "$BENCHTIME" . "$ONCE"
  if grep -qE '^func (BenchmarkStopLatency|BenchmarkStopAll|BenchmarkReplay|BenchmarkHistoryAtScale|BenchmarkSidebar10k)\(' "$p"/*_test.go; then
    gotest "$gobench" . "$p" 1x "$ONCE"
  fi
done
gotest "$gobench" bench/peer . "$PEER_BENCHTIME" .

# The baseline tree, checked out beside this one: the token pipeline and
# the history benchmarks (its history generated apart, so that the desktop
# part opens this tree's). A patch for the baseline, if there is one, fixes
# its benchmarks' own bugs found later, never the code they measure.
basebench="$run/go-base.txt"
step "baseline: $BASELINE, checked out beside this tree"
if git worktree add --detach "$base" "$BASELINE" >"$run/base.log" 2>&1 &&
  { [[ ! -f bench/baseline-$BASELINE.patch ]] || git -C "$base" apply "$root/bench/baseline-$BASELINE.patch" >>"$run/base.log" 2>&1; }; then
  : >"$basebench"
  mkdir -p "$run/base-gen"
  AGENTDECK_BENCH_DIR="$run/base-gen" gotest "$basebench" "$base" ./app "$BENCHTIME" '^BenchmarkTokenPipeline50k$'
  AGENTDECK_BENCH_DIR="$run/base-gen" gotest "$basebench" "$base" ./backend/store 1x '^BenchmarkHistoryAtScale$'
  rm -rf "$run/base-gen"
else
  echo "bench: the baseline $BASELINE could not be checked out: $(tail -1 "$run/base.log")" >&2
  basebench=""
fi

step "desktop: make build, the floor window, cold starts and memory under Xvfb"
if ! make --no-print-directory build >"$run/build.log" 2>&1; then
  tail -20 "$run/build.log" >&2
  echo "note desktop not measured: make build failed ($(grep -m1 -iE 'error|fail' "$run/build.log" | cut -c1-200))" >>"$desk"
elif ! (cd bench/peer && go build -tags desktop,production,webkit2_41 -ldflags "-s -w" -o "$run/floorapp" ./cmd/floorapp) >"$run/floor.log" 2>&1; then
  tail -20 "$run/floor.log" >&2
  echo "note desktop not measured: the floor window (bench/peer/cmd/floorapp) did not build" >>"$desk"
else
  basebin=""
  if [[ -n $basebench ]]; then
    if make -C "$base" --no-print-directory build >"$run/base-build.log" 2>&1; then
      basebin="$base/build/bin/agentdeck"
    else
      echo "note base the baseline's release binary did not build: $(grep -m1 -iE 'error|fail' "$run/base-build.log" | cut -c1-200)" >>"$desk"
    fi
  fi
  settle 60
  xvfb-run -a -s "$X_SCREEN" bash "$0" desktop "$root/build/bin/agentdeck" "$run/floorapp" "$run/history.db" "$desk" "$basebin" ||
    echo "note desktop the desktop part failed under Xvfb" >>"$desk"
fi

step "ui: headless Chromium on agentdeck serve while a turn streams"
if [[ ! -x build/bin/agentdeck ]]; then
  echo "note ui not measured: there is no release binary (make build failed)" >>"$desk"
elif ! (cd bench/peer && go test -c -o "$run/peer.test" .) >"$run/peer-build.log" 2>&1; then
  echo "note ui not measured: the scripted server (bench/peer) did not build" >>"$desk"
elif ! (mkdir -p "$run/ui" && cp bench/ui/package.json bench/ui/package-lock.json bench/ui/stream.mjs bench/ui/mermaid.mjs "$run/ui/" &&
  cd "$run/ui" && npm ci --no-audit --no-fund --loglevel=error) >"$run/npm.log" 2>&1; then
  echo "note ui not measured: npm ci of bench/ui failed ($(tail -1 "$run/npm.log"))" >>"$desk"
else
  ui "$root/build/bin/agentdeck" "$run/peer.test" "$run/ui" "$desk"
fi
cat "$desk" >&2

step "writing docs/BENCHMARKS.md"
baseargs=()
[[ -n $basebench ]] && baseargs=(-base-go "$basebench" -base "$BASELINE")
BENCH_GO_VERSION="$(go version)" go run ./bench/report -go "$gobench" -desktop "$desk" "${baseargs[@]}" \
  -took "$(($(date +%s) - started))s" -load "$load_start / $(cut -d' ' -f1-3 /proc/loadavg)" -out docs/BENCHMARKS.md
