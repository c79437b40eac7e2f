#!/usr/bin/env bash
# What c2fsum is for, on a fresh machine in under 10 minutes (2 cores):
#   1. the main job: the shipped models read whole papers of the SumPubMed test split (PAPERS of
#      them). First pubmed-rewrite, the summary to read (whole sentences of the paper, in the
#      paper's order, shortened only where it is safe) beside the paper's abstract and beside ILP at
#      its length; then pubmed-model3 (coarse-to-fine, word by word): a table beside LEAD, ILP,
#      BERKELEY and pubmed-model0 (MODEL 0 on the first 400 words) at the same length, with the
#      seconds per paper and the share read at the word level; the pictures of where it reads;
#   2. the news model cnndm-small, briefly: CNN/DailyMail test articles beside FIRST, LEAD-3, ILP;
#   3. a short training run from scratch that shows training works (its bar counts the time budget).
# MINUTES >= 30 (`make demo MINUTES=120`) instead trains a model like cnndm-small from scratch in
# step 3 (the stages of scripts/train_shipped.sh and configs/cnndm-small.stages, into WORK, never
# over the shipped weights) and evaluates that one in step 2.
# Variables: DATA (CNN/DM), PUBMED, PAPERS, NEWS_DOCS, WORK, MINUTES, BIN (see Makefile).
set -euo pipefail
BIN=${BIN:-.venv/bin}
DATA=${DATA:-../shared/data/cnndm}
PUBMED=${PUBMED:-../shared/data/pubmed}
PAPERS=${PAPERS:-20}
NEWS_DOCS=${NEWS_DOCS:-100}
WORK=${WORK:-work/demo}
MINUTES=${MINUTES:-2}
C2F="$BIN/c2fsum"
PY="$BIN/python"
START=$(date +%s)
mkdir -p "$WORK/logs"

quiet() {  # quiet LOG CMD...: run CMD with its output in $WORK/logs/LOG, shown only if it fails
  local log="$WORK/logs/$1"
  shift
  if ! "$@" > "$log" 2>&1; then
    cat "$log" >&2
    echo "error: $* failed (log: $log)" >&2
    exit 1
  fi
}
elapsed() { echo "[$(( $(date +%s) - START )) s]"; }
two_papers() {  # two_papers PREDICTIONS RAW: the first two summaries (Summary.text) beside their papers' abstracts
  "$PY" - "$1" "$2" <<'EOF'
import json, sys, textwrap
preds = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
papers = {d["id"]: d for d in map(json.loads, open(sys.argv[2], encoding="utf-8"))}
for row in preds[:2]:
    paper = papers[row["id"]]
    words = " ".join(paper["highlights"].split()).split()
    print(f"\n{row['id']}: a paper of {len(paper['article'].split()):,} words")
    print(textwrap.fill(row["text"], 100, initial_indent="  model:    ", subsequent_indent=" " * 12))
    short = " ".join(words[:90]) + (" ..." if len(words) > 90 else "")
    print(textwrap.fill(short, 100, initial_indent="  abstract: ", subsequent_indent=" " * 12))
EOF
}

# -- 1. pubmed-model3 on whole papers ---------------------------------------------------------
if [ -f "$PUBMED/test.jsonl.gz" ]; then
  P="$WORK/pubmed"
  echo "== 1. the main job: pubmed-rewrite and pubmed-model3 read whole papers, the first $PAPERS of the SumPubMed test split $(elapsed)"
  mkdir -p "$P/raw"
  "$PY" - "$PUBMED/test.jsonl.gz" "$PAPERS" "$P/raw/test.jsonl" <<'EOF'
import gzip, itertools, sys
with gzip.open(sys.argv[1], "rt", encoding="utf-8") as f, open(sys.argv[3], "w", encoding="utf-8") as out:
    out.writelines(itertools.islice(f, int(sys.argv[2])))
