#!/usr/bin/env bash
# GPU check of c2fsum: at most 9 minutes on one CUDA GPU (issue 27, item 6).
#
#   bench/gpu_check.sh                  # on a machine with a CUDA GPU (run from the repository root)
#   bench/gpu_check.sh --device cpu     # dry run of the script's logic on CPU (gloo instead of NCCL)
#   bench/gpu_check.sh --quick          # fewer steps (4 + resume to 8, agreement after 6)
#
# What it checks (bench/gpu_check.py does the work; every check prints "CHECK name: PASS|FAIL facts"):
#   1. each family, MODEL 0, 1, 2, lazy MODEL 3, paulus-ml and -rl, the select-rewrite selector (labels,
#      then REINFORCE) at its -cpu preset's sizes, trains 25 steps with bf16 autocast (train.amp=bf16)
#      on the GPU, resumes to step 50, has finite weights and validation perplexity, prints tokens/s;
#      decodes the 10 test documents on the GPU;
#   2. float32 agreement: a small model of each family trained 20 steps on CPU, decoded on CPU and
#      on the GPU from the same weights (TF32 off), greedy and beam 3: the same tokens;
#   3. the shipped models (pubmed-rewrite, pubmed-model3) summarize papers on CPU and on the GPU in
#      float32: the same summaries; seconds per paper on each ($PAPERS: a JSONL file with an
#      'article' field, default the test corpus; e.g. 12 lines of ../shared/data/pubmed/val.jsonl.gz);
#   4. torchrun with NCCL on every GPU present: an all-reduce probe (with 1 GPU, nproc 1 still
#      creates an NCCL process group), then `c2fsum train` under torchrun --nproc_per_node N
#      (bf16, train.dist_backend=nccl), its tokens/s.
# Prints a summary; exits 1 if any check failed (a stage that runs out of its share of the 9
# minutes is a failed check), 2 if there is no CUDA device or an argument is wrong. With --device
# cpu the limit is 30 minutes (bf16 autocast is slow on CPU). Files go to $WORK (default: a temporary folder, removed).
set -u

DEVICE=cuda
STEPS=50
AGREE=20
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE="${2:-}"; shift 2 ;;
        --device=*) DEVICE="${1#--device=}"; shift ;;
        --quick) STEPS=8; AGREE=6; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "gpu_check: unknown argument $1 (expected --device cuda|cpu, --quick)" >&2; exit 2 ;;
    esac
done
case "$DEVICE" in cuda|cpu) ;; *) echo "gpu_check: --device: got '$DEVICE', expected cuda or cpu" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.." || exit 2
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
    if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
START=$(date +%s)
LIMIT=540   # the 9 minutes on a GPU; a CPU dry run (bf16 on CPU is slow) may take 30
FAMILY_LIMIT=330
if [ "$DEVICE" = cpu ]; then LIMIT=1800; FAMILY_LIMIT=1500; fi
DEADLINE=$((START + LIMIT))
left() { echo $((DEADLINE - $(date +%s))); }

echo "== gpu_check: device $DEVICE, $STEPS steps, agreement after $AGREE, python $PY"
if [ "$DEVICE" = cuda ]; then
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
    fi
    if ! "$PY" - <<'EOF'
import sys
try:
    import torch
except ImportError as e:
    print(f"gpu_check: cannot import torch ({e})", file=sys.stderr)
    sys.exit(1)
if not torch.cuda.is_available():
    print(
        f"gpu_check: torch {torch.__version__} (CUDA build: {torch.version.cuda}) sees no CUDA device; "
        "this check needs one GPU. For a dry run of its logic on CPU: bench/gpu_check.sh --device cpu",
        file=sys.stderr,
    )
    sys.exit(1)
n = torch.cuda.device_count()
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {n} GPU(s): "
      + ", ".join(torch.cuda.get_device_name(i) for i in range(n))
      + f"; bf16 supported: {torch.cuda.is_bf16_supported()}")
EOF
    then
        exit 2
    fi
    NGPU=$("$PY" -c 'import torch; print(torch.cuda.device_count())')
