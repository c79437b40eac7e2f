#!/usr/bin/env python3
"""Speed of c2fsum's MODEL 0 on this machine: training tokens/s and decoding summaries/s.

This is a benchmark, not a test. It prints ``name: value`` lines with the same keys as the
peer scripts in ``../shared/bench/`` (OpenNMT-py: ``onmt_bench.py``; hand-written PyTorch:
``torch_ceiling.py``), so that runs compare line by line::

    train : forward + backward + clip_grad_norm + SGD step of c2fsum.models.Flat (MODEL 0), batch 20
            -> train_tok_per_s (source + target tokens incl. </s>, 8,320 per step)
    decode: c2fsum.decoding.beam.beam_search, beam 5, exactly 15 output tokens
            (min_len = max_len = 15), batches of 20 test sources -> decode_summaries_per_s

Presets (``--config``): ``model0`` is the paper's MODEL 0 (``configs/model0.yaml``: 2-layer
500-unit LSTMs, 300-d embeddings, dropout 0.3); ``small`` is ``configs/model0-cpu.yaml`` (1 layer,
256 units, 128-d embeddings). Both run the comparison's shapes (``PEER_SHAPES``: vocabulary
50,000, 400 source tokens as a 10x40 grid, 15-token targets, batch 20, SGD lr 1, clip 5). The
training step is the trainer's objective (``c2fsum.training.objective``, via :func:`bench_loss`).

Data: the peers' deterministic synthetic corpus (``make_data.py``), generated into
``~/.cache/c2fsum-bench/data`` on the first run (``--data``); seeded random ids if the peer
scripts are absent. The training step is timed after ``--warmup`` untimed steps, per step;
decoding is timed per batch after one warm-up batch; quote medians. While each step or batch
runs, the CPU used by other processes is sampled (``*_neighbour_cores_*``) and ``*_quiet``
figures keep only the steps where neighbours used < 0.25 cores (this VM has 2 cores).

Examples::

    .venv/bin/python bench/speed.py --config small              # ~2 min
    .venv/bin/python bench/speed.py --config model0 --steps 20  # ~3 min
    .venv/bin/python bench/speed.py --config model0 --profile   # + torch.profiler tables
    .venv/bin/python bench/speed.py --dry-run                   # tiny sizes, seconds
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
PEER_DIR = Path(os.environ.get("C2FSUM_PEER_BENCH", HERE.parent.parent / "shared" / "bench"))
DEFAULT_DATA = Path.home() / ".cache" / "c2fsum-bench" / "data"
POLICIES = Path.home() / ".cache" / "c2fsum-bench" / "policies"
"""Where ``bench/train_policy.py`` saves MODEL 3 weights by default and ``bench/throughput`` finds them."""
SIZE_OF_CONFIG = {"model0": "paper", "small": "cpu"}
"""``bench/throughput``'s size names for the presets."""
QUIET_CORES = 0.25  # a step is 'quiet' when other processes used less than this many cores

PRESET_FILES = {"model0": "model0.yaml", "small": "model0-cpu.yaml"}
"""``--config`` -> the c2fsum preset (``configs/``) whose model sizes are benchmarked."""
PEER_SHAPES = dict(vocab=50000, src_len=400, tgt_len=15, batch=20, lr=1.0, max_grad_norm=5.0)
"""The data shapes and optimizer of the comparison, the same for both presets and both sides
(the peers' ``common.PRESETS``); SGD with the paper's recipe, whatever the preset's optimizer."""


def preset_config(name: str):
    """The :class:`c2fsum.config.Config` of ``configs/`` behind ``--config name``."""
    from c2fsum.config import load_config

    return load_config(HERE.parent / "configs" / PRESET_FILES[name])


def preset(name: str) -> dict:
    """The peers' preset dict (``layers hidden emb vocab src_len tgt_len batch dropout lr
    max_grad_norm``) of ``--config name``: model sizes from c2fsum's preset, shapes from PEER_SHAPES."""
    m = preset_config(name).model
    if m.enc_layers != m.dec_layers:
        raise SystemExit(f"--config {name}: the peers' presets have one layer count, got {m.enc_layers}/{m.dec_layers}")
    return dict(layers=m.enc_layers, hidden=m.hidden, emb=m.emb_dim, dropout=m.dropout, **PEER_SHAPES)


