"""The training loop: the paper's recipe, resumable to the bit on CPU.

Where the parts live: the loss of a batch (NLL, REINFORCE and its baseline, self-critical, the
MODEL 3 soft/hard schedule) in :mod:`c2fsum.training.objective`; the optimizer and its
schedule in :mod:`c2fsum.training.optim`; the training and validation examples in
:mod:`c2fsum.training.splits`; perplexity in :mod:`c2fsum.evaluation.perplexity`; random
generator states in :mod:`c2fsum.training.rng`; processes in :mod:`c2fsum.training.distributed`;
resuming from a checkpoint in :mod:`c2fsum.training.checkpoint`, and starting from another run's
weights (``train.init_from``) in :mod:`c2fsum.models.checkpoint`; the config's values are checked
when it is loaded (:func:`c2fsum.config.check`). This module keeps the loop (:meth:`Trainer.fit`
and the named steps it calls), micro-batches, the NaN/Inf guard and logging.

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
from c2fsum.errors import CheckpointError, TrainingError
from c2fsum.evaluation.perplexity import perplexity
from c2fsum.losses.checks import NonFiniteError, require_finite
from c2fsum.losses.reinforce import MovingAverageBaseline
from c2fsum.models import build_model
from c2fsum.models.base import DEFAULT_READING, Reading
from c2fsum.models.checkpoint import warm_start
from c2fsum.training import rng
from c2fsum.training.checkpoint import restore_training, rewind_log, save_checkpoint, truncate_log
from c2fsum.training.distributed import DistributedError, rank_seed, sync_return_sums
from c2fsum.training.distributed import setup as setup_distributed
from c2fsum.training.distributed import wrap as wrap_distributed
from c2fsum.training.objective import (
    Objective,
    add_return_sums,
    batch_loss,
    rouge_l_reward,
    soft_attention_for_batch,
)
from c2fsum.training.optim import Schedule, make_optimizer
from c2fsum.training.progress import TrainingBar
from c2fsum.training.splits import load_splits
from c2fsum.utils.io import append_jsonl, existing_checkpoint_dir, write_json
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


def read_vocab(data_dir: Path, vocab_size: int = 0) -> Vocab:
    """A prepared data folder's ``vocab.txt``: the specials and its ``vocab_size`` most frequent words
    (``data.vocab_size``; 0: all of it)."""
    path = data_dir / "vocab.txt"
    if not path.exists():
        raise TrainingError(f"{data_dir}: no vocab.txt (run `c2fsum prepare` first)")
    vocab = Vocab.load(path)
    if vocab_size and len(vocab) > vocab_size + 4:  # keep the specials and the n most frequent
        vocab = Vocab(vocab.itos[: vocab_size + 4], vocab.counts[: vocab_size + 4])
    return vocab


def cpu_bf16_lstm_available() -> bool:
    """Whether an LSTM runs under bf16 autocast on this CPU: oneDNN builds its bf16 LSTM primitive
    only where the instruction set has bf16 (AVX-512 BF16, AMX), and raises a RuntimeError
    elsewhere (seen with ``ONEDNN_MAX_CPU_ISA=AVX2``). Probed once on a 1x1x2 LSTM."""
    global _BF16_LSTM
    if _BF16_LSTM is None:
        try:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                torch.nn.LSTM(2, 2, batch_first=True)(torch.zeros(1, 1, 2))
            _BF16_LSTM = True
        except RuntimeError:
            _BF16_LSTM = False
    return _BF16_LSTM


_BF16_LSTM: bool | None = None


class Trainer:
    """Trains ``cfg`` on a prepared data directory into a run directory.

    Files in ``out``: ``config.json`` (resolved), ``metrics.jsonl`` (one row per log/validation
    event), ``tb/`` (TensorBoard), ``last/`` and ``best/`` checkpoints. Each checkpoint's
    ``trainer.json`` holds the schedule, the position, the baseline and ``log``: the rows
    ``metrics.jsonl`` held when it was written and the last validation row, so that a resumed run
    cuts the log to those rows and never validates a step twice.
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
        self.vocab = read_vocab(self.data_dir, cfg.data.vocab_size)
        if torch.device(cfg.train.device).type == "cuda" and not torch.cuda.is_available():
            raise TrainingError("--device cuda asked for, but torch sees no CUDA device")
        try:
            self.dist = setup_distributed(cfg.train.device, cfg.train.dist_backend)  # no-op outside torchrun
        except DistributedError as e:
            raise TrainingError(str(e)) from e
        self.device = self.dist.device
        if cfg.train.amp == "bf16" and self.device.type == "cpu" and not cpu_bf16_lstm_available():
            raise TrainingError(
                "train.amp=bf16: this CPU's oneDNN has no bfloat16 LSTM (it needs AVX-512 BF16 or AMX; "
                "an AVX2 CPU refuses the primitive); train with train.amp=off here, or on a GPU"
            )
        self.progress = progress and self.dist.is_main
        if cfg.train.threads > 0:
            torch.set_num_threads(cfg.train.threads)
        self.objective = Objective.from_config(cfg)
        self.train_ex, self.val_ex = load_splits(self.data_dir, self.vocab, cfg)
        # recorded in every checkpoint: the model's default decode.min_len comes from these
        self.target_lengths = target_length_facts([len(e.tgt) for e in self.train_ex])
        if (cfg.train.best_metric == "rougeL" or cfg.train.val_rouge) and self.validate_fn is None:
            from c2fsum.evaluation.validation import rouge_validation

            self.validate_fn = rouge_validation(cfg, self.vocab)
        torch.manual_seed(cfg.train.seed)
        self.model = build_model(cfg.model, len(self.vocab), cfg.data.chunks).to(self.device)
        if self.dist.rank > 0:  # same weights everywhere, own sampling noise per rank
            torch.manual_seed(rank_seed(cfg.train.seed, self.dist.rank))
        if cfg.model.pretrained_emb:
            self._load_vectors()
        self.optimizer = make_optimizer(self.model, cfg)
        self.schedule = Schedule()
        self.pos = Position()
        self.baseline = MovingAverageBaseline(cfg.train.reinforce_beta)
        self.reward = rouge_l_reward(self.vocab.itos)  # of the self-critical term (train.objective=mixed)
        self._last_rewards: tuple[float, float] | None = None
        self._return_sums: list[tuple[torch.Tensor, torch.Tensor]] = []
        self._policy_used = False
        self.log_rows = 0
        """Rows written to ``metrics.jsonl`` (by this run and the ones it resumes); saved in each checkpoint."""
        self.last_val: dict | None = None
        """The last validation row; saved in each checkpoint, so a resumed run does not validate a step twice."""
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

    def _load_vectors(self) -> None:
        """``model.pretrained_emb``: the vectors (read once) start the source and target embeddings
        and a BOW chunk encoder's fixed table (each table once when shared)."""
        from c2fsum.data.vectors import read_vectors
        from c2fsum.modules.embeddings import load_pretrained

        mc = self.cfg.model
        vectors = read_vectors(mc.pretrained_emb, binary=mc.pretrained_binary)
        tables = [self.model.src_emb, self.model.tgt_emb]
        chunk_encoder = getattr(self.model, "chunk_encoder", None)
        if chunk_encoder is not None and chunk_encoder.kind == "bow":  # the thesis's fixed word vectors
            tables.append(chunk_encoder.body.emb)
        for emb in dict.fromkeys(tables):  # one when shared
            load_pretrained(cast(torch.nn.Embedding, emb), self.vocab.itos, vectors)

    # -- state ---------------------------------------------------------------------------
    def _resume(self) -> None:
        """Continue from ``last/`` (:func:`c2fsum.training.checkpoint.restore_training`)."""
        ckpt = existing_checkpoint_dir(self.out / "last")
        if ckpt is None:
            raise TrainingError(f"--resume: {self.out}/last does not exist")
        state = restore_training(ckpt, model=self.model, optimizer=self.optimizer, vocab_size=len(self.vocab))
        self.schedule = Schedule(**state["schedule"])
        self.pos = Position(**state["position"])
        self.baseline = MovingAverageBaseline(self.cfg.train.reinforce_beta, state.get("baseline"))
        if self.dist.rank > 0:
            self._restore_rank_rng(ckpt, state.get("rank_rng") or [])
        written = state.get("log")  # checkpoints written before it was recorded: rows by step
        if written is not None:
            self.log_rows, self.last_val = written["rows"], written["last_val"]
        if self.dist.is_main:
            if written is not None:
                truncate_log(self.metrics_path, self.log_rows)
            else:
                self.log_rows = rewind_log(self.metrics_path, self.pos.step)
        log.info("resumed from %s at step %d (epoch %d, batch %d)", ckpt, self.pos.step, self.pos.epoch, self.pos.batch)

    def _restore_rank_rng(self, ckpt: Path, ranks: list) -> None:
        """This process's (rank > 0) random generators as the checkpoint saved them; new ones
        when the checkpoint was written by another number of processes."""
        if len(ranks) == self.dist.world - 1:
            rng.restore(ranks[self.dist.rank - 1])
            return
        log.warning(
            "%s was written by %d process(es), this run has %d: rank %d draws new random numbers",
            ckpt,
            len(ranks) + 1,
            self.dist.world,
            self.dist.rank,
        )
        torch.manual_seed(rank_seed(self.cfg.train.seed + self.pos.step, self.dist.rank))

    def _init_from(self, path: str) -> None:
        """Start from another run's weights (:func:`c2fsum.models.checkpoint.warm_start`)."""
        try:
            log.info(warm_start(self.model, path))
        except CheckpointError as e:
            raise TrainingError(f"train.init_from={path}: {e}") from e

    def _trainer_state(self) -> dict:
        return {
            "schedule": vars(self.schedule).copy(),
            "position": vars(self.pos).copy(),
            "baseline": self.baseline.state(),
            "log": {"rows": self.log_rows, "last_val": self.last_val},
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
        self.log_rows += 1
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
        if (self.cfg.train.best_metric == "rougeL" or self.cfg.train.val_rouge) and self.validate_fn is not None:
            scores = (
                self.validate_fn(self.model, self.val_ex[: self.cfg.train.rouge_val_docs])
                if self.dist.is_main
                else None
            )
            row.update(self.dist.broadcast(scores))
        self._log(row)
        self.last_val = row
        return row

    def _maybe_best(self, row: dict) -> None:
        better_low = self.cfg.train.best_metric == "ppl"
        value = row["ppl"] if better_low else row.get("rougeL", -row["ppl"])
        best = self.schedule.best
        if best is None or (value < best if better_low else value > best):
            self.schedule.best = value
            self.schedule.best_step = self.pos.step
            self._save("best")

    def choose_attention(self) -> bool | None:
        """MODEL 3: whether this training step attends softly, +PRETRAIN and +ALTERNATE switching a
        whole (global) minibatch (:func:`~c2fsum.training.objective.soft_attention_for_batch`);
        with several processes rank 0 draws and every rank follows. None for a model without hard
        attention. :meth:`train_step` passes the choice with the batch (``Reading.soft``), and it
        acts in training mode only, so validation and evaluation always read the hard model (argmax)."""
        tc = self.cfg.train
        soft = soft_attention_for_batch(
            self.model, epoch=self.pos.epoch, soft_pretrain_epochs=tc.soft_pretrain_epochs, alternate=tc.alternate
        )
        if soft is not None and self.dist.enabled and tc.alternate > 0:
            soft = self.dist.broadcast(soft)
        return soft

    def batch_loss(
        self, batch, docs: float | None = None, reading: Reading = DEFAULT_READING
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Loss to minimize (per document) and the summed token NLL of one training batch
        (:func:`c2fsum.training.objective.batch_loss`).

        ``docs`` divides the summed loss (default: the batch's documents). A shard of a global
        batch of D documents on one of W processes uses D / W (DDP averages over processes);
        a micro-batch too, so the gradients add up to those of the whole batch.
        MODEL 3's summed returns are kept for the baseline update after the optimizer step.
        """
        out = batch_loss(
            self.model, batch, self.objective, self.baseline, docs=docs, reward=self.reward, reading=reading
        )
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
        return self._train_step(indices, Reading(soft=bool(self.choose_attention())))

    def _train_step(self, indices: list[int], reading: Reading) -> float:
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
                        loss, nll = loss_fn(batch, docs, reading)
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
        """Train until the epochs, ``train.max_steps`` or ``train.max_minutes`` run out; returns a summary.

        Each epoch (:meth:`_train_epoch`) runs its batches, a step each (:meth:`_step`), until a
        limit stops it (:meth:`_stop_reason`); a finished epoch validates, adjusts the learning rate
        and checkpoints (:meth:`_end_epoch`); :meth:`_finish` validates the last step and writes ``last/``.
        """
        run = self._start()
        stop = "epochs"
        while self.pos.epoch < self.cfg.train.epochs:
            reason = self._train_epoch(run)
            if reason is not None:
                stop = reason
                break
            self._end_epoch(run)
        return self._finish(run, stop)

    def _start(self) -> _Run:
        tc = self.cfg.train
        total = tc.epochs * math.ceil(len(self.train_ex) / tc.batch_size)
        if tc.max_steps:
            total = min(total, tc.max_steps)
        bar = TrainingBar(  # with a time budget the bar counts its seconds, not the epochs' steps
            max_steps=total,
            max_minutes=tc.max_minutes,
            step=self.pos.step,
            elapsed_s=self.pos.elapsed,
            disable=not self.progress,
        )
        self._set_lr()
        self.model.train()
        # with C2FSUM_MALLOC=keep: reuse the step's large blocks instead of page-faulting them anew
        # (utils/malloc.py; off by default, it costs 10-30% peak RSS)
        keep_freed_memory(largest_parameter_bytes(self.model))
        return _Run(start_time=time.monotonic() - self.pos.elapsed, bar=bar, window=_Window(), last_row=self.last_val)

    def _epoch_batches(self) -> list[list[int]]:
        """The batches of the current epoch: a pure function of ``(seed, epoch)``, so a resumed run sees them again."""
        tc = self.cfg.train
        return bucketed_batches(
            len(self.train_ex),
            [len(e.tgt) * 1000 + len(e.src) for e in self.train_ex],
            batch_size=tc.batch_size,
            bucket_size=self.cfg.data.bucket_size,
            seed=tc.seed,
            epoch=self.pos.epoch,
        )

    def _train_epoch(self, run: _Run) -> str | None:
        """The rest of the current epoch's batches; the reason to stop when a limit comes first, else None."""
        batches = self._epoch_batches()
        while self.pos.batch < len(batches):
            reason = self._stop_reason(run)
            if reason is not None:
                return reason
            self._step(run, batches[self.pos.batch], last_of_epoch=self.pos.batch + 1 == len(batches))
        return None

    def _stop_reason(self, run: _Run) -> str | None:
        """``max_steps`` or ``max_minutes`` when that limit is reached (the time decided alike on every rank)."""
        tc = self.cfg.train
        if tc.max_steps and self.pos.step >= tc.max_steps:
            return "max_steps"
        if tc.max_minutes and self.dist.any((time.monotonic() - run.start_time) >= tc.max_minutes * 60):
            return "max_minutes"
        return None

    def _step(self, run: _Run, indices: list[int], *, last_of_epoch: bool) -> None:
        """One optimizer step on ``indices``, then the log row and the ``eval_every`` validation it is due."""
        tc = self.cfg.train
        nll = self.train_step(indices)
        self.pos.step += 1
        self.pos.batch += 1
        # tokens of the global batch (every rank holds every example): target incl. </s>, source
        tgt_tok = sum(len(self.train_ex[i].tgt) + 1 for i in indices)
        self.pos.tokens += tgt_tok + sum(len(self.train_ex[i].src) for i in indices)
        run.window.nll += nll
        run.window.tokens += tgt_tok
        run.bar.advance(self.pos.step, time.monotonic() - run.start_time)
        if self.pos.step % max(1, tc.log_every) == 0 or last_of_epoch:
            self._log_window(run)
        if tc.eval_every and self.pos.step % tc.eval_every == 0:
            self.pos.elapsed = time.monotonic() - run.start_time
            run.last_row = self.validate()
            self._maybe_best(run.last_row)
            self._save("last")

    def _log_window(self, run: _Run) -> None:
        """A ``train`` row of the steps since the last one: perplexity, learning rate, target tokens/s."""
        w = run.window
        dt = max(time.monotonic() - w.t0, 1e-9)
        if self.dist.enabled:
            (w.nll,) = self.dist.all_sum([w.nll])
        row = {
            "split": "train",
            "step": self.pos.step,
            "epoch": self.pos.epoch,
            "ppl": math.exp(min(w.nll / max(w.tokens, 1), 50.0)),
            "lr": self.optimizer.param_groups[0]["lr"],
            "tgt_tokens_per_s": w.tokens / dt,
        }
        if self._last_rewards is not None:
            row["reward_sample"], row["reward_greedy"] = self._last_rewards
        self._log(row)
        run.bar.set_postfix(
            loss=f"{w.nll / max(w.tokens, 1):.3f}", ppl=f"{row['ppl']:.1f}", tok_s=f"{w.tokens / dt:.0f}"
        )
        run.window = _Window()

    def _end_epoch(self, run: _Run) -> None:
        """End of an epoch: validate (unless ``eval_every`` just did at this step), adjust the
        learning rate (thesis 5.2), checkpoint."""
        self.pos.elapsed = time.monotonic() - run.start_time
        if run.last_row is None or run.last_row["step"] != self.pos.step:
            run.last_row = self.validate()
        self.schedule.end_of_epoch(run.last_row["ppl"], self.cfg.train.lr_decay)
        self.pos.epoch += 1
        self.pos.batch = 0
        self._maybe_best(run.last_row)
        self._set_lr()
        self._save("last")

    def _finish(self, run: _Run, stop_reason: str) -> dict:
        """Validate the last step (unless just done), write ``last/``, close the logs; the run's summary."""
        self.pos.elapsed = time.monotonic() - run.start_time
        run.bar.close()
        last_row = run.last_row
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


@dataclass
class _Window:
    """Training NLL and target tokens since the last ``train`` log row, and when it began."""

    nll: float = 0.0
    tokens: int = 0
    t0: float = field(default_factory=time.monotonic)


@dataclass
class _Run:
    """What one call of :meth:`Trainer.fit` carries from step to step (not saved: a resumed run starts anew)."""

    start_time: float
    """``time.monotonic()`` at the start, less the time trained before a resume."""
    bar: TrainingBar
    window: _Window
    last_row: dict | None = None
    """The last validation row."""
