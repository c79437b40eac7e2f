#!/usr/bin/env bash
# The main job, on a fresh machine in a few minutes:
#   1. prepare CNN/DailyMail;
#   2. summarize its test split with the shipped model cnndm-small (beam 5, trigram blocking, the
#      first 400 words as in the paper) and score it beside FIRST, LEAD-3 and ILP;
#   3. show two summaries beside their gold highlights and draw one attention heatmap;
#   4. a short training run from scratch that shows training works, with its curves.
# MINUTES >= 30 (`make demo MINUTES=120`) instead trains a model like the shipped one from scratch
# (the stages of scripts/train_shipped.sh and configs/cnndm-small.stages, into WORK, never over the shipped weights) and
# evaluates that one in step 2.
# Variables: DATA, WORK, MINUTES, BIN (see Makefile).
set -euo pipefail
BIN=${BIN:-.venv/bin}
DATA=${DATA:-../shared/data/cnndm}
WORK=${WORK:-work/demo}
MINUTES=${MINUTES:-2}
C2F="$BIN/c2fsum"
EVAL="--split test --beam 5 --block-trigrams --max-words 400"   # the paper reads the first 400 words
mkdir -p "$WORK"

if [ -d "$DATA" ]; then
  echo "== prepare $DATA -> $WORK/data"
  "$C2F" -q prepare --input "$DATA" --output "$WORK/data"
else
  echo "== $DATA not found: fetching a CNN/DailyMail sample with the datasets library"
  if ! "$C2F" prepare --hf cnn_dailymail --output "$WORK/data"; then
    echo "error: no local data at $DATA and the Hugging Face hub is unreachable;" >&2
    echo "       set DATA=/path/to/cnndm (a folder of train/val/test .jsonl[.gz] or .story files)" >&2
    exit 1
  fi
fi

MODEL=cnndm-small
if [ "$MINUTES" -ge 30 ]; then
  echo "== train a model like cnndm-small from scratch: $MINUTES minutes in all (scripts/train_shipped.sh)"
  WORK="$WORK/shipped" MINUTES=$MINUTES BIN="$BIN" TRAIN_ONLY=1 bash scripts/train_shipped.sh cnndm-small
  MODEL="$WORK/shipped/runs/cnndm-small"
fi

echo "== summarize the test split with $MODEL"
# shellcheck disable=SC2086  # EVAL is a list of flags
"$C2F" evaluate --model "$MODEL" --data "$WORK/data" --out "$WORK/eval/cnndm-small" $EVAL
for b in first lead3 ilp; do
  "$C2F" -q baseline "$b" --data "$WORK/data" --split test --out "$WORK/eval/$b" > /dev/null
done

echo
echo "== results (test split, ROUGE x100 as ROUGE-1.5.5 -c 95 -m -n 2 -a scores them; max over highlights;"
echo "   concat = all highlights as one reference)"
"$C2F" table "$WORK/eval/first" "$WORK/eval/lead3" "$WORK/eval/ilp" "$WORK/eval/cnndm-small"
echo
"$C2F" compare "$WORK/eval/cnndm-small" "$WORK/eval/first" --samples 1000 | tail -n 5

echo
echo "== two summaries beside their gold highlights"
"$BIN/python" - "$WORK/eval/cnndm-small/predictions.jsonl" <<'EOF'
import json, sys, textwrap
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
for row in rows[:2]:
    print(f"-- {row['id']}")
    print(textwrap.fill("model: " + row["candidate"].replace("\n", " "), 100, subsequent_indent="       "))
    for ref in row["references"]:
        print(textwrap.fill("gold:  " + ref, 100, subsequent_indent="       "))
EOF
DOC=$("$BIN/python" -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['id'])" \
  "$WORK/eval/cnndm-small/predictions.jsonl")
"$C2F" plot attention --model "$MODEL" --data "$WORK/data" --doc "$DOC" --out "$WORK/heatmap.png" --max-words 400
echo "heatmap of $DOC: $WORK/heatmap.png"

if [ "$MINUTES" -lt 30 ]; then
  echo
  echo "== training works: stage 1 of cnndm-small (configs/cnndm-small-pretext.yaml) from scratch for $MINUTES minute(s)"
  "$C2F" -q pretext --data "$WORK/data" --out "$WORK/data-pretext" --task mixed --stride 2 --val-holdout 20
  rm -rf "$WORK/runs/short"
  "$C2F" train --config configs/cnndm-small-pretext.yaml --data "$WORK/data-pretext" --out "$WORK/runs/short" \
    --max-minutes "$MINUTES" --set train.eval_every=40 train.rouge_val_docs=50
  "$BIN/python" - "$WORK/runs/short/metrics.jsonl" <<'EOF'
import json, sys
for row in map(json.loads, open(sys.argv[1], encoding="utf-8")):
    if row["split"] == "val":
        print(f"step {row['step']:5d}: validation perplexity {row['ppl']:8.1f}, ROUGE-1 of held-out windows {row['rouge1']:5.1f}")
EOF
  "$C2F" plot curves "$WORK/runs/short" --out "$WORK/curves.png"
  echo "training curves: $WORK/curves.png (metrics in $WORK/runs/short/metrics.jsonl, TensorBoard logs in"
  echo "$WORK/runs/short/tb); \`make demo MINUTES=120\` trains a model like cnndm-small from scratch"
fi
echo
echo "predictions: $WORK/eval/*/predictions.jsonl"
