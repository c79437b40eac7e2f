#!/usr/bin/env bash
# c2fsum's bench/speed.py and the OpenNMT-py peer (../shared/bench), in turn (A B A B ...) in one
# window, then the key lines of every run side by side.
#   bench/run_side_by_side.sh small [ROUNDS]     # ~3 min per round (after the peer venv exists)
#   bench/run_side_by_side.sh model0 [ROUNDS]    # ~4 min per round
# Env: PEER (default ../shared/bench next to the repo), OUT (default
#      ~/.cache/c2fsum-bench/runs/DATE-CONFIG), EXTRA (args for both sides, e.g. "--threads 1"),
#      ONMT_ARGS / OURS_ARGS (args for one side; later args win, e.g. ONMT_ARGS="--steps 60").
# Logs: OUT/R-onmt.txt and OUT/R-c2fsum.txt, one 'name: value' per line.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
PEER="${PEER:-$(dirname "$REPO")/shared/bench}"
CONFIG="${1:-small}"
ROUNDS="${2:-2}"
OUT="${OUT:-$HOME/.cache/c2fsum-bench/runs/$(date +%Y%m%d-%H%M%S)-$CONFIG}"
PY="${PY:-$REPO/.venv/bin/python}"
mkdir -p "$OUT"

case "$CONFIG" in
  small)  onmt=(--steps 100 --report-every 10 --decode-reps 2); ours=(--steps 60) ;;
  model0) onmt=(--steps 30 --report-every 5 --decode-reps 1); ours=(--steps 15) ;;
  *) echo "usage: $0 small|model0 [ROUNDS]" >&2; exit 2 ;;
esac
common=(--config "$CONFIG" --wait-quiet 20)

for r in $(seq 1 "$ROUNDS"); do
  probe=(); [ "$r" -gt 1 ] && probe=(--no-sgemm)
  echo "== round $r: OpenNMT-py -> $OUT/$r-onmt.txt" >&2
  # shellcheck disable=SC2086
  bash "$PEER/onmt_bench.sh" "${common[@]}" "${onmt[@]}" "${probe[@]}" ${EXTRA:-} ${ONMT_ARGS:-} >"$OUT/$r-onmt.txt"
  echo "== round $r: c2fsum -> $OUT/$r-c2fsum.txt" >&2
  # shellcheck disable=SC2086
  "$PY" "$HERE/speed.py" "${common[@]}" "${ours[@]}" "${probe[@]}" ${EXTRA:-} ${OURS_ARGS:-} >"$OUT/$r-c2fsum.txt"
done

keys="system torch_threads quiet_wait_s mkl_path config train_tokens_per_step train_sec_per_step train_sec_per_step_quiet
train_tok_per_s train_tok_per_s_quiet train_achieved_gflops train_neighbour_cores_per_step
train_neighbour_cores_per_interval train_quiet_steps train_quiet_intervals train_peak_rss_mib
decode_len decode_summaries_per_s decode_summaries_per_s_quiet decode_tgt_tok_per_s decode_neighbour_cores_per_batch
decode_neighbour_cores_per_rep decode_quiet_batches decode_quiet_reps decode_peak_rss_mib
other_procs_cpu_cores loadavg_1m"
for f in "$OUT"/*-onmt.txt "$OUT"/*-c2fsum.txt; do
  echo "# $(basename "$f")"
  for k in $keys; do grep -m1 "^$k: " "$f" || true; done
done
