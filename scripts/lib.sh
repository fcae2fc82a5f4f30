# Helpers the scripts here source (`source "$(dirname "$0")/lib.sh"`); it
# runs nothing itself. Each helper is the one copy of something two
# scripts did alike.

# start_work: a fresh temporary folder $work and a list $pids of the
# background processes a script starts (pids+=($!)); on exit every one of
# them is stopped and waited for, and $work is removed.
start_work() {
  work="$(mktemp -d)"
  pids=()
  trap stop_work EXIT
}

stop_work() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}

# A tool built into .bin/ carries a stamp .bin/.NAME-VERSION saying which
# version .bin/NAME is; $bin is the .bin folder.

# tool_is_current NAME VERSION: whether .bin/NAME is there and stamped VERSION.
tool_is_current() {
  [[ -x "$bin/$1" && -f "$bin/.$1-$2" ]]
}

# tool_stamp NAME VERSION: stamps .bin/NAME as VERSION, in place of any
# older stamp.
tool_stamp() {
  rm -f "$bin/.$1-"*
  touch "$bin/.$1-$2"
}