else
    NGPU=1
fi

WORK="${WORK:-}"
CLEAN=0
if [ -z "$WORK" ]; then WORK=$(mktemp -d -t gpu_check.XXXXXX); CLEAN=1; fi
mkdir -p "$WORK"
LOG="$WORK/checks.log"
: > "$LOG"
STATUS=0

stage() {  # stage NAME SECONDS CMD...: run with a time limit, keep its CHECK lines
    local name=$1 limit=$2; shift 2
    local budget; budget=$(left)
    if [ "$budget" -lt 10 ]; then
        echo "CHECK $name: FAIL not run, the $LIMIT s are spent" | tee -a "$LOG"; STATUS=1; return
    fi
    [ "$limit" -gt "$budget" ] && limit=$budget
    echo "== $name (limit ${limit} s)"
    local t0; t0=$(date +%s)
    { timeout --signal=KILL "$limit" "$@"; echo $? > "$WORK/$name.rc"; } 2>&1 | tee "$WORK/$name.out"
    local rc; rc=$(cat "$WORK/$name.rc" 2>/dev/null || echo 1)
    grep '^CHECK ' "$WORK/$name.out" >> "$LOG"
    if [ "$rc" -eq 137 ] || [ "$rc" -eq 124 ]; then
        echo "CHECK $name: FAIL timed out after ${limit} s" | tee -a "$LOG"; STATUS=1
    elif [ "$rc" -ne 0 ]; then
        grep -q "^CHECK .*FAIL" "$WORK/$name.out" || echo "CHECK $name: FAIL exit status $rc" | tee -a "$LOG"
        STATUS=1
    fi
    echo "   ($name: $(($(date +%s) - t0)) s)"
}

# 1-2: families (bf16 train + resume, decode, float32 agreement), in one process
stage families "$FAMILY_LIMIT" "$PY" bench/gpu_check.py --stage families --device "$DEVICE" --work "$WORK" \
    --steps "$STEPS" --agree-steps "$AGREE"

# 3: the shipped models, CPU against the device, float32
stage shipped 100 "$PY" bench/gpu_check.py --stage shipped --device "$DEVICE" ${PAPERS:+--papers "$PAPERS"}

# 4: torchrun: NCCL (gloo on CPU) all-reduce probe, then c2fsum train on every GPU
stage collective-probe 60 "$PY" -m torch.distributed.run --standalone --nproc_per_node "$NGPU" \
    bench/gpu_check.py --stage nccl-probe --device "$DEVICE"
BACKEND=nccl; [ "$DEVICE" = cpu ] && BACKEND=gloo
DDP_STEPS=$((STEPS / 2 > 4 ? STEPS / 2 : 4))
rm -rf "$WORK/ddp-run"
stage torchrun-train 120 "$PY" -m torch.distributed.run --standalone --nproc_per_node "$NGPU" \
    -m c2fsum -q train --config configs/model2-cpu.yaml --data "$WORK/data" --out "$WORK/ddp-run" \
    --device "$DEVICE" --max-steps "$DDP_STEPS" --set data.vocab_size=2000 data.val_holdout=0 \
    train.batch_size=8 train.log_every=2 train.amp=bf16 train.dist_backend=$BACKEND
if [ -f "$WORK/ddp-run/last/trainer.json" ]; then
    stage torchrun-report 30 "$PY" bench/gpu_check.py --stage ddp-report --run "$WORK/ddp-run" \
        --steps "$DDP_STEPS" --nproc "$NGPU" --device "$DEVICE"
fi

echo
echo "== summary ($(($(date +%s) - START)) s, device $DEVICE, $NGPU process(es) under torchrun)"
cat "$LOG"
PASS=$(grep -c ': PASS' "$LOG")
FAIL=$(grep -c ': FAIL' "$LOG")
echo "== $PASS passed, $FAIL failed"
[ "$FAIL" -gt 0 ] && STATUS=1
[ "$CLEAN" -eq 1 ] && rm -rf "$WORK"
exit $STATUS
