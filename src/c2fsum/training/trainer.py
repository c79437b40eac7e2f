"""The training loop: the paper's recipe, resumable to the bit on CPU.

Recipe (thesis section 5.2): SGD, batch 20, 20 epochs, gradients renormalized to norm 5,
learning rate 1 (0.1 for a chunk encoder), halved every epoch once validation perplexity
stops decreasing. The loss of a batch is the summed token NLL divided by the number of
documents, as in seq2seq-attn.

Resuming: a checkpoint holds the weights, the optimizer, the schedule, the position in the
epoch and every random generator; the batch order of an epoch is a pure function of
``(seed, epoch)``. A run stopped after k steps and resumed therefore reaches the same
parameters as an uninterrupted run.

Several processes (``torchrun``, :mod:`c2fsum.training.distributed`): every rank forms the
same global batches and trains on its shard; ``train.batch_size`` is the global batch, so N
processes reach the parameters of one (up to float error). Only rank 0 logs and writes.
"""

from __future__ import annotations

import json
import logging
import math
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import torch
from tqdm.auto import tqdm

from c2fsum.config import Config
from c2fsum.data.batching import Example, bucketed_batches, collate, encode_example, shard_batch
from c2fsum.data.lengths import target_length_facts
from c2fsum.data.prepare import read_prepared
from c2fsum.data.vocab import Vocab
from c2fsum.errors import TrainingError
from c2fsum.losses.checks import NonFiniteError, require_finite
from c2fsum.losses.reinforce import MovingAverageBaseline, discounted_returns, reinforce_loss
from c2fsum.losses.self_critical import mixed_loss, self_critical_loss
from c2fsum.models import Summarizer, build_model
from c2fsum.models.checkpoint import load_weights, read_json, read_tensors, resolve_checkpoint, verify_checkpoint
from c2fsum.training.checkpoint import restore_optimizer, restore_rng, save_checkpoint
from c2fsum.training.distributed import DistributedError, rank_seed, rng_state, set_rng_state, sync_return_sums
from c2fsum.training.distributed import setup as setup_distributed
from c2fsum.training.distributed import wrap as wrap_distributed
from c2fsum.utils.io import append_jsonl, atomic_write_text, existing_checkpoint_dir, write_json
from c2fsum.utils.malloc import keep_freed_memory, largest_parameter_bytes

log = logging.getLogger(__name__)


@dataclass
class Schedule:
    """Learning-rate schedule state (thesis: halve once validation perplexity stops improving)."""

    scale: float = 1.0
    decaying: bool = False
    prev_val_ppl: float | None = None
    best: float | None = None
    best_step: int = 0

    def end_of_epoch(self, val_ppl: float, decay: float) -> None:
        if self.prev_val_ppl is not None and val_ppl >= self.prev_val_ppl:
            self.decaying = True
        if self.decaying:
            self.scale *= decay
        self.prev_val_ppl = val_ppl


@dataclass
class Position:
    step: int = 0
    epoch: int = 0
    batch: int = 0
    """Index of the next batch of ``epoch``."""
    tokens: int = 0
    elapsed: float = 0.0
    history: list = field(default_factory=list)
    skipped: int = 0
    """Steps skipped because the loss, rewards or gradients were NaN/Inf (see Trainer._skip_step)."""
    nonfinite_in_a_row: int = 0


def encode_split(path: Path, vocab: Vocab, cfg: Config) -> list[Example]:
    return [
        encode_example(
            d,
            vocab,
            chunks=cfg.data.chunks,
            chunk_len=cfg.data.chunk_len,
            max_tgt_len=cfg.data.max_tgt_len,
            chunking=cfg.data.chunking,
            max_words=cfg.data.max_words,
        )
        for d in read_prepared(path)
    ]


