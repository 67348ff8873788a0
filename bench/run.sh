#!/usr/bin/env bash
# tooldeck in the shared peer benchmark: one command, see bench/README.md.
#
#   bash bench/run.sh                                   # W1-W5 + micro, then bench/RESULTS.md
#   ONLY="W2 W3" bash bench/run.sh                      # a subset (the report uses the latest raw files)
#   W1_REPS=5 W2_REPS=11 W3_ROUNDS=5 bash bench/run.sh  # fewer repetitions
#
# Environment (all optional):
#   ONLY="W1 W2 W3 W4 W5 micro W7"   what to run (default: all of them; W6, W8, W9 and
#                  search too when named; W9 counts o200k tokens with W9_O200K_FILE, see w9_tokens.py)
#   W1_REPS=11 W2_REPS=21 W3_ROUNDS=10 W4_ROUNDS=21 MICRO_REPEAT=7   (shared defaults)
#   W7_REPS=11     bench/w7_sessions.py (tooldeck alone: sessions)
#   W9_REPS=5      bench/w9_tokens.py (tooldeck alone: tokens, deferral, 5,000-tool builds)
#   GC_ON=0        1 = also run W1-W3 with the cyclic GC on (raw/W?-gc-enabled.json)
#   HYPERFINE=1    0 = skip W4's hyperfine cross-check (it is skipped anyway if not installed)
#   W4_INPUT=pydantic   the 50 tooldeck plugins' input kind: pydantic | jsonschema
#   BENCH_RESULTS=bench/results   where raw JSON (raw/*.json) and results-peers.md go
#   SHARED_BENCH=../shared/bench  the shared drivers
#   PEERS_VENV=/tmp/peers      the peers' venv (one per work tree: tooldeck is installed editable)
#   PEERS_W5_VENV=/tmp/peers-w5   W5's venv (pydantic-ai-harness pins its own pydantic-ai-slim)
#   W5_REPS=21
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SHARED=${SHARED_BENCH:-$(cd "$ROOT/../shared/bench" && pwd)}
PEERS=${PEERS_VENV:-/tmp/peers}
PY=$PEERS/bin/python
ADAPTERS=$ROOT/bench/tooldeck_adapters.py
export BENCH_RESULTS=${BENCH_RESULTS:-$ROOT/bench/results}
RAW=$BENCH_RESULTS/raw
mkdir -p "$RAW"

step() { printf '\n=== %s  (%s)\n' "$*" "$(date +%H:%M:%S)" >&2; }

# A venv made from a shared requirements file, with this tree's tooldeck (editable) in it:
#   peers_venv DIR REQUIREMENTS [extra pip install arguments for tooldeck]
peers_venv() {
  local venv=$1 requirements=$2 py=$1/bin/python
  shift 2
  if [ ! -x "$py" ]; then
    step "creating $venv from $requirements"
    python3 -m venv "$venv"
    "$py" -m pip install -q -r "$requirements"
  fi
  if ! (cd /tmp && "$py" -c "import tooldeck, sys; sys.exit(not tooldeck.__file__.startswith('$ROOT/src/'))") 2>/dev/null; then
    step "installing tooldeck (editable $*) into $venv"
    "$py" -m pip install -q "$@" -e "$ROOT"
  fi
}

# (a) the peers' venv, and tooldeck (editable, no deps: the peers' pins stay) in it
peers_venv "$PEERS" "$SHARED/requirements-peers.txt" --no-deps

# (a') W5's own venv: the harness pins an older pydantic-ai-slim; tooldeck with its deps,
#      constrained to the pinned versions
PEERS_W5=${PEERS_W5_VENV:-/tmp/peers-w5}
PY5=$PEERS_W5/bin/python
WHAT=${ONLY:-W1 W2 W3 W4 W5 micro W7}
if [[ " $WHAT " == *" W5 "* ]]; then
  peers_venv "$PEERS_W5" "$SHARED/requirements-peers-w5.txt" -c "$SHARED/requirements-peers-w5.txt"