SHAPE_KEYS = ("layers", "hidden", "emb", "vocab", "src_len", "tgt_len", "batch")
DRY_RUN = dict(layers=1, hidden=16, emb=8, vocab=1000, src_len=40, tgt_len=5, batch=4)


# -- output helpers (the peers' format) --------------------------------------------------------
def kv(name: str, value) -> None:
    print(f"{name}: {value}", flush=True)


def stats(xs: list[float]) -> tuple[float, float, float]:
    xs = sorted(xs)
    return xs[0], statistics.median(xs), xs[-1]


def fmt3(xs: list[float], spec: str = ".3f") -> str:
    """``median (min lo, max hi, n=k)``, the peers' format."""
    lo, med, hi = stats(xs)
    return f"{med:{spec}} (min {lo:{spec}}, max {hi:{spec}}, n={len(xs)})"


def load_peer_common() -> ModuleType | None:
    """``../shared/bench/common.py`` (FLOP model, sgemm probe, MKL shim), or None if absent."""
    path = PEER_DIR / "common.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("c2fsum_peer_bench_common", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# -- CPU used by other processes ----------------------------------------------------------------
CLK_TCK = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU seconds the whole machine spent busy since boot (``/proc/stat``)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v[:8]) - v[3] - v[4]) / CLK_TCK


class NeighbourMeter:
    """Cores used by other processes during one timed region: machine busy time minus ours."""

    def __enter__(self) -> NeighbourMeter:
        self.busy0, self.cpu0, self.t0 = busy_seconds(), os.times(), time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self.t0
        c1 = os.times()
        own = (c1.user - self.cpu0.user) + (c1.system - self.cpu0.system)
        self.other = max(0.0, busy_seconds() - self.busy0 - own) / self.wall


def peak_rss_mib() -> float:
    """Peak RSS since the last :func:`reset_peak_rss` (VmHWM), else since the process started."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak_rss() -> bool:
    """Return freed memory to the OS and restart the peak-RSS count (Linux >= 4.0)."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


# -- arguments ----------------------------------------------------------------------------------
def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--config",
        default="model0",
        choices=sorted(PRESET_FILES),
        help="model preset: model0 = configs/model0.yaml, small = configs/model0-cpu.yaml (default %(default)s)",
    )
    for k in SHAPE_KEYS:
        ap.add_argument("--" + k.replace("_", "-"), dest=k, type=int, default=None, help=f"override the preset's {k}")
    ap.add_argument("--chunks", type=int, default=10, help="M, rows of the source grid; N = src_len / M")
    ap.add_argument(
        "--family",
        default="model0",
        choices=("model0", "model1", "model2", "model3"),
        help="model family at the preset's sizes (default %(default)s); model3 decodes lazily",
    )
    ap.add_argument("--lazy-train", action="store_true", help="model3: train with model.lazy_fine")
    ap.add_argument("--plain-loss", action="store_true", help="train with log_softmax + gather, not the fused loss")
    ap.add_argument(
        "--init",
        type=Path,
        help="weights to train from and to decode with (.safetensors written by bench/train_policy.py; "
        "its --family, --chunk-encoder and --pos-dim come with it)",
    )
    ap.add_argument("--chunk-encoder", default="cnn", choices=("cnn", "bow"), help="model2/3 (default %(default)s)")
    ap.add_argument("--pos-dim", type=int, default=0, help="model2/3: chunk position embedding size (+POS: 25)")
    ap.add_argument("--lr", type=float, default=None, help="SGD learning rate of the timed steps (default: preset's 1)")
    ap.add_argument("--steps", type=int, default=None, help="timed training steps (default: model0 20, small 60)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed training steps first")
    ap.add_argument("--decode-n", type=int, default=200, help="test sources to decode (0 = skip decoding)")
    ap.add_argument("--decode-batch", type=int, default=20, help="sources per beam-search call")
    ap.add_argument("--beam", type=int, default=5, help="beam size")
    ap.add_argument(
        "--decode-len", type=int, default=None, help="output tokens per summary, min_len = max_len (default: tgt_len)"
    )
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: all cores)")
    ap.add_argument(
        "--mkl-avx512",
        action="store_true",
        help="re-run under the peers' LD_PRELOAD shim so MKL takes its AVX-512 path on AMD",
    )
    ap.add_argument("--sgemm-n", type=int, default=3072, help="matrix size of the sgemm peak probe")
    ap.add_argument("--sgemm-reps", type=int, default=7, help="repetitions of the sgemm peak probe")
    ap.add_argument("--no-sgemm", action="store_true", help="skip the sgemm peak probe")
    ap.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="synthetic corpus directory, made by make_data.py if missing (default %(default)s)",
    )
    ap.add_argument("--seed", type=int, default=1234, help="seed of the weights, dropout and fallback data")
    ap.add_argument(
        "--skip-train",
        action="store_true",
        help="decode only, untrained weights (fixed-length decoding costs the same)",
    )
    ap.add_argument(
        "--profile", action="store_true", help="also print torch.profiler tables of 2 training steps and 1 decode batch"
    )
    ap.add_argument(
        "--wait-quiet",
        type=int,
        default=60,
        help="wait up to this many s for neighbours to use < 0.15 cores first (0 = off)",
    )
    ap.add_argument(
        "--dry-run",
        action="store_true",
        help="tiny sizes, 2 steps, 8 sources, no waiting or sgemm probe: checks that it runs",
    )
    args = ap.parse_args(argv)
    if args.dry_run:
        args.steps, args.warmup, args.wait_quiet, args.no_sgemm = 2, 1, 0, True
        args.decode_n, args.decode_batch, args.chunks = min(args.decode_n, 8), 4, 4
    return args