def load_splits(data_dir: Path, vocab: Vocab, cfg: Config) -> tuple[list[Example], list[Example]]:
    """Train and validation examples; with ``data.val_holdout`` > 0 all but the last
    ``val_holdout`` validation documents join the training set."""
    train_path, val_path = data_dir / "train.jsonl", data_dir / "val.jsonl"
    if not train_path.exists():
        raise TrainingError(f"{data_dir}: no train.jsonl (run `c2fsum prepare` first)")
    train = encode_split(train_path, vocab, cfg)
    val = encode_split(val_path, vocab, cfg) if val_path.exists() else []
    if cfg.data.val_holdout > 0:
        if len(val) <= cfg.data.val_holdout:
            raise TrainingError(f"data.val_holdout={cfg.data.val_holdout} but {val_path} has only {len(val)} documents")
        train = train + val[: -cfg.data.val_holdout]
        val = val[-cfg.data.val_holdout :]
    if not train:
        raise TrainingError(f"{train_path}: no training documents")
    if not val:
        raise TrainingError(f"{data_dir}: no validation documents (val.jsonl missing or empty)")
    return train, val


def make_optimizer(model: Summarizer, cfg: Config) -> torch.optim.Optimizer:
    """SGD (or Adagrad/Adam) with a separate learning rate for a chunk encoder's parameters."""
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]  # BOW embeddings are fixed
    chunk = [p for n, p in named if n.startswith("chunk_encoder.")]
    rest = [p for n, p in named if not n.startswith("chunk_encoder.")]
    groups = [{"params": rest, "lr": cfg.train.lr, "base_lr": cfg.train.lr}]
    if chunk:
        groups.append({"params": chunk, "lr": cfg.train.lr_chunk_encoder, "base_lr": cfg.train.lr_chunk_encoder})
    name = cfg.train.optimizer.lower()
    if name == "sgd":
        return torch.optim.SGD(groups, lr=cfg.train.lr)
    if name == "adagrad":
        return torch.optim.Adagrad(groups, lr=cfg.train.lr)
    if name == "adam":
        return torch.optim.Adam(groups, lr=cfg.train.lr)
    raise TrainingError(
        f"train.optimizer: unknown optimizer {cfg.train.optimizer!r}, expected one of sgd, adagrad, adam"
    )


def loss_target(model: Summarizer, batch) -> torch.Tensor:
    """Extended-vocabulary targets for models that copy, plain vocabulary ids otherwise."""
    return batch.tgt_ext if getattr(model, "copies", False) else batch.tgt_out


@torch.no_grad()
def perplexity(
    model: Summarizer, examples: list[Example], cfg: Config, device: torch.device, batch_size: int | None = None
) -> tuple[float, float, int]:
    """Teacher-forced perplexity over ``examples``: (ppl, summed NLL, tokens)."""
    was_training = model.training
    model.eval()
    total, tokens = 0.0, 0
    lengths = [len(e.src) for e in examples]
    for idx in bucketed_batches(
        len(examples),
        lengths,
        batch_size=batch_size or cfg.train.batch_size,
        bucket_size=1,
        seed=0,
        epoch=0,
        shuffle=False,
    ):
        batch = collate([examples[i] for i in idx], chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len).to(device)
        out = model(batch.src, batch.src_mask, batch.tgt_in, batch.src_ext, batch.n_ext, loss_target(model, batch))
        assert out.target_lp is not None  # forward was given the target
        total += -float((out.target_lp * batch.tgt_mask.to(out.target_lp.dtype)).sum())
        tokens += batch.n_tokens
    model.train(was_training)
    return math.exp(min(total / max(tokens, 1), 50.0)), total, tokens


