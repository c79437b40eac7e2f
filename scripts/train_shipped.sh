#!/usr/bin/env bash
# Make one shipped model from nothing: prepare its data, train it with configs/NAME.yaml for a
# bounded time, evaluate it on the test split, export it (with its model card) into
# src/c2fsum/pretrained/NAME, where `c2fsum.load("NAME")` finds it once installed.
#
#   scripts/train_shipped.sh NAME        NAME: cnndm-small | pubmed-model0 | pubmed-model3 | pubmed-rewrite
#   make model [NAME=...]                the same through the Makefile (default NAME=cnndm-small)
#
# Variables (defaults in brackets):
#   BIN         the c2fsum installation's bin folder [.venv/bin]
#   WORK        prepared data, the run and its evaluation [work/shipped]
#   DATA        the raw data [../shared/data/cnndm for cnndm-*, ../shared/data/pubmed for pubmed-*,
#               prepared with --all-highlights: the target is the whole shorter abstract]
#   DATA_MORE   more training files prepared with DATA [pubmed-*: ../shared/data/pubmed-more/train.jsonl.gz
#               where it exists: 20,000 training papers]
#   VECTORS     word vectors every stage starts from (model.pretrained_emb) [pubmed-*: trained by
#               `c2fsum vectors` on the prepared training split, $WORK/data/pubmed-vectors.safetensors]
#   MINUTES     training time bound, shared by the stages of configs/NAME.stages [100]
#   THREADS     torch threads [2]; making two models at once, give each THREADS=1: 1.22-1.24x the
#               work of one after the other on 2 threads (docs/speed.md)
#   PARALLEL    1: a "pairs" stage (a rewriter, trained apart) runs beside the stages after it, each on
#               half of THREADS (at least 1), its log in WORK/runs/STAGE.log; the budget is still shared
#               out as MINUTES x share per stage, so the wall time is the longer of the two sides
#               (pubmed-rewrite: MINUTES=200 gives 100 minutes of wall time on 2 cores) []
#   DTYPE       storage dtype of the shipped weights: auto (float32 if the folder fits in 25 MB,
#               else float16), float32, float16 or bfloat16 [auto]; they always load as float32
#   MAX_MB      the most a shipped folder may weigh, MB [25]
#   EVAL_ARGS   extra `c2fsum evaluate` flags, e.g. "--limit 2000" [none: the model's own defaults,
#               decode.* of configs/NAME.yaml, e.g. max_words 400 for cnndm-small and pubmed-model0]
#   TRAIN_ONLY  1: stop after training (make demo MINUTES=... uses it; nothing is exported) []
#   OUT         where the export goes [src/c2fsum/pretrained/NAME]
# Run again with the same WORK, it goes on where it was cut: the prepared data and the pairs are kept,
# and a stage whose run folder holds a checkpoint is resumed (`c2fsum train --resume`; its minutes
# count from the stage's start, so a finished stage stops at once).
#   NOTES       a Markdown file of failure modes seen by hand, put on the model card []
set -euo pipefail
NAME=${1:?usage: scripts/train_shipped.sh NAME (cnndm-small, pubmed-model0 or pubmed-model3)}
BIN=${BIN:-.venv/bin}
WORK=${WORK:-work/shipped}
MINUTES=${MINUTES:-100}
THREADS=${THREADS:-2}
DTYPE=${DTYPE:-auto}
MAX_MB=${MAX_MB:-25}
EVAL_ARGS=${EVAL_ARGS:-}
CONFIG=configs/$NAME.yaml
OUT=${OUT:-src/c2fsum/pretrained/$NAME}
C2F="$BIN/c2fsum"
PREPARE_ARGS=()

if [ ! -f "$CONFIG" ]; then
  echo "error: $CONFIG not found: the recipe of $NAME (model, sizes, optimizer, data) is not in this" >&2
  echo "       checkout; write it (see configs/*-cpu.yaml) or check out a version that has it" >&2
  exit 1