def resolve_cfg(args: argparse.Namespace) -> dict:
    cfg = preset(args.config)
    if args.dry_run:
        cfg.update(DRY_RUN)
    for k in SHAPE_KEYS:
        if getattr(args, k) is not None:
            cfg[k] = getattr(args, k)
    if args.lr is not None:
        cfg["lr"] = args.lr
    if cfg["src_len"] % args.chunks:
        raise SystemExit(f"--src-len {cfg['src_len']} is not a multiple of --chunks {args.chunks}")
    return cfg


def maybe_reexec(args: argparse.Namespace, common: ModuleType | None) -> None:
    """With ``--mkl-avx512``, restart this script with the peers' MKL shim preloaded."""
    if not args.mkl_avx512 or os.environ.get("_BENCH_MKL_SHIM") == "1":
        return
    if common is None:
        raise SystemExit(f"--mkl-avx512 needs {PEER_DIR}/common.py")
    env = common.mkl_avx512_env()
    env["_BENCH_MKL_SHIM"] = "1"
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


# -- data ---------------------------------------------------------------------------------------
def ensure_data(data: Path) -> str:
    """Make the peers' synthetic corpus in ``data`` if it is missing; say where the data is from."""
    if not (data / "vocab.txt").exists() and (PEER_DIR / "make_data.py").exists():
        import subprocess

        subprocess.run(
            [sys.executable, str(PEER_DIR / "make_data.py"), "--out", str(data)], check=True, stdout=subprocess.DEVNULL
        )
    manifest = data / "MANIFEST"
    if manifest.exists():
        for line in manifest.read_text().splitlines():
            if line.rstrip().endswith(" train.src"):
                return line.split()[0]
    return "?"


def load_examples(data: Path, cfg: dict, split: str, n: int, seed: int) -> tuple[list, str]:
    """``n`` examples of ``split`` as :class:`c2fsum.data.batching.Example`-like records.

    Ids follow our vocabulary layout: 0 <pad>, 1 <unk>, 2 <s>, 3 </s>, then the corpus's
    ``vocab.txt`` words, most frequent first (the peers use the same 4 + 49,996 words).
    Returns (list of (src ids, tgt ids), origin).
    """
    V, S, T = cfg["vocab"], cfg["src_len"], cfg["tgt_len"]
    files = [data / f"{split}.src", data / f"{split}.tgt", data / "vocab.txt"]
    if all(p.exists() for p in files):
        words = [line.split("\t", 1)[0] for line in files[2].read_text().split("\n") if line]
        ids = {w: i + 4 for i, w in enumerate(words[: V - 4])}
        src_lines = files[0].read_text().split("\n")[:n]
        tgt_lines = files[1].read_text().split("\n")[:n]
        if len(src_lines) == n and all(src_lines):
            pairs = [
                ([ids.get(w, 1) for w in s.split()][:S], [ids.get(w, 1) for w in t.split()][:T])
                for s, t in zip(src_lines, tgt_lines, strict=True)
            ]
            return pairs, f"corpus {data}/{split}"
    import random

    rng = random.Random(seed)
    pairs = [([rng.randrange(4, V) for _ in range(S)], [rng.randrange(4, V) for _ in range(T)]) for _ in range(n)]
    return pairs, f"random ids (seed {seed})"