class Trainer:
    """Trains ``cfg`` on a prepared data directory into a run directory.

    Files in ``out``: ``config.json`` (resolved), ``metrics.jsonl`` (one row per log/validation
    event), ``tb/`` (TensorBoard), ``last/`` and ``best/`` checkpoints.
    """

    def __init__(
        self,
        cfg: Config,
        data_dir: str | Path,
        out: str | Path,
        *,
        resume: bool = False,
        progress: bool = True,
        validate_fn=None,
    ):
        self.cfg = cfg
        self.data_dir = Path(data_dir)
        self.out = Path(out)
        self.progress = progress
        self.validate_fn = validate_fn
        vocab_path = self.data_dir / "vocab.txt"
        if not vocab_path.exists():
            raise TrainingError(f"{self.data_dir}: no vocab.txt (run `c2fsum prepare` first)")
        self.vocab = Vocab.load(vocab_path)
        n_words = cfg.data.vocab_size
        if n_words and len(self.vocab) > n_words + 4:  # keep the specials and the n most frequent
            self.vocab = Vocab(self.vocab.itos[: n_words + 4], self.vocab.counts[: n_words + 4])
        if torch.device(cfg.train.device).type == "cuda" and not torch.cuda.is_available():
            raise TrainingError("--device cuda asked for, but torch sees no CUDA device")
        if cfg.train.amp not in ("off", "bf16"):
            raise TrainingError(f"train.amp: got {cfg.train.amp!r}, expected off or bf16")
        if cfg.train.accumulate < 1:
            raise TrainingError(f"train.accumulate: got {cfg.train.accumulate}, expected a positive integer")
        try:
            self.dist = setup_distributed(cfg.train.device, cfg.train.dist_backend)  # no-op outside torchrun
        except DistributedError as e:
            raise TrainingError(str(e)) from e
        self.device = self.dist.device
        self.progress = progress and self.dist.is_main
        if cfg.train.threads > 0:
            torch.set_num_threads(cfg.train.threads)
        if cfg.train.best_metric not in ("ppl", "rougeL"):
            raise TrainingError(f"train.best_metric: got {cfg.train.best_metric!r}, expected ppl or rougeL")
        if cfg.train.objective not in ("ml", "mixed"):
            raise TrainingError(f"train.objective: got {cfg.train.objective!r}, expected ml or mixed")
        self.train_ex, self.val_ex = load_splits(self.data_dir, self.vocab, cfg)
        # recorded in every checkpoint: the model's default decode.min_len comes from these
        self.target_lengths = target_length_facts([len(e.tgt) for e in self.train_ex])
        if cfg.train.best_metric == "rougeL" and self.validate_fn is None:
            from c2fsum.evaluation.validation import rouge_validation

            self.validate_fn = rouge_validation(cfg, self.vocab)
        torch.manual_seed(cfg.train.seed)
        self.model = build_model(cfg.model, len(self.vocab), cfg.data.chunks).to(self.device)
        if self.dist.rank > 0:  # same weights everywhere, own sampling noise per rank
            torch.manual_seed(rank_seed(cfg.train.seed, self.dist.rank))
        if cfg.model.pretrained_emb:
            from c2fsum.modules.embeddings import load_pretrained

            for emb in (self.model.src_emb, self.model.tgt_emb):
                load_pretrained(
                    cast(torch.nn.Embedding, emb),
                    self.vocab.itos,
                    cfg.model.pretrained_emb,
                    binary=cfg.model.pretrained_binary,
                )
        self.optimizer = make_optimizer(self.model, cfg)
        self.schedule = Schedule()
        self.pos = Position()
        self.baseline = MovingAverageBaseline(cfg.train.reinforce_beta)
        self._last_rewards: tuple[float, float] | None = None
        self._return_sums: list[tuple[torch.Tensor, torch.Tensor]] = []
        self._policy_used = False
        self.out.mkdir(parents=True, exist_ok=True)
        self.metrics_path = self.out / "metrics.jsonl"
        if resume:
            self._resume()
        else:
            if existing_checkpoint_dir(self.out / "last") is not None:
                raise TrainingError(
                    f"{self.out} already holds a run; use --resume to continue it or choose another --out"
                )
            if cfg.train.init_from:
                self._init_from(cfg.train.init_from)
            if self.dist.is_main:
                self.metrics_path.write_text("", encoding="utf-8")
        if self.dist.is_main:
            write_json(self.out / "config.json", cfg.to_dict())
        self._tb = None
        # several processes: DDP averages gradients over ranks (rank 0's weights are broadcast first)
        self._ddp = wrap_distributed(self.model, self.batch_loss, self.dist) if self.dist.enabled else None

    # -- state ---------------------------------------------------------------------------
    def _resume(self) -> None:
        ckpt = existing_checkpoint_dir(self.out / "last")
        if ckpt is None:
            raise TrainingError(f"--resume: {self.out}/last does not exist")
        verify_checkpoint(ckpt)
        load_weights(self.model, ckpt / "model.safetensors", vocab_size=len(self.vocab))
        state = read_json(ckpt / "trainer.json")
        restore_optimizer(ckpt, self.optimizer, state)
        self.schedule = Schedule(**state["schedule"])
        p = state["position"]
        self.pos = Position(**p)
        self.baseline = MovingAverageBaseline(self.cfg.train.reinforce_beta, state.get("baseline"))
        restore_rng(ckpt)
        if self.dist.rank > 0:
            ranks = state.get("rank_rng") or []
            if len(ranks) == self.dist.world - 1:
                set_rng_state(ranks[self.dist.rank - 1])
            else:
                log.warning(
                    "%s was written by %d process(es), this run has %d: rank %d draws new random numbers",
                    ckpt,
                    len(ranks) + 1,
                    self.dist.world,
                    self.dist.rank,
                )
                torch.manual_seed(rank_seed(self.cfg.train.seed + self.pos.step, self.dist.rank))
        # drop log rows written after the checkpoint (and a line cut by a crash), so the log reads as one run
        if self.dist.is_main and self.metrics_path.exists():
            keep = []
            for x in self.metrics_path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    r = json.loads(x)
                except json.JSONDecodeError:
                    continue
                if isinstance(r, dict) and r.get("step", 0) <= self.pos.step:
                    keep.append(r)
            atomic_write_text(self.metrics_path, "".join(json.dumps(r) + "\n" for r in keep))
        log.info("resumed from %s at step %d (epoch %d, batch %d)", ckpt, self.pos.step, self.pos.epoch, self.pos.batch)

    def _init_from(self, path: str) -> None:
        """Copy the weights of another run (same architecture), e.g. an ML-trained model for RL."""
        ckpt = resolve_checkpoint(path)
        verify_checkpoint(ckpt)
        weights = read_tensors(ckpt / "model.safetensors")
        own = self.model.state_dict()
        bad = [k for k, v in weights.items() if k not in own or own[k].shape != v.shape]
        if bad or set(own) - set(weights):
            raise TrainingError(
                f"train.init_from={path}: {ckpt} does not match this model "
                f"(e.g. {(bad or sorted(set(own) - set(weights)))[:3]})"
            )
        self.model.load_state_dict(weights)
        log.info("initialized from %s", ckpt)

    def _trainer_state(self) -> dict:
        return {
            "schedule": vars(self.schedule).copy(),
            "position": vars(self.pos).copy(),
            "baseline": self.baseline.state(),
        }

    def _set_lr(self) -> None:
        for g in self.optimizer.param_groups:
            g["lr"] = g["base_lr"] * self.schedule.scale

    def _save(self, name: str) -> None:
        """Write a checkpoint (rank 0); with several processes it also holds the other ranks' RNGs."""
        state = self._trainer_state()
        if self.dist.enabled:
            state["rank_rng"] = self.dist.gather(rng_state())[1:]
        if self.dist.is_main:
            save_checkpoint(
                self.out / name,
                model=self.model,
                config=self.cfg,
                vocab=self.vocab,
                trainer_state=state,
                optimizer=self.optimizer,
                lengths=self.target_lengths,
            )

    def _log(self, row: dict) -> None:
        if not self.dist.is_main:
            return
        append_jsonl(self.metrics_path, row)
        tb = self._writer()
        if tb is not None:
            for k, v in row.items():
                if isinstance(v, int | float) and k not in ("step", "epoch"):
                    tb.add_scalar(f"{row['split']}/{k}", v, row["step"])

    def _writer(self):
        if self._tb is None:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # tensorboard is a dependency, but keep training without it
                self._tb = False
                log.warning("tensorboard is not installed: metrics go to metrics.jsonl only")
            else:
                self._tb = SummaryWriter(str(self.out / "tb"))
        return self._tb or None

    # -- validation ----------------------------------------------------------------------
    def validate(self) -> dict:
        """Validation perplexity (each rank scores its share, sums all-reduced) and, for
        ``best_metric=rougeL``, ROUGE of greedy summaries (rank 0, broadcast): equal on every rank."""
        rank, world = self.dist.rank, self.dist.world
        tokens: float  # an int count; a float once summed over ranks
        ppl, nll, tokens = perplexity(self.model, self.val_ex[rank::world], self.cfg, self.device)
        if self.dist.enabled:
            nll, tokens = self.dist.all_sum([nll, tokens])
            ppl = math.exp(min(nll / max(tokens, 1), 50.0))
        row = {
            "split": "val",
            "step": self.pos.step,
            "epoch": self.pos.epoch,
            "ppl": ppl,
            "nll_per_token": nll / max(tokens, 1),
        }
        if self.cfg.train.best_metric == "rougeL" and self.validate_fn is not None:
            scores = (
                self.validate_fn(self.model, self.val_ex[: self.cfg.train.rouge_val_docs])
                if self.dist.is_main
                else None
            )
            row.update(self.dist.broadcast(scores))
        self._log(row)
        return row

    def _maybe_best(self, row: dict) -> None:
        better_low = self.cfg.train.best_metric == "ppl"
        value = row["ppl"] if better_low else row.get("rougeL", -row["ppl"])
        best = self.schedule.best
        if best is None or (value < best if better_low else value > best):
            self.schedule.best = value
            self.schedule.best_step = self.pos.step
            self._save("best")

    def choose_attention(self) -> None:
        """MODEL 3: +PRETRAIN and +ALTERNATE switch a whole (global) minibatch to soft attention;
        with several processes rank 0 draws and every rank follows. The switch lasts for one
        training step (:meth:`train_step` clears it) and acts in training mode only, so
        validation and evaluation always read the hard model (argmax)."""
        tc, model = self.cfg.train, self.model
        if getattr(model, "coarse", None) == "hard":
            soft = self.pos.epoch < tc.soft_pretrain_epochs
            if not soft and tc.alternate > 0:
                soft = bool(torch.rand(()) < tc.alternate)
            # use_soft exists on CoarseToFine only; mypy types nn.Module attributes as Tensor | Module
            model.use_soft = (
                self.dist.broadcast(soft) if self.dist.enabled and tc.alternate > 0 else soft  # type: ignore[assignment]
            )

    def batch_loss(self, batch, docs: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Loss to minimize (per document) and the summed token NLL of one training batch.

        ``docs`` divides the summed loss (default: the batch's documents). A shard of a global
        batch of D documents on one of W processes uses D / W (DDP averages over processes);
        a micro-batch too, so the gradients add up to those of the whole batch.
        For MODEL 3 the REINFORCE term of the hard coarse choices is added (thesis 4.4.1); its
        summed returns are kept for the baseline update after the optimizer step.
        """
        tc, model = self.cfg.train, self.model
        docs = batch.size if docs is None else docs
        out = model(batch.src, batch.src_mask, batch.tgt_in, batch.src_ext, batch.n_ext, loss_target(model, batch))
        assert out.target_lp is not None  # forward was given the target
        lp = out.target_lp * batch.tgt_mask.to(out.target_lp.dtype)  # (B, T), 0 on padding
        nll = -lp.sum()
        loss = nll / docs
        if tc.objective == "mixed":
            loss = mixed_loss(self.self_critical(batch) / docs, loss, tc.rl_weight)
        if out.policy is not None:
            returns = discounted_returns(lp.detach(), batch.tgt_mask, tc.reinforce_gamma)  # (B, T)
            base = self.baseline.get(returns.size(1), returns.device, returns.dtype)
            loss = loss + reinforce_loss(out.policy, returns, base, batch.tgt_mask, tc.reinforce_scale) / docs
            self._return_sums.append(MovingAverageBaseline.return_sums(returns, batch.tgt_mask))
            self._policy_used = True
        return loss, nll

    def train_step(self, indices: list[int]) -> float:
        """One optimizer step on the global batch ``indices``; returns this rank's summed NLL.

        This rank trains on its shard of the batch, in ``train.accumulate`` micro-batches (DDP
        synchronizes gradients on the last one only), under bf16 autocast if ``train.amp``.
        A rank whose shard is empty (a batch smaller than the number of processes) runs one
        document with weight 0, because every rank must take part in the gradient average.
        """
        self.choose_attention()
        try:
            return self._train_step(indices)
        finally:
            if getattr(self.model, "use_soft", False):
                self.model.use_soft = False  # type: ignore[assignment]  # the soft switch lasts one step

    def _train_step(self, indices: list[int]) -> float:
        cfg, tc = self.cfg, self.cfg.train
        local = shard_batch(indices, self.dist.rank, self.dist.world)
        idle = not local
        if idle:
            local = [indices[0]]
        parts = min(tc.accumulate, len(local))
        micro = [shard_batch(local, j, parts) for j in range(parts)]
        docs = len(indices) / self.dist.world
        loss_fn = self._ddp if self._ddp is not None else self.batch_loss
        self._return_sums, self._policy_used = [], False
        self.optimizer.zero_grad(set_to_none=True)
        total, fault = 0.0, None
        for j, idx in enumerate(micro):
            batch = collate([self.train_ex[i] for i in idx], chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len).to(
                self.device
            )
            last = j == len(micro) - 1
            with self._ddp.no_sync() if self._ddp is not None and not last else nullcontext():
                with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=tc.amp == "bf16"):
                    try:  # NaN/Inf guard: see _skip_step
                        loss, nll = loss_fn(batch, docs)
                        require_finite("training loss", loss)
                    except NonFiniteError as e:
                        if self._ddp is not None:  # every rank must join the all-reduce
                            raise
                        fault = str(e)
                        break
                if idle:
                    loss = loss * 0.0
                loss.backward()
            total += 0.0 if idle else float(nll.detach())
        if idle:
            self._return_sums = []
        if fault is None:
            fault = self._clip_checked([p for p in self.model.parameters() if p.requires_grad], tc.max_grad_norm)
        if self.dist.enabled and self.dist.any(fault is not None):
            fault = fault or "another process saw NaN/Inf"
        if fault is not None:
            self._return_sums = []
            self._skip_step(fault)
            return 0.0
        self.optimizer.step()
        self.pos.nonfinite_in_a_row = 0
        if self._policy_used:
            self._update_baseline()
        return total

    def _update_baseline(self) -> None:
        """Move MODEL 3's baselines towards the mean return of the whole global batch (all ranks)."""
        T = max((s.numel() for s, _ in self._return_sums), default=0)
        sums, counts = torch.zeros(T, dtype=torch.float64), torch.zeros(T, dtype=torch.float64)
        for s, c in self._return_sums:
            sums[: s.numel()] += s
            counts[: c.numel()] += c
        sums, counts = sync_return_sums(self.dist, sums, counts)
        self.baseline.update_from_sums(sums, counts)
        self._return_sums = []

    def self_critical(self, batch) -> torch.Tensor:
        """L_rl summed over the batch: sample y^s, decode y^ greedily, reward = ROUGE-L F vs the target."""
        from c2fsum.decoding.greedy import greedy_decode
        from c2fsum.decoding.postprocess import ids_to_words, words_to_text
        from c2fsum.decoding.sampling import sample
        from c2fsum.metrics.rouge import score_pair

        model, max_len = self.model, self.cfg.data.max_tgt_len + 1
        memory = model.encode(batch.src, batch.src_mask, batch.src_ext, batch.n_ext)
        drawn = sample(model, memory, max_len=max_len)
        model.eval()
        with torch.no_grad():
            greedy = greedy_decode(
                model, model.encode(batch.src, batch.src_mask, batch.src_ext, batch.n_ext), max_len=max_len
            )
        model.train()

        def reward(tokens: list[int], ex) -> float:
            words = ids_to_words(tokens, self.vocab.itos, ex.oovs)
            return score_pair(words_to_text(words), " ".join(ex.tgt_words))["rougeL"]

        r_sample = torch.tensor(
            [reward(t, ex) for t, ex in zip(drawn.token_lists(), batch.examples, strict=True)], dtype=torch.float32
        )
        r_greedy = torch.tensor(
            [reward(h.tokens, ex) for h, ex in zip(greedy, batch.examples, strict=True)], dtype=torch.float32
        )
        require_finite("self-critical rewards of the sampled summaries", r_sample)
        require_finite("self-critical rewards of the greedy summaries", r_greedy)
        self._last_rewards = (float(r_sample.mean()), float(r_greedy.mean()))
        return self_critical_loss(drawn.logprob, r_sample.to(drawn.logprob.device), r_greedy.to(drawn.logprob.device))

    # -- NaN/Inf guard ---------------------------------------------------------------------
    def _clip_checked(self, params: list[torch.nn.Parameter], max_norm: float) -> str | None:
        """Clip the gradients to ``max_norm`` (0: no clipping); the reason if their norm is NaN/Inf."""
        norm = torch.nn.utils.clip_grad_norm_(params, max_norm if max_norm > 0 else math.inf)
        if not bool(torch.isfinite(norm)):
            return f"gradient norm is {float(norm)}"
        return None

    def _skip_step(self, reason: str) -> None:
        """Leave the parameters and the optimizer untouched for this batch and warn; past
        ``train.max_nonfinite_steps`` consecutive skips, stop with :class:`TrainingError` (no
        checkpoint is written, so ``last/`` keeps the last good parameters)."""
        self.optimizer.zero_grad(set_to_none=True)
        self.pos.skipped += 1
        self.pos.nonfinite_in_a_row += 1
        limit = self.cfg.train.max_nonfinite_steps
        where = f"step {self.pos.step + 1} (epoch {self.pos.epoch}, batch {self.pos.batch})"
        if self.pos.nonfinite_in_a_row > limit:
            raise TrainingError(
                f"{where}: {self.pos.nonfinite_in_a_row} consecutive steps with NaN/Inf "
                f"(train.max_nonfinite_steps={limit}); last: {reason}. Training stopped; the "
                f"last good checkpoint {self.out / 'last'} is intact (lower train.lr, then "
                "--resume)"
            )
        log.warning(
            "%s: skipped, %s (%d in a row, %d in all; limit %d in a row)",
            where,
            reason,
            self.pos.nonfinite_in_a_row,
            self.pos.skipped,
            limit,
        )

    # -- the loop ------------------------------------------------------------------------
    def fit(self) -> dict:
        cfg, tc = self.cfg, self.cfg.train
        lengths = [len(e.tgt) * 1000 + len(e.src) for e in self.train_ex]
        n_batches = math.ceil(len(self.train_ex) / tc.batch_size)
        total = tc.epochs * n_batches
        if tc.max_steps:
            total = min(total, tc.max_steps)
        start_time = time.monotonic() - self.pos.elapsed
        bar = tqdm(
            total=total,
            initial=min(self.pos.step, total),
            disable=not self.progress,
            desc="train",
            unit="step",
            dynamic_ncols=True,
        )
        self._set_lr()
        self.model.train()
        stop_reason = "epochs"
        window_nll, window_tok, window_t0 = 0.0, 0, time.monotonic()
        # with C2FSUM_MALLOC=keep: reuse the step's large blocks instead of page-faulting them anew
        # (utils/malloc.py; off by default, it costs 10-30% peak RSS)
        keep_freed_memory(largest_parameter_bytes(self.model))
        last_row: dict | None = None
        while self.pos.epoch < tc.epochs:
            batches = bucketed_batches(
                len(self.train_ex),
                lengths,
                batch_size=tc.batch_size,
                bucket_size=cfg.data.bucket_size,
                seed=tc.seed,
                epoch=self.pos.epoch,
            )
            while self.pos.batch < len(batches):
                if tc.max_steps and self.pos.step >= tc.max_steps:
                    stop_reason = "max_steps"
                    break
                if tc.max_minutes and self.dist.any((time.monotonic() - start_time) >= tc.max_minutes * 60):
                    stop_reason = "max_minutes"
                    break
                indices = batches[self.pos.batch]
                nll = self.train_step(indices)
                self.pos.step += 1
                self.pos.batch += 1
                # tokens of the global batch (every rank holds every example): target incl. </s>, source
                tgt_tok = sum(len(self.train_ex[i].tgt) + 1 for i in indices)
                self.pos.tokens += tgt_tok + sum(len(self.train_ex[i].src) for i in indices)
                window_nll += nll
                window_tok += tgt_tok
                bar.update(1)
                if self.pos.step % max(1, tc.log_every) == 0 or self.pos.batch == len(batches):
                    dt = max(time.monotonic() - window_t0, 1e-9)
                    if self.dist.enabled:
                        (window_nll,) = self.dist.all_sum([window_nll])
                    row = {
                        "split": "train",
                        "step": self.pos.step,
                        "epoch": self.pos.epoch,
                        "ppl": math.exp(min(window_nll / max(window_tok, 1), 50.0)),
                        "lr": self.optimizer.param_groups[0]["lr"],
                        "tgt_tokens_per_s": window_tok / dt,
                    }
                    if self._last_rewards is not None:
                        row["reward_sample"], row["reward_greedy"] = self._last_rewards
                    self._log(row)
                    bar.set_postfix(
                        loss=f"{window_nll / max(window_tok, 1):.3f}",
                        ppl=f"{row['ppl']:.1f}",
                        tok_s=f"{window_tok / dt:.0f}",
                    )
                    window_nll, window_tok, window_t0 = 0.0, 0, time.monotonic()
                if tc.eval_every and self.pos.step % tc.eval_every == 0:
                    self.pos.elapsed = time.monotonic() - start_time
                    last_row = self.validate()
                    self._maybe_best(last_row)
                    self._save("last")
            else:
                # end of epoch: validate, adjust the learning rate, checkpoint
                self.pos.elapsed = time.monotonic() - start_time
                last_row = self.validate()
                self.schedule.end_of_epoch(last_row["ppl"], tc.lr_decay)
                self.pos.epoch += 1
                self.pos.batch = 0
                self._maybe_best(last_row)
                self._set_lr()
                self._save("last")
                continue
            break
        self.pos.elapsed = time.monotonic() - start_time
        bar.close()
        if last_row is None or last_row["step"] != self.pos.step:
            last_row = self.validate()
            self._maybe_best(last_row)
        self._save("last")
        if self._tb:
            self._tb.close()
        self.dist.barrier()  # rank 0 has written the checkpoint before anyone moves on
        summary = {
            "stop": stop_reason,
            "steps": self.pos.step,
            "epochs_done": self.pos.epoch,
            "val_ppl": last_row["ppl"],
            "best": self.schedule.best,
            "best_step": self.schedule.best_step,
            "elapsed_s": round(self.pos.elapsed, 1),
            "run_dir": str(self.out),
        }
        log.info("training stopped (%s) at step %d: val ppl %.2f", stop_reason, self.pos.step, last_row["ppl"])
        return summary