EOF
  # the reference is the whole shorter abstract (all its sentences), as in docs/results.md
  quiet pubmed-prepare.log "$C2F" -q prepare --input "$P/raw" --output "$P/data" --all-highlights
  echo "   pubmed-rewrite: whole sentences of each paper, in its order, 207 tokens (ILP's length) $(elapsed)"
  quiet pubmed-rewrite.log "$C2F" -q evaluate --model pubmed-rewrite --data "$P/data" --split test --out "$P/eval/pubmed-rewrite"
  quiet pubmed-ilp207.log "$C2F" -q baseline ilp --data "$P/data" --split test --out "$P/eval/ilp207" --budget 207
  echo
  echo "-- two papers: what pubmed-rewrite writes (Summary.text) beside the paper's own abstract"
  two_papers "$P/eval/pubmed-rewrite/predictions.jsonl" "$P/raw/test.jsonl"
  echo
  echo "-- $PAPERS papers at 207 tokens: ROUGE x100 against the whole shorter abstract"
  "$PY" scripts/demo_table.py --concat "ILP (207 tokens)=$P/eval/ilp207" "pubmed-rewrite (whole papers)=$P/eval/pubmed-rewrite"
  echo "   (on all 500 test papers: docs/results.md; its card: c2fsum models)"
  echo
  echo "   pubmed-model3: coarse-to-fine word by word, 3 chunks read per step at the word level $(elapsed)"
  quiet pubmed-model3.log "$C2F" -q evaluate --model pubmed-model3 --data "$P/data" --split test --out "$P/eval/pubmed-model3"
  # the baselines get the length the model wrote (its mean summary length in tokens)
  BUDGET=$("$PY" -c "import json,sys; r=[len(json.loads(l)['candidate'].split()) for l in open(sys.argv[1])]; print(round(sum(r)/len(r)))" \
    "$P/eval/pubmed-model3/predictions.jsonl")
  echo "   pubmed-model0: MODEL 0 on the first 400 words $(elapsed)"
  quiet pubmed-model0.log "$C2F" -q evaluate --model pubmed-model0 --data "$P/data" --split test --out "$P/eval/pubmed-model0" \
    --max-words 400
  echo "   LEAD, ILP and BERKELEY (its PubMed weights) at the model's length, $BUDGET tokens $(elapsed)"
  quiet pubmed-lead.log "$C2F" -q baseline lead --data "$P/data" --split test --out "$P/eval/lead" --budget "$BUDGET"
  quiet pubmed-ilp.log "$C2F" -q baseline ilp --data "$P/data" --split test --out "$P/eval/ilp" --budget "$BUDGET"
  quiet pubmed-berkeley.log "$C2F" -q baseline berkeley --data "$P/data" --split test --out "$P/eval/berkeley" \
    --budget "$BUDGET" --weights pubmed

  echo
  echo "-- two papers: what pubmed-model3 writes (Summary.text) beside the paper's own abstract"
  echo "   (SumPubMed's abstracts as the data set gives them: lower-cased, <dig> for numbers)"
  two_papers "$P/eval/pubmed-model3/predictions.jsonl" "$P/raw/test.jsonl"
  echo
  echo "-- $PAPERS papers: ROUGE x100 against the whole shorter abstract (ROUGE-1.5.5 -c 95 -m -n 2 -a);"
  echo "   s / doc: the model's decoding time per paper on this machine; read at word level: the share of"
  echo "   each paper's words its word-level encoder ran over (MODEL 3 picks its chunks; MODEL 0 reads 400 words)"
  "$PY" scripts/demo_table.py --concat \
    "LEAD (first $BUDGET tokens)=$P/eval/lead" \
    "ILP ($BUDGET tokens)=$P/eval/ilp" \
    "BERKELEY ($BUDGET tokens)=$P/eval/berkeley" \
    "pubmed-model0 (first 400 words)=$P/eval/pubmed-model0" \
    "pubmed-model3 (whole papers)=$P/eval/pubmed-model3"
  echo
  "$C2F" compare "$P/eval/pubmed-model3" "$P/eval/pubmed-model0" --concat --samples 1000 | tail -n 5
  echo "   ($PAPERS papers are few: on all 500 test papers, against their whole abstracts, pubmed-model3 was +4.18 ROUGE-1"
  echo "   [+3.65, +4.72] above pubmed-model0 and 6.51 [5.95, 7.03] below ILP at the same length; docs/results.md)"

  DOC=$("$PY" -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['id'])" "$P/eval/pubmed-model3/predictions.jsonl")
  quiet pubmed-plot.log "$C2F" -q plot attention --model pubmed-model3 --data "$P/data" --doc "$DOC" --out "$WORK/pubmed-model3-reads.png"
  echo
  quiet pubmed-reading.log "$C2F" -q plot reading "$P/eval/pubmed-model3" --labels pubmed-model3 --out "$WORK/pubmed-model3-reading.png"
  echo "where pubmed-model3 reads:"
  echo "  $WORK/pubmed-model3-reading.png: over the $PAPERS papers, the position in the paper of the chunks it"
  echo "    read at each step, and the share of each paper encoded at the word level"
  echo "  $WORK/pubmed-model3-reads.png: in $DOC, each summary word down, the paper's chunks across"
  echo "the same on a page: c2fsum serve --model pubmed-model3 (docs/serving.md)"