def make_batches(pairs: list, batch: int, chunks: int, chunk_len: int) -> list:
    """:class:`c2fsum.data.batching.Batch` es of ``batch`` pairs, made by the trainer's ``collate``."""
    from c2fsum.data.batching import Example, collate

    out = []
    for i in range(0, len(pairs), batch):
        exs = [
            Example(id=str(i + j), words=[], src=s, src_ext=s, oovs=[], tgt=t, tgt_ext=t, tgt_words=[], refs=[])
            for j, (s, t) in enumerate(pairs[i : i + batch])
        ]
        out.append(collate(exs, chunks=chunks, chunk_len=chunk_len))
    return out


# -- the model ----------------------------------------------------------------------------------
def chunk_filters(args: argparse.Namespace) -> int:
    """CNN filters of the chunk encoder of ``args.config``'s preset (8 for ``--dry-run``)."""
    return 8 if args.dry_run else preset_config(args.config).model.chunk_filters


def policy_path(config: str) -> Path:
    """Default place of ``bench/train_policy.py``'s weights for a preset."""
    return POLICIES / f"{SIZE_OF_CONFIG[config]}.safetensors"


def init_metadata(path: Path | str) -> dict[str, str]:
    """The settings ``bench/train_policy.py`` saved beside the weights (safetensors metadata)."""
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        return f.metadata() or {}


INIT_KEYS = ("family", "chunk_encoder", "pos_dim")
"""Settings saved with the weights by ``bench/train_policy.py`` (safetensors metadata)."""


def apply_init_settings(args: argparse.Namespace) -> None:
    """With ``--init``, take the model settings saved beside the weights (they must match them)."""
    if not args.init:
        return
    meta = init_metadata(args.init)
    if "config" in meta and meta["config"] != args.config and not args.dry_run:
        raise SystemExit(f"--init {args.init}: weights of --config {meta['config']}, not {args.config}")
    for key in INIT_KEYS:
        if key in meta:
            setattr(args, key, int(meta[key]) if key == "pos_dim" else meta[key])


def load_init(model, path: Path) -> None:
    from safetensors.torch import load_file

    model.load_state_dict(model.renamed(load_file(str(path))))  # older names through the key map


def build_model(cfg: dict, seed: int, args: argparse.Namespace):
    """``args.family`` at the preset's sizes (``c2fsum.models.build_model``, as training builds it)."""
    import dataclasses

    import torch

    from c2fsum.models import build_model as build

    torch.manual_seed(seed)
    mc = dataclasses.replace(
        preset_config(args.config).model,
        family=args.family,
        emb_dim=cfg["emb"],
        hidden=cfg["hidden"],
        enc_layers=cfg["layers"],
        dec_layers=cfg["layers"],
        dropout=cfg["dropout"],
        chunk_encoder=args.chunk_encoder,
        chunk_filters=chunk_filters(args),
        pos_dim=args.pos_dim,
        lazy_fine=args.lazy_train,
    )
    model = build(mc, cfg["vocab"], args.chunks)
    if args.init:
        load_init(model, args.init)
    return model


# -- FLOP model ---------------------------------------------------------------------------------
def family_flops(cfg: dict, args: argparse.Namespace, common: ModuleType, fine: float) -> tuple[float, float]:
    """GEMM FLOPs of ``args.family`` in the peers' model (multiply-add = 2): the forward pass's
    (encoding of one document, one decoder step of one row), with ``fine`` the share of source
    words run through the word-level LSTM (1 unless MODEL 3 encodes lazily).

    MODEL 0/1: the peers' ``common`` model. MODEL 2/3 add the chunk encoder (CNN: every window of
    every chunk, ``2 E F w`` per window; BOW: sums, no GEMM) and coarse attention (``2 H Hc`` for
    the query, ``2 M Hc`` for the scores); MODEL 3's fine attention reads one chunk of N words
    instead of all S words.
    """
    from c2fsum.config import ModelConfig

    S, E, H, M = cfg["src_len"], cfg["emb"], cfg["hidden"], args.chunks
    N, w = S // M, ModelConfig.chunk_width  # the CNN's window, as build_model leaves it
    encode = fine * S * common.flops_encoder_token(cfg)
    if args.family in ("model0", "model1"):
        return encode, common.flops_decoder_step(cfg)
    F = chunk_filters(args)
    cnn = args.chunk_encoder == "cnn"
    encode += M * (N + w - 1) * 2 * E * F * w if cnn else 0.0
    Hc = (F if cnn else E) + args.pos_dim
    read = S if args.family == "model2" else N
    return encode, common.flops_decoder_step(cfg, src_len=read) + 2 * H * Hc + 2 * M * Hc


