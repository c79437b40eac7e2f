#!/usr/bin/env bash
# Train several presets with the same time budget, evaluate each on the test split, print one table.
#   scripts/compare.sh DATA_DIR OUT_DIR PRESET [PRESET ...]
# Env: MINUTES (per run, default 8), PARALLEL (runs at once, default 1; each gets THREADS threads),
#      THREADS (default 2 / PARALLEL), BIN (.venv/bin), EVAL_ARGS (extra evaluate flags),
#      INIT_<preset with - as _> (train.init_from for that preset, e.g. INIT_paulus_rl_cpu=OUT/runs/paulus-ml-cpu),
#      BUDGET_<preset> (minutes for that preset instead of MINUTES),
#      MAX_WORDS (words of each test article the models read; default 400, the thesis's protocol;
#      0: whole articles, not the thesis's protocol).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 DATA_DIR OUT_DIR PRESET [PRESET ...]" >&2; exit 2; }
DATA=$1; OUT=$2; shift 2
BIN=${BIN:-.venv/bin}
MINUTES=${MINUTES:-8}
MAX_WORDS=${MAX_WORDS:-400}
PARALLEL=${PARALLEL:-1}
THREADS=${THREADS:-$(( 2 / PARALLEL > 0 ? 2 / PARALLEL : 1 ))}
mkdir -p "$OUT/runs" "$OUT/eval" "$OUT/logs"

run_one() {
  local p=$1 key=${1//-/_}
  local init_var="INIT_$key" budget_var="BUDGET_$key"
  local init=${!init_var:-} minutes=${!budget_var:-$MINUTES}
  local extra=(--set "train.threads=$THREADS")
  [ -n "$init" ] && extra+=("train.init_from=$init")
  rm -rf "$OUT/runs/$p"
  "$BIN/c2fsum" -q train --config "configs/$p.yaml" --data "$DATA" --out "$OUT/runs/$p" \
    --max-minutes "$minutes" "${extra[@]}" > "$OUT/logs/$p.train.json" 2> "$OUT/logs/$p.train.err"
  OMP_NUM_THREADS=$THREADS "$BIN/c2fsum" -q evaluate --model "$OUT/runs/$p" --data "$DATA" --split test \
    --out "$OUT/eval/$p" --max-words "$MAX_WORDS" ${EVAL_ARGS:-} > "$OUT/logs/$p.eval.txt" 2> "$OUT/logs/$p.eval.err"
  echo "done: $p ($(date +%H:%M:%S))"
}

pids=()
for p in "$@"; do
  run_one "$p" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$PARALLEL" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait
echo "models read $([ "$MAX_WORDS" = 0 ] && echo 'whole articles (not the thesis protocol)' || echo "the first $MAX_WORDS words of each article")"
"$BIN/c2fsum" table $(for p in "$@"; do echo "$OUT/eval/$p"; done)