fi
case "$NAME" in
  cnndm-*) DATA=${DATA:-../shared/data/cnndm}; DATASET=cnndm
    ;;  # reads its first 400 words by default (decode.max_words), as the paper evaluates
  pubmed-*) DATA=${DATA:-../shared/data/pubmed}; DATASET=pubmed
    PREPARE_ARGS=(--all-highlights)  # the target is the whole shorter abstract (docs/results.md)
    MORE=${DATA_MORE-../shared/data/pubmed-more/train.jsonl.gz}
    if [ -n "$MORE" ] && [ -e "$MORE" ]; then PREPARE_ARGS+=(--input "$MORE"); DATASET=pubmed20k; fi
    VECTORS=${VECTORS-$WORK/data/$DATASET-vectors.safetensors}
    ;;  # pubmed-model0 reads a paper's first 400 words by default (decode.max_words), MODEL 3 all of it
  *)
    if [ -z "${DATA:-}" ]; then
      echo "error: $NAME: no data set known for this name (cnndm-* or pubmed-*); set DATA" >&2
      exit 1
    fi
    DATASET=$NAME ;;
esac
if [ ! -x "$C2F" ]; then
  echo "error: $C2F not found: run \`make install\` (or set BIN to the folder holding c2fsum)" >&2
  exit 1
fi
export OMP_NUM_THREADS=$THREADS
PREPARED=$WORK/data/$DATASET
RUN=$WORK/runs/$NAME
EVAL=$WORK/eval/$NAME
mkdir -p "$WORK"
START=$(date +%s)

echo "== [$NAME] prepare $DATA -> $PREPARED"
if [ -f "$PREPARED/stats.json" ]; then
  echo "   (already prepared; delete $PREPARED to redo)"
elif [ -d "$DATA" ]; then
  "$C2F" prepare --input "$DATA" --output "$PREPARED" --workers "$THREADS" "${PREPARE_ARGS[@]}"
else
  echo "error: $DATA not found; set DATA to a folder of train/val/test .jsonl[.gz] files" >&2
  exit 1
fi

VECTOR_ARGS=()
if [ -n "${VECTORS:-}" ]; then
  echo "== [$NAME] word vectors -> $VECTORS"
  if [ -f "$VECTORS" ]; then
    echo "   (already trained; delete $VECTORS to redo)"
  else
    "$C2F" vectors --data "$PREPARED" --out "$VECTORS" --dim 128 --epochs 3 --workers "$THREADS"
  fi
  VECTOR_ARGS=("model.pretrained_emb=$VECTORS")
fi

# The stages: configs/NAME.stages (one per line: config, share of MINUTES, how `c2fsum pretext`
# makes its data or "-" for the prepared data itself; each stage starts from the one before),
# else one stage, configs/NAME.yaml, for all of MINUTES.
STAGES=configs/$NAME.stages
if [ -f "$STAGES" ]; then
  mapfile -t LINES < <(grep -v '^\s*\(#\|$\)' "$STAGES")
else
  LINES=("$NAME 1 -")
fi
# DATA "pairs": the stage is a sentence rewriter (select-rewrite's fine level), trained apart on
# `c2fsum pairs` data; it starts from nothing, the next stage does not start from it, and every later
# stage gets it as model.rewriter (an export ships it inside the model's folder).
INIT=()
REWRITER=()
BESIDE=()  # PARALLEL=1: the process id of the pairs stage training beside the others, and its log
STAGE_THREADS=$THREADS
if [ "${PARALLEL:-}" = 1 ]; then
  STAGE_THREADS=$(( THREADS / 2 > 0 ? THREADS / 2 : 1 ))
  export OMP_NUM_THREADS=$STAGE_THREADS
