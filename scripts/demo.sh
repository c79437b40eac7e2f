#!/usr/bin/env bash
# The main job: prepare data, train the CPU-sized MODEL 0 for a bounded time, evaluate it and
# FIRST on the test split, print the table. Variables: DATA, WORK, MINUTES, BIN (see Makefile).
set -euo pipefail
BIN=${BIN:-.venv/bin}
DATA=${DATA:-../shared/data/cnndm}
WORK=${WORK:-work/demo}
MINUTES=${MINUTES:-9}
C2F="$BIN/c2fsum"
mkdir -p "$WORK"

if [ -d "$DATA" ]; then
  echo "== prepare $DATA -> $WORK/data"
  "$C2F" prepare --input "$DATA" --output "$WORK/data"
else
  echo "== $DATA not found: fetching a CNN/DailyMail sample with the datasets library"
  if ! "$C2F" prepare --hf cnn_dailymail --output "$WORK/data"; then
    echo "error: no local data at $DATA and the Hugging Face hub is unreachable;" >&2
    echo "       set DATA=/path/to/cnndm (a folder of train/val/test .jsonl[.gz] or .story files)" >&2
    exit 1
  fi
fi

echo "== train MODEL 0 (configs/model0-cpu.yaml) for at most $MINUTES minutes"
rm -rf "$WORK/runs/model0-cpu"
"$C2F" train --config configs/model0-cpu.yaml --data "$WORK/data" --out "$WORK/runs/model0-cpu" \
  --max-minutes "$MINUTES"

echo "== evaluate on the test split"
"$C2F" evaluate --model "$WORK/runs/model0-cpu" --data "$WORK/data" --split test \
  --max-words 400 --out "$WORK/eval/model0-cpu"   # the paper reads the first 400 words
"$C2F" baseline first --data "$WORK/data" --split test --out "$WORK/eval/first"

echo
echo "== results (test split, ROUGE x100: max over highlights; concat = all highlights as one reference)"
"$C2F" table "$WORK/eval/first" "$WORK/eval/model0-cpu"
echo
echo "run directory:  $WORK/runs/model0-cpu  (checkpoints best/ last/, metrics.jsonl, tb/)"
echo "predictions:    $WORK/eval/*/predictions.jsonl"