def train_flops(cfg: dict, args: argparse.Namespace, common: ModuleType, fine: float) -> float:
    """Training FLOPs per example: 3 x (encoding + target length + 1 decoder steps)."""
    encode, step = family_flops(cfg, args, common, fine)
    return 3 * (encode + common.dec_train_steps(cfg) * step)


def decode_flops(cfg: dict, args: argparse.Namespace, common: ModuleType, fine: float, beam: int, L: int) -> float:
    """FLOPs of one beam-search summary of ``L`` steps: encoding + beam x L decoder steps."""
    encode, step = family_flops(cfg, args, common, fine)
    return encode + beam * L * step


# -- training -----------------------------------------------------------------------------------
def bench_loss(model, batch, baseline, *, plain: bool = False):
    """The trainer's objective (:func:`c2fsum.training.objective.batch_loss`) at the ``train.*``
    defaults: ML, plus for MODEL 3 the REINFORCE term with ``baseline``. ``plain``
    (``--plain-loss``): log-softmax over the vocabulary, then gather (the path before the fused loss)."""
    from c2fsum.training.objective import Objective, batch_loss

    return batch_loss(model, batch, Objective(), baseline, fused=not plain)


def train_bench(args: argparse.Namespace, cfg: dict, common: ModuleType | None):
    """Time forward + backward + clip + SGD step, the step of c2fsum.training.trainer.Trainer.fit."""
    import torch

    from c2fsum.losses.reinforce import MovingAverageBaseline
    from c2fsum.training.objective import update_baseline

    B, n_batches = cfg["batch"], 10
    steps = args.steps or (20 if args.config == "model0" else 60)
    chunk_len = cfg["src_len"] // args.chunks
    pairs, origin = load_examples(args.data, cfg, "train", B * n_batches, args.seed)
    kv("train_data", origin)
    t0 = time.perf_counter()
    batches = make_batches(pairs, B, args.chunks, chunk_len)
    kv("train_batching", "c2fsum.data.batching.collate")
    collate_ms = 1000 * (time.perf_counter() - t0) / len(batches)
    kv("train_collate_ms_per_batch", f"{collate_ms:.1f} (not in the step time)")
    model = build_model(cfg, args.seed, args).train()
    kv("model_params", sum(p.numel() for p in model.parameters()))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=cfg["lr"])
    from c2fsum.utils.malloc import keep_freed_memory, largest_parameter_bytes

    kv("train_keep_freed_memory", keep_freed_memory(largest_parameter_bytes(model)))  # as Trainer.fit does
    baseline = MovingAverageBaseline()

    fractions: list[float] = []

    def one_step(i: int) -> float:
        out = bench_loss(model, batches[i % len(batches)], baseline, plain=args.plain_loss)
        assert out.forward is not None
        fractions.append(1.0 if out.forward.fine_fraction is None else out.forward.fine_fraction)
        opt.zero_grad(set_to_none=True)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(params, cfg["max_grad_norm"])
        opt.step()
        if out.return_sums is not None:  # MODEL 3: move the REINFORCE baseline, as Trainer.train_step
            update_baseline(baseline, [out.return_sums])
        return float(out.nll.detach())

    for i in range(args.warmup):
        one_step(i)
    times, others = [], []
    cpu0 = os.times()
    for i in range(steps):
        with NeighbourMeter() as m:
            one_step(args.warmup + i)
        times.append(m.wall)
        others.append(m.other)
    cpu1 = os.times()
    n_src, n_tgt = int(batches[0].src_mask.sum()), batches[0].n_tokens
    tok_step = n_src + n_tgt
    user, sys_ = (cpu1.user - cpu0.user) / steps, (cpu1.system - cpu0.system) / steps
    kv("train_cpu_s_per_step", f"{user + sys_:.3f} (user {user:.3f}, sys {sys_:.3f})")
    loss_impl = "log_softmax + gather" if args.plain_loss else "fused log-softmax loss"
    kv("train_impl", f"c2fsum {type(model).__name__} ({args.family}), {loss_impl}, torch.optim.SGD")
    kv("train_fine_fraction", f"{statistics.mean(fractions[args.warmup :]):.3f}")
    kv("train_steps_timed", steps)
    kv("train_tokens_per_step", f"{tok_step} (src {n_src} + tgt {n_tgt})")
    kv("train_sec_per_step", fmt3(times))
    kv("train_sec_per_100_steps", f"{100 * stats(times)[1]:.1f}")
    kv("train_tok_per_s", fmt3([tok_step / t for t in times], ".0f"))
    fine = statistics.mean(fractions[args.warmup :])
    flop_step = train_flops(cfg, args, common, fine) * B if common else None
    if flop_step:
        kv("train_flop_model_gflop_per_step", f"{flop_step / 1e9:.1f} (fine fraction {fine:.3f})")
        kv("train_achieved_gflops", fmt3([flop_step / t / 1e9 for t in times], ".1f"))
    kv("train_neighbour_cores_per_step", " ".join(f"{o:.2f}" for o in others))
    quiet = [t for t, o in zip(times, others, strict=True) if o < QUIET_CORES]
    kv("train_quiet_steps", f"{len(quiet)} of {len(times)} (neighbours < {QUIET_CORES:.2f} cores)")
    if quiet:
        kv("train_sec_per_step_quiet", fmt3(quiet))
        kv("train_sec_per_100_steps_quiet", f"{100 * stats(quiet)[1]:.1f}")
        kv("train_tok_per_s_quiet", fmt3([tok_step / t for t in quiet], ".0f"))
        if flop_step:
            kv("train_achieved_gflops_quiet", fmt3([flop_step / t / 1e9 for t in quiet], ".1f"))
    kv("train_peak_rss_mib", f"{peak_rss_mib():.0f}")
    if args.profile:
        profile_table("2 training steps", lambda: [one_step(i) for i in range(2)])
    model.zero_grad(set_to_none=True)
    return model, (flop_step / stats(quiet or times)[1] / 1e9 if flop_step else None)


