#!/usr/bin/env bash
# Runs every Go fuzz target in the repository for a short while: the seeds
# first, then FUZZTIME of fuzzing (default 3s; "500x" means 500 inputs).
# go test -fuzz takes one package and one target, and would compile and link
# the package's fuzzing build once for each target; so each package's test
# binary is built once (go test -c -fuzz, the same instrumentation) and each
# of its targets runs from it, as go test would run it: in the package's
# folder, with go test's fuzz cache. All targets run; the script fails if
# any of them failed.
#
# A failure leaves the failing input in the package's testdata/fuzz/<Target>/
# and prints the command that replays it. Once the bug is fixed, commit that
# file: it becomes a seed that runs with every go test.
#
#   FUZZTIME=1m bash scripts/fuzz.sh          # longer
#   bash scripts/fuzz.sh FuzzImport           # only the targets named
#
# FUZZMINIMIZETIME (default 2s) bounds how long a new input is minimized;
# Go's default of 60s would spend a short run minimizing instead of fuzzing.
#
# Go before 1.27 sometimes fails a target with a bare "context deadline
# exceeded" as -fuzztime runs out, with no failing input (the coordinator's
# shutdown race, go.dev/issue/75804). Such a run is reported as a flake and
# does not fail the script; any run that wrote a failing input does.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

FUZZTIME="${FUZZTIME:-3s}"
FUZZMINIMIZETIME="${FUZZMINIMIZETIME:-2s}"
only=("$@")

# "dir name" for every func FuzzXxx(f *testing.F) in a test file.
targets=()
while IFS= read -r file; do
  dir="$(dirname "$file")"
  while IFS= read -r name; do
    targets+=("$dir $name")
  done < <(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\).*/\1/p' "$file")
done < <(grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=testdata --exclude-dir=.git '^func Fuzz' . | sort)

if ((${#targets[@]} == 0)); then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi

count_files() {
  if [[ -d "$1" ]]; then find "$1" -type f | wc -l; else echo 0; fi
}

failed=()
flaked=()
ran=0
start=$SECONDS
log="$(mktemp)"
bins="$(mktemp -d)"
trap 'rm -rf "$log" "$bins"' EXIT
cache="$(go env GOCACHE)/fuzz"
built=""
for t in "${targets[@]}"; do
  read -r dir name <<<"$t"
  if ((${#only[@]})) && [[ ! " ${only[*]} " == *" $name "* ]]; then
    continue
  fi
  ran=$((ran + 1))
  pkg="$(go list "./${dir#./}")"
  exe="$bins/${pkg//\//_}.test"
  if [[ ! -x "$exe" ]]; then
    printf '==> building %s for fuzzing\n' "${dir#./}"
    if ! go test -c -fuzz=. -ldflags='-s -w' -o "$exe" "./${dir#./}"; then
      failed+=("$name in ${dir#./} (did not build)")
      continue
    fi
    built="$built $pkg"
  fi
  printf '==> %s in %s (%s)\n' "$name" "${dir#./}" "$FUZZTIME"
  corpus="$dir/testdata/fuzz/$name"
  before="$(count_files "$corpus")"
  # As go test runs it: from the package's folder (testdata/), with its cache.
  if (cd "$dir" && "$exe" -test.paniconexit0 -test.fuzzcachedir="$cache/$pkg" -test.timeout=10m0s \
    -test.run='^$' -test.fuzz="^${name}\$" -test.fuzztime="$FUZZTIME" -test.fuzzminimizetime="$FUZZMINIMIZETIME") 2>&1 | tee "$log"; then
    continue
  fi
  after="$(count_files "$corpus")"
  if [[ "$after" == "$before" ]] && grep -q '^    context deadline exceeded$' "$log" && ! grep -q 'Failing input written' "$log"; then
    echo "fuzz: $name: the fuzzing engine's deadline race (go.dev/issue/75804), no failing input: not counted as a failure" >&2
    flaked+=("$name in ${dir#./}")
    continue
  fi
  failed+=("$name in ${dir#./}")
done

if ((ran == 0)); then
  echo "fuzz: no target matches: ${only[*]}" >&2
  exit 1
fi
if ((${#failed[@]})); then
  printf 'fuzz: %d of %d targets failed:\n' "${#failed[@]}" "$ran" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
printf 'fuzz: %d targets in %d packages passed in %ds' "$ran" "$(wc -w <<<"$built")" "$((SECONDS - start))"
if ((${#flaked[@]})); then
  printf ' (%d ended by the engine deadline race: %s)' "${#flaked[@]}" "$(IFS=,; echo "${flaked[*]}")"
fi
echo