fi

# (b) W4 fixtures: the shared /tmp/w4-venv + tooldeck and 50 tooldeck plugin dists in it
if [[ " $WHAT " == *" W4 "* ]]; then
  step "W4 fixtures"
  "$PY" bench/w4_fixture.py --input "${W4_INPUT:-pydantic}"
fi

# (c) the shared drivers with tooldeck's adapters, one workload at a time (2 shared cores)
AD=(--adapters "$ADAPTERS")
for w in $WHAT; do
  case $w in
    W1) step "W1"; "$PY" "$SHARED/w1_catalog.py" "${AD[@]}" --reps "${W1_REPS:-11}" --out "$RAW/W1.json" ;;
    W2) step "W2"; "$PY" "$SHARED/w2_override.py" "${AD[@]}" --reps "${W2_REPS:-21}" --out "$RAW/W2.json" ;;
    W3) step "W3"; "$PY" "$SHARED/w3_call.py" "${AD[@]}" --rounds "${W3_ROUNDS:-10}" --out "$RAW/W3.json" ;;
    W4)
      step "W4"
      HF=()
      if [ "${HYPERFINE:-1}" = 0 ]; then HF=(--no-hyperfine); fi
      "$PY" "$SHARED/w4_startup.py" "${AD[@]}" --rounds "${W4_ROUNDS:-21}" --out "$RAW/W4.json" "${HF[@]}"
      ;;
    W5) step "W5"; "$PY5" "$SHARED/w5_codemode.py" "${AD[@]}" --reps "${W5_REPS:-21}" --out "$RAW/W5.json" ;;
    W6) step "W6"; "$PY" "$SHARED/w6_mcp.py" "${AD[@]}" --reps "${W6_REPS:-10}" --out "$RAW/W6.json" ;;
    micro) step "micro"; "$PY" bench/micro.py --repeat "${MICRO_REPEAT:-7}" --out "$RAW/micro.json" ;;
    W7) step "W7"; "$PY" bench/w7_sessions.py --reps "${W7_REPS:-11}" --out "$RAW/w7.json" ;;
    W8) step "W8"; "$ROOT/.venv/bin/python" bench/w8_serve.py --shared "$SHARED" --out "$RAW" ;;
    W9) step "W9"; "$PY" bench/w9_tokens.py --reps "${W9_REPS:-5}" --out "$RAW/W9.json" ;;
    search) step "search"; "$PY" bench/search/evaluate.py --out "$RAW/search.json" ;;
    *) echo "unknown workload in ONLY: $w (W1 W2 W3 W4 W5 W6 micro W7 W8 W9 search)" >&2; exit 2 ;;
  esac
  if [ "${GC_ON:-0}" != 0 ] && [[ $w == W[123] ]]; then
    step "$w, GC on"
    case $w in
      W1) "$PY" "$SHARED/w1_catalog.py" "${AD[@]}" --reps "${W1_REPS:-11}" --gc-enabled --out "$RAW/W1-gc-enabled.json" ;;
      W2) "$PY" "$SHARED/w2_override.py" "${AD[@]}" --reps "${W2_REPS:-21}" --gc-enabled --out "$RAW/W2-gc-enabled.json" ;;
      W3) "$PY" "$SHARED/w3_call.py" "${AD[@]}" --rounds "${W3_ROUNDS:-10}" --gc-enabled --out "$RAW/W3-gc-enabled.json" ;;
    esac
  fi
done

# (d) reports: tooldeck's ratio table (bench/RESULTS.md) and the shared full report
step "reports"
"$PY" bench/report_tooldeck.py --raw "$RAW" --out bench/RESULTS.md
(cd "$SHARED" && "$PY" report.py) >/dev/null 2>&1 \
  && echo "full peer report: $BENCH_RESULTS/results-peers.md" >&2 \
  || echo "(shared report.py failed; bench/RESULTS.md is complete on its own)" >&2