def profile_table(what: str, fn) -> None:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    print(f"# profile of {what} (self CPU time, top 25 ops)")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25), flush=True)


# -- decoding -----------------------------------------------------------------------------------
def decode_bench(args: argparse.Namespace, cfg: dict, model, common: ModuleType | None) -> float | None:
    """Time encode + beam_search per batch of test sources (every summary exactly L tokens)."""
    import torch

    from c2fsum.decoding.beam import beam_search

    model.eval()
    n, Bd, K = args.decode_n, args.decode_batch, args.beam
    L = args.decode_len or cfg["tgt_len"]
    chunk_len = cfg["src_len"] // args.chunks
    pairs, origin = load_examples(args.data, cfg, "test", n, args.seed)
    kv("decode_data", origin)
    batches = make_batches(pairs, Bd, args.chunks, chunk_len)
    rss_reset = reset_peak_rss()

    fractions: list[float] = []

    def decode(src, src_mask):
        memory = model.encode(src, src_mask)  # words (B, M, N, H)
        hyps = beam_search(model, memory, beam=K, max_len=L, min_len=L)
        fractions.append(memory.lazy.fraction_encoded() if memory.lazy is not None else 1.0)
        return hyps

    with torch.inference_mode():
        decode(batches[0].src, batches[0].src_mask)  # warm-up batch
        times, others, lengths = [], [], []
        t_all = time.perf_counter()
        for b in batches:
            with NeighbourMeter() as m:
                hyps = decode(b.src, b.src_mask)
            times.append((m.wall, len(hyps)))
            others.append(m.other)
            lengths.extend(len(h[0].tokens) for h in hyps)
        total = time.perf_counter() - t_all
        if args.profile:
            profile_table("1 decode batch", lambda: decode(batches[0].src, batches[0].src_mask))
    n_tok = sum(lengths)
    kv("decode_fine_fraction", f"{statistics.mean(fractions[1:]):.3f}")
    kv("decode_beam", K)
    kv("decode_batch", Bd)
    kv("decode_sources", n)
    kv("decode_len", f"{L} (output lengths seen: {sorted(set(lengths))})")
    kv("decode_total_s", f"{total:.2f}")
    kv("decode_summaries_per_s", f"{n / total:.2f}")
    kv("decode_summaries_per_s_per_batch", fmt3([b / dt for dt, b in times], ".2f"))
    kv("decode_tgt_tok_per_s", f"{n_tok / total:.1f}")
    kv("decode_neighbour_cores_per_batch", " ".join(f"{o:.2f}" for o in others))
    quiet = [(dt, b) for (dt, b), o in zip(times, others, strict=True) if o < QUIET_CORES]
    kv("decode_quiet_batches", f"{len(quiet)} of {len(times)}")
    if quiet:
        kv("decode_summaries_per_s_quiet", fmt3([b / dt for dt, b in quiet], ".2f"))
        kv("decode_tgt_tok_per_s_quiet", fmt3([b * L / dt for dt, b in quiet], ".1f"))
    gflops = None
    if common:
        per_summary = decode_flops(cfg, args, common, statistics.mean(fractions[1:]), K, L)
        kv("decode_flop_model_gflop_per_summary", f"{per_summary / 1e9:.3f}")
        gflops = per_summary * n / total / 1e9
        kv("decode_achieved_gflops", f"{gflops:.1f}")
        if quiet:
            gflops = per_summary * stats([b / dt for dt, b in quiet])[1] / 1e9
            kv("decode_achieved_gflops_quiet", f"{gflops:.1f}")
    kv("decode_peak_rss_mib", f"{peak_rss_mib():.0f}" + (" (since the end of training)" if rss_reset else ""))
    return gflops