else
  echo "== 1. skipped: no SumPubMed test split at $PUBMED (set PUBMED=DIR, a folder with test.jsonl.gz)"
fi

# -- 2. the news model, briefly ---------------------------------------------------------------
echo
echo "== 2. news: cnndm-small on the first $NEWS_DOCS CNN/DailyMail test articles (the first 400 words, as the paper) $(elapsed)"
if [ -d "$DATA" ]; then
  quiet cnndm-prepare.log "$C2F" -q prepare --input "$DATA" --output "$WORK/data"
else
  echo "   $DATA not found: fetching a CNN/DailyMail sample with the datasets library"
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
N="--split test --limit $NEWS_DOCS"
# shellcheck disable=SC2086  # N is a list of flags
quiet cnndm-small.log "$C2F" -q evaluate --model "$MODEL" --data "$WORK/data" --out "$WORK/eval/cnndm-small" $N \
  --beam 5 --block-trigrams --max-words 400
for b in first lead3 ilp; do
  # shellcheck disable=SC2086
  quiet "cnndm-$b.log" "$C2F" -q baseline "$b" --data "$WORK/data" --out "$WORK/eval/$b" $N
done
echo "-- ROUGE x100, each summary against its best-matching highlight (the thesis's protocol)"
"$PY" scripts/demo_table.py "FIRST (first sentence)=$WORK/eval/first" "LEAD-3=$WORK/eval/lead3" \
  "ILP=$WORK/eval/ilp" "cnndm-small=$WORK/eval/cnndm-small"
echo "   (cnndm-small learned from 2,329 articles: it mostly copies the lead; docs/results.md)"
"$PY" - "$WORK/eval/cnndm-small/predictions.jsonl" "$DATA/test.jsonl.gz" <<'EOF'
import gzip, json, os, sys, textwrap
row = json.loads(open(sys.argv[1], encoding="utf-8").readline())
gold = row["references"]  # the prepared (tokenized) highlights, unless the raw ones are at hand
if os.path.isfile(sys.argv[2]):
    with gzip.open(sys.argv[2], "rt", encoding="utf-8") as f:
        raw = next((d for d in map(json.loads, f) if d["id"] == row["id"]), None)
    gold = raw["highlights"].splitlines() if raw else gold
print(f"\n{row['id']}")
print(textwrap.fill(row["text"], 100, initial_indent="  model: ", subsequent_indent=" " * 9))
for ref in gold:
    print(textwrap.fill(ref, 100, initial_indent="  gold:  ", subsequent_indent=" " * 9))
EOF

# -- 3. training works --------------------------------------------------------------------------
if [ "$MINUTES" -lt 30 ]; then
  echo
  echo "== 3. training works: stage 1 of cnndm-small (configs/cnndm-small-pretext.yaml) from scratch, $MINUTES minute(s) $(elapsed)"
  quiet pretext.log "$C2F" -q pretext --data "$WORK/data" --out "$WORK/data-pretext" --task mixed --stride 2 --val-holdout 20
  rm -rf "$WORK/runs/short"
  "$C2F" train --config configs/cnndm-small-pretext.yaml --data "$WORK/data-pretext" --out "$WORK/runs/short" \
    --max-minutes "$MINUTES" --set train.eval_every=40 train.rouge_val_docs=50
  # perplexity of held-out pretext windows (a copy-or-continue task): comparable from step to step
  "$PY" - "$WORK/runs/short/metrics.jsonl" <<'EOF'
import json, sys
for row in map(json.loads, open(sys.argv[1], encoding="utf-8")):
    if row["split"] == "val":
        print(f"step {row['step']:5d}: validation perplexity {row['ppl']:8.1f}, ROUGE-1 of held-out windows {row['rouge1']:5.1f}")
EOF
  quiet curves.log "$C2F" -q plot curves "$WORK/runs/short" --out "$WORK/curves.png"
  echo "training curves: $WORK/curves.png (metrics in $WORK/runs/short/metrics.jsonl, TensorBoard logs in"
  echo "$WORK/runs/short/tb); \`make demo MINUTES=120\` trains a model like cnndm-small from scratch"
fi
echo
echo "predictions: $WORK/pubmed/eval/*/predictions.jsonl, $WORK/eval/*/predictions.jsonl $(elapsed)"