fi
for line in "${LINES[@]}"; do
  read -r STAGE SHARE DATA_ARGS <<< "$line"
  STAGE_MINUTES=$("$BIN/python" -c "print(max(1, round($MINUTES * $SHARE)))")
  STAGE_DATA=$PREPARED
  if [ "$DATA_ARGS" = "pairs" ]; then
    STAGE_DATA=$WORK/data/$DATASET-pairs
    echo "== [$NAME] $STAGE: sentence pairs from c2fsum pairs -> $STAGE_DATA"
    [ -f "$STAGE_DATA/stats.json" ] || "$C2F" -q pairs --data "$PREPARED" --out "$STAGE_DATA" --workers "$THREADS"
    INIT=()
  elif [ "$DATA_ARGS" != "-" ]; then
    STAGE_DATA=$WORK/data/$STAGE
    echo "== [$NAME] $STAGE: data from c2fsum pretext $DATA_ARGS -> $STAGE_DATA"
    # shellcheck disable=SC2086  # DATA_ARGS is a list of flags
    "$C2F" -q pretext --data "$PREPARED" --out "$STAGE_DATA" $DATA_ARGS
  fi
  STAGE_RUN=$WORK/runs/$STAGE
  [ "$STAGE" = "$NAME" ] && STAGE_RUN=$RUN
  echo "== [$NAME] $STAGE: train with configs/$STAGE.yaml for at most $STAGE_MINUTES minutes on $STAGE_THREADS threads"
  RESUME=()
  if [ -f "$STAGE_RUN/last/trainer.json" ]; then  # a stage cut short (or done) is continued, not redone
    echo "   (a run is there: resumed to its $STAGE_MINUTES minutes; delete $STAGE_RUN to redo)"
    RESUME=(--resume)
  else
    rm -rf "$STAGE_RUN"
  fi
  TRAIN=("$C2F" train --config "configs/$STAGE.yaml" --data "$STAGE_DATA" --out "$STAGE_RUN" "${RESUME[@]}"
    --max-minutes "$STAGE_MINUTES" --set "train.threads=$STAGE_THREADS" "${VECTOR_ARGS[@]}" "${INIT[@]}" "${REWRITER[@]}")
  if [ "$DATA_ARGS" = "pairs" ] && [ "${PARALLEL:-}" = 1 ]; then
    mkdir -p "$WORK/runs"
    "${TRAIN[@]}" > "$WORK/runs/$STAGE.log" 2>&1 &
    BESIDE=("$!" "$WORK/runs/$STAGE.log")
    trap 'kill "${BESIDE[0]}" 2>/dev/null || true' EXIT  # a failed or cut stage stops the one beside it
    echo "   (PARALLEL=1: training beside the next stages, process ${BESIDE[0]}, log ${BESIDE[1]})"
  else
    "${TRAIN[@]}"
  fi
  if [ "$DATA_ARGS" = "pairs" ]; then
    REWRITER=("model.rewriter=$("$BIN/python" -c 'import os, sys; print(os.path.abspath(sys.argv[1]))' "$STAGE_RUN")")
    INIT=()
  else
    INIT=("train.init_from=$STAGE_RUN")
  fi
done
if [ ${#BESIDE[@]} -gt 0 ]; then
  echo "== [$NAME] waiting for the stage trained beside (process ${BESIDE[0]}, log ${BESIDE[1]})"
  if ! wait "${BESIDE[0]}"; then
    echo "error: the stage trained beside failed; its log: ${BESIDE[1]}" >&2
    tail -5 "${BESIDE[1]}" >&2
    exit 1
  fi
fi
if [ ! -d "$RUN" ]; then
  echo "error: the last stage of $STAGES must be $NAME (it writes $RUN)" >&2
  exit 1
fi

if [ -n "${TRAIN_ONLY:-}" ]; then
  echo "== [$NAME] trained in $(( ($(date +%s) - START) / 60 )) minutes: $RUN (TRAIN_ONLY: not exported)"
  exit 0
fi

# export first, so that the scores on the card are those of the weights that ship
export_to() {  # export_to DTYPE [more export flags]: the run's best checkpoint into $OUT
  local dtype=$1
  shift
  "$C2F" export --model "$RUN" --name "$NAME" --out "$OUT" --dtype "$dtype" --data "$PREPARED" --max-mb "$MAX_MB" \
    --made-by "make model NAME=$NAME" ${NOTES:+--notes "$NOTES"} "$@"
}
if [ "$DTYPE" = auto ]; then  # float32 when it fits in MAX_MB, else float16
  echo "== [$NAME] export (float32 if it fits in $MAX_MB MB, else float16) -> $OUT"
  if export_to float32; then DTYPE=float32; else DTYPE=float16; export_to float16; fi
else
  echo "== [$NAME] export ($DTYPE) -> $OUT"
  export_to "$DTYPE"
fi

echo "== [$NAME] evaluate the exported weights on the test split"
# shellcheck disable=SC2086  # EVAL_ARGS is a list of flags
"$C2F" evaluate --model "$OUT" --data "$PREPARED" --split test --out "$EVAL" $EVAL_ARGS

echo "== [$NAME] export again with the test scores on its model card"
export_to "$DTYPE" --eval "$EVAL"

echo "== [$NAME] check: it loads by name from this checkout"
"$BIN/python" -c "import c2fsum; m = c2fsum.load('$NAME'); print('loaded', m.path)"
echo "== [$NAME] done in $(( ($(date +%s) - START) / 60 )) minutes; model card: $OUT/README.md"
echo "   commit $OUT (weights, config, vocabulary, manifest, card); reinstall to ship it"