# -- main ---------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    apply_init_settings(args)
    common = load_peer_common()
    maybe_reexec(args, common)
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch

    import c2fsum

    if args.threads:
        torch.set_num_threads(args.threads)
    cfg = resolve_cfg(args)
    meter_busy0, meter_cpu0, meter_t0 = busy_seconds(), os.times(), time.monotonic()
    kv("system", "c2fsum")
    kv("c2fsum_version", c2fsum.__version__)
    kv("torch_version", torch.__version__)
    kv("torch_threads", torch.get_num_threads())
    kv("mkl_path", common.mkl_isa(sys.executable, dict(os.environ)) if common else "unknown")
    kv("config", args.config + " " + " ".join(f"{k}={v}" for k, v in sorted(cfg.items())))
    kv("grid", f"{args.chunks}x{cfg['src_len'] // args.chunks} (M chunks x N words)")
    if args.family in ("model2", "model3"):
        kv("chunk_encoder", f"{args.chunk_encoder}, pos_dim {args.pos_dim}")
    if args.init:
        kv("init", str(args.init))
    if common is None:
        kv("peer_bench", f"not found at {PEER_DIR}: no FLOP model, sgemm probe or synthetic corpus")
    elif any(preset(c) != common.PRESETS.get(c) for c in PRESET_FILES):
        kv("peer_bench", f"WARNING: presets differ from {PEER_DIR}/common.py")
    kv("data_manifest_sha256_train_src", ensure_data(args.data))
    if common and args.wait_quiet > 0:
        common.print_wait(args.wait_quiet)
    peak = mpeak = None
    if common and not args.no_sgemm:
        kv("sgemm_n", args.sgemm_n)
        peak, mpeak = common.measure_peaks(
            sys.executable, dict(os.environ), n=args.sgemm_n, reps=args.sgemm_reps, threads=torch.get_num_threads()
        )
    if common:
        common.print_flop_model(cfg, beam=args.beam, dec_steps=args.decode_len or cfg["tgt_len"])
    if args.skip_train:
        model = build_model(cfg, args.seed, args)
        kv("model_params", sum(p.numel() for p in model.parameters()))
    else:
        model, train_gf = train_bench(args, cfg, common)
        if common and train_gf:
            common.print_fractions("train", train_gf, peak, mpeak)
    if args.decode_n > 0:
        if args.init and not args.skip_train:  # decode the saved weights, not the benchmark's SGD steps on them
            load_init(model, args.init)
        dec_gf = decode_bench(args, cfg, model, common)
        if common and dec_gf:
            common.print_fractions("decode", dec_gf, peak, mpeak)
    t1, wall = os.times(), time.monotonic() - meter_t0
    own = sum(getattr(t1, f) - getattr(meter_cpu0, f) for f in ("user", "system", "children_user", "children_system"))
    kv("other_procs_cpu_cores", f"{max(0.0, busy_seconds() - meter_busy0 - own) / wall:.2f}")
    kv("loadavg_1m", open("/proc/loadavg").read().split()[0])


if __name__ == "__main__":
    main()
