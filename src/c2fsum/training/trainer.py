"""The training loop: the paper's recipe, resumable to the bit on CPU.

Where the parts live: the loss of a batch (NLL, REINFORCE and its baseline, self-critical, the
MODEL 3 soft/hard schedule) in :mod:`c2fsum.training.objective`; the optimizer and its
schedule in :mod:`c2fsum.training.optim`; the training and validation examples in
:mod:`c2fsum.training.splits`; perplexity in :mod:`c2fsum.evaluation.perplexity`; random
generator states in :mod:`c2fsum.training.rng`; processes in :mod:`c2fsum.training.distributed`.
This module keeps the loop, micro-batches, the NaN/Inf guard, resume, checkpoints and logging.

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

from c2fsum.config import Config
from c2fsum.data.batching import bucketed_batches, collate, shard_batch
from c2fsum.data.lengths import target_length_facts
from c2fsum.data.vocab import Vocab
from c2fsum.errors import TrainingError
from c2fsum.evaluation.perplexity import perplexity
from c2fsum.losses.checks import NonFiniteError, require_finite
from c2fsum.losses.reinforce import MovingAverageBaseline
from c2fsum.models import CoarseToFine, build_model
from c2fsum.models.checkpoint import load_weights, read_json, read_tensors, resolve_checkpoint, verify_checkpoint
from c2fsum.training import rng
from c2fsum.training.checkpoint import restore_optimizer, save_checkpoint
from c2fsum.training.distributed import DistributedError, rank_seed, sync_return_sums
from c2fsum.training.distributed import setup as setup_distributed
from c2fsum.training.distributed import wrap as wrap_distributed
from c2fsum.training.objective import (
    OBJECTIVES,
    Objective,
    add_return_sums,
    batch_loss,
    rouge_l_reward,
    soft_attention_for_batch,
)
from c2fsum.training.optim import Schedule, make_optimizer
from c2fsum.training.progress import TrainingBar
from c2fsum.training.splits import load_splits
from c2fsum.utils.io import append_jsonl, atomic_write_text, existing_checkpoint_dir, write_json
from c2fsum.utils.malloc import keep_freed_memory, largest_parameter_bytes

log = logging.getLogger(__name__)


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
        if cfg.train.objective not in OBJECTIVES:
            raise TrainingError(f"train.objective: got {cfg.train.objective!r}, expected ml or mixed")
        self.objective = Objective.from_config(cfg)
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
            from c2fsum.data.vectors import read_vectors
            from c2fsum.modules.embeddings import load_pretrained

            vectors = read_vectors(cfg.model.pretrained_emb, binary=cfg.model.pretrained_binary)  # read once
            tables = [self.model.src_emb, self.model.tgt_emb]
            chunk_encoder = getattr(self.model, "chunk_encoder", None)
            if chunk_encoder is not None and chunk_encoder.kind == "bow":  # the thesis's fixed word vectors
                tables.append(chunk_encoder.body.emb)
            for emb in dict.fromkeys(tables):  # one when shared
                load_pretrained(cast(torch.nn.Embedding, emb), self.vocab.itos, vectors)
        self.optimizer = make_optimizer(self.model, cfg)
        self.schedule = Schedule()
        self.pos = Position()
        self.baseline = MovingAverageBaseline(cfg.train.reinforce_beta)
        self.reward = rouge_l_reward(self.vocab.itos)  # of the self-critical term (train.objective=mixed)
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
        rng.load(ckpt)
        if self.dist.rank > 0:
            ranks = state.get("rank_rng") or []
            if len(ranks) == self.dist.world - 1:
                rng.restore(ranks[self.dist.rank - 1])
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
        """Copy the weights of another run (same architecture), e.g. an ML-trained model for RL.

        A flat model (MODEL 0/1) may also start a hierarchical one of the same sizes (MODEL 2/3):
        everything but the chunk encoder and the coarse attention map is copied
        (:meth:`CoarseToFine.weights_from_flat`), so MODEL 3 starts reading with a trained
        encoder, decoder and generator and has only to learn where to read."""
        ckpt = resolve_checkpoint(path)
        verify_checkpoint(ckpt)
        weights = read_tensors(ckpt / "model.safetensors")
        own = self.model.state_dict()
        fresh: list[str] = []
        source = read_json(ckpt / "config.json").get("model", {}).get("family")
        if isinstance(self.model, CoarseToFine) and source in ("model0", "model1"):
            # a flat model warm-starts a hierarchical one: all but the chunk encoder and W_s
            weights = CoarseToFine.weights_from_flat(weights)
            fresh = [k for k in own if k not in weights and k.startswith(CoarseToFine.NEW_OVER_FLAT)]
        bad = [k for k, v in weights.items() if k not in own or own[k].shape != v.shape]
        if bad or set(own) - set(weights) - set(fresh):
            raise TrainingError(
                f"train.init_from={path}: {ckpt} does not match this model "
                f"(e.g. {(bad or sorted(set(own) - set(weights) - set(fresh)))[:3]})"
            )
        self.model.load_state_dict(weights, strict=not fresh)
        log.info("initialized from %s%s", ckpt, f" ({source}; new: {', '.join(fresh)})" if fresh else "")

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
            state["rank_rng"] = self.dist.gather(rng.capture())[1:]  # rank 0's: rng.json
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
        """MODEL 3: +PRETRAIN and +ALTERNATE switch a whole (global) minibatch to soft attention
        (:func:`~c2fsum.training.objective.soft_attention_for_batch`); with several processes
        rank 0 draws and every rank follows. The switch lasts for one training step
        (:meth:`train_step` clears it) and acts in training mode only, so validation and
        evaluation always read the hard model (argmax)."""
        tc = self.cfg.train
        soft = soft_attention_for_batch(
            self.model, epoch=self.pos.epoch, soft_pretrain_epochs=tc.soft_pretrain_epochs, alternate=tc.alternate
        )
        if soft is not None:
            # use_soft exists on CoarseToFine only; mypy types nn.Module attributes as Tensor | Module
            self.model.use_soft = (
                self.dist.broadcast(soft) if self.dist.enabled and tc.alternate > 0 else soft  # type: ignore[assignment]
            )

    def batch_loss(self, batch, docs: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Loss to minimize (per document) and the summed token NLL of one training batch
        (:func:`c2fsum.training.objective.batch_loss`).

        ``docs`` divides the summed loss (default: the batch's documents). A shard of a global
        batch of D documents on one of W processes uses D / W (DDP averages over processes);
        a micro-batch too, so the gradients add up to those of the whole batch.
        MODEL 3's summed returns are kept for the baseline update after the optimizer step.
        """
        out = batch_loss(self.model, batch, self.objective, self.baseline, docs=docs, reward=self.reward)
        if out.rewards is not None:
            self._last_rewards = out.rewards
        if out.return_sums is not None:
            self._return_sums.append(out.return_sums)
            self._policy_used = True
        return out.loss, out.nll

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
        sums, counts = sync_return_sums(self.dist, *add_return_sums(self._return_sums))
        self.baseline.update_from_sums(sums, counts)
        self._return_sums = []

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
        bar = TrainingBar(  # with a time budget the bar counts its seconds, not the epochs' steps
            max_steps=total,
            max_minutes=tc.max_minutes,
            step=self.pos.step,
            elapsed_s=self.pos.elapsed,
            disable=not self.progress,
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
                bar.advance(self.pos.step, time.monotonic() - start_time)
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
