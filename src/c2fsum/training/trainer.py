"""The training loop: the paper's recipe, resumable to the bit on CPU.

Recipe (thesis section 5.2): SGD, batch 20, 20 epochs, gradients renormalized to norm 5, learning
rate 1 (0.1 for a chunk encoder), halved every epoch once validation perplexity stops decreasing;
the loss of a batch is the summed token NLL divided by its documents, as in seq2seq-attn.
This module keeps the loop (:meth:`Trainer.fit` and the steps it calls) and micro-batches; the
parts are the modules of ``training/`` (``objective``: the loss; ``optim``; ``splits``: the data;
``precision``; ``run_log``: metrics.jsonl, TensorBoard; ``state``: position, resuming, per-rank
generators; ``nonfinite``: the NaN/Inf guard; ``baseline_sync``: MODEL 3's baseline; ``validate``;
``distributed``). The model is used through its interface (:class:`c2fsum.models.base.Summarizer`).

Several processes (``torchrun``): every rank forms the same global batches and trains on its
shard; ``train.batch_size`` is the global batch, so N processes reach the parameters of one (up
to float error). Only rank 0 logs and writes.
"""

from __future__ import annotations

import logging
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import torch

from c2fsum.config import Config
from c2fsum.data.batching import collate, shard_batch
from c2fsum.data.lengths import target_length_facts
from c2fsum.losses.checks import NonFiniteError, require_finite
from c2fsum.models import build_model
from c2fsum.models.base import DEFAULT_READING, Reading
from c2fsum.training import nonfinite, precision, state
from c2fsum.training.baseline_sync import StepReturns
from c2fsum.training.checkpoint import save_checkpoint
from c2fsum.training.distributed import rank_seed, setup_training
from c2fsum.training.distributed import wrap as wrap_distributed
from c2fsum.training.objective import Objective, batch_loss, nll_units, rouge_l_reward, soft_attention_for_batch
from c2fsum.training.optim import make_optimizer
from c2fsum.training.progress import TrainingBar
from c2fsum.training.run_log import RunLog, Window
from c2fsum.training.splits import epoch_batches, load_splits, read_vocab
from c2fsum.training.validate import best_value, rouge_fn, validation_row
from c2fsum.utils.io import write_json
from c2fsum.utils.malloc import keep_freed_memory, largest_parameter_bytes

log = logging.getLogger(__name__)


class Trainer:
    """Trains ``cfg`` on a prepared data directory into a run directory.

    Files in ``out``: ``config.json`` (resolved), ``metrics.jsonl`` and ``tb/``
    (:class:`~c2fsum.training.run_log.RunLog`), ``last/`` and ``best/`` checkpoints (their
    ``trainer.json``: :func:`~c2fsum.training.state.trainer_state`).
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
        self.cfg, tc = cfg, cfg.train
        self.data_dir, self.out = Path(data_dir), Path(out)
        self.vocab = read_vocab(self.data_dir, cfg.data.vocab_size)
        self.dist = setup_training(tc)  # no process group outside torchrun
        self.device = self.dist.device
        precision.check_precision(tc.amp, self.device)
        self.progress = progress and self.dist.is_main
        self.objective = Objective.from_config(cfg)
        self.train_ex, self.val_ex = load_splits(self.data_dir, self.vocab, cfg)
        # recorded in every checkpoint: the model's default decode.min_len comes from these
        self.target_lengths = target_length_facts([len(e.tgt) for e in self.train_ex])
        self.validate_fn = validate_fn or rouge_fn(cfg, self.vocab)
        torch.manual_seed(tc.seed)
        self.model = build_model(cfg.model, len(self.vocab), cfg.data.chunks).to(self.device)
        if self.dist.rank > 0:  # same weights everywhere, own sampling noise per rank
            torch.manual_seed(rank_seed(tc.seed, self.dist.rank))
        if cfg.model.pretrained_emb:  # the vectors (read once) start every word table of the model
            from c2fsum.data.vectors import read_vectors
            from c2fsum.modules.embeddings import load_pretrained

            vectors = read_vectors(cfg.model.pretrained_emb, binary=cfg.model.pretrained_binary)
            for emb in self.model.word_embeddings():
                load_pretrained(emb, self.vocab.itos, vectors)
        self.optimizer = make_optimizer(self.model, cfg)
        self.reward = rouge_l_reward(self.vocab.itos)  # of the self-critical term (train.objective=mixed)
        self.returns = StepReturns()
        self.out.mkdir(parents=True, exist_ok=True)
        self.run_log = RunLog(self.out, main=self.dist.is_main)
        self.schedule, self.pos, self.baseline = state.start(
            self.out, self.model, self.optimizer, len(self.vocab), tc, self.dist, self.run_log, resume=resume
        )
        if self.dist.is_main:
            write_json(self.out / "config.json", cfg.to_dict())
        # several processes: DDP averages gradients over ranks (rank 0's weights are broadcast first)
        self._ddp = wrap_distributed(self.model, self.batch_loss, self.dist) if self.dist.enabled else None

    def _save(self, name: str) -> None:
        """Write a checkpoint (rank 0; every rank takes part: :func:`~c2fsum.training.state.trainer_state`)."""
        trainer_state = state.trainer_state(self.schedule, self.pos, self.baseline, self.run_log, self.dist)
        if self.dist.is_main:
            save_checkpoint(
                self.out / name,
                model=self.model,
                config=self.cfg,
                vocab=self.vocab,
                trainer_state=trainer_state,
                optimizer=self.optimizer,
                lengths=self.target_lengths,
            )

    def validate(self) -> dict:
        """The validation row of this step (:func:`~c2fsum.training.validate.validation_row`), logged."""
        row = validation_row(self.model, self.val_ex, self.cfg, self.dist, self.pos, rouge_fn=self.validate_fn)
        self.run_log.write(row)
        return row

    def _maybe_best(self, row: dict) -> None:
        value = best_value(row, self.cfg.train.best_metric, self.schedule.best)
        if value is not None:
            self.schedule.best, self.schedule.best_step = value, self.pos.step
            self._save("best")

    def choose_attention(self) -> bool | None:
        """MODEL 3: whether this step attends softly (+PRETRAIN, +ALTERNATE: a whole global minibatch,
        :func:`~c2fsum.training.objective.soft_attention_for_batch`; rank 0 draws, every rank follows);
        None for a model without hard attention. Validation and evaluation always read it hard."""
        tc = self.cfg.train
        soft = soft_attention_for_batch(
            self.model, epoch=self.pos.epoch, soft_pretrain_epochs=tc.soft_pretrain_epochs, alternate=tc.alternate
        )
        return self.dist.broadcast(soft) if soft is not None and self.dist.enabled and tc.alternate > 0 else soft

    def batch_loss(self, batch, docs: float | None = None, reading: Reading = DEFAULT_READING):
        """Loss to minimize and summed token NLL of a batch (:func:`~c2fsum.training.objective.batch_loss`),
        the loss divided by ``docs`` (D / W for a shard or micro-batch of a global batch of D documents
        on W processes, so the gradients add up to the whole batch's), read as ``reading`` says (MODEL 3:
        soft or hard); MODEL 3's returns are kept."""
        o, b = self.objective, self.baseline
        out = batch_loss(self.model, batch, o, b, docs=docs, reward=self.reward, reading=reading)
        self.returns.add(out)
        return out.loss, out.nll

    def train_step(self, indices: list[int]) -> float:
        """One optimizer step on the global batch ``indices`` (this rank's shard, :meth:`_accumulate`);
        returns this rank's summed NLL. A NaN/Inf loss or gradient norm skips the step
        (:mod:`~c2fsum.training.nonfinite`)."""
        tc, soft = self.cfg.train, self.choose_attention()
        self.returns.start()
        self.optimizer.zero_grad(set_to_none=True)
        total, fault = self._accumulate(indices, Reading(soft=bool(soft)))
        if fault is None:
            fault = nonfinite.clip_checked([p for p in self.model.parameters() if p.requires_grad], tc.max_grad_norm)
        if self.dist.enabled and self.dist.any(fault is not None):
            fault = fault or "another process saw NaN/Inf"
        if fault is not None:
            self.returns.clear()
            self.optimizer.zero_grad(set_to_none=True)
            nonfinite.skip_step(self.pos, fault, limit=tc.max_nonfinite_steps, last=self.out / "last")
            return 0.0
        self.optimizer.step()
        self.pos.nonfinite_in_a_row = 0
        if self.returns.used:
            self.returns.update(self.baseline, self.dist)
        return total

    def _accumulate(self, indices: list[int], reading: Reading) -> tuple[float, str | None]:
        """Gradients of this rank's shard of ``indices`` in ``train.accumulate`` micro-batches (DDP
        synchronizes the last one only), under ``train.amp``: their summed NLL, and why they stopped
        when a loss was NaN/Inf (None: all ran). A rank whose shard is empty (a batch smaller than
        the number of processes) runs one document with weight 0: every rank takes part in the average."""
        local = shard_batch(indices, self.dist.rank, self.dist.world)
        idle = not local
        local = local or indices[:1]
        parts, grid = min(self.cfg.train.accumulate, len(local)), self.cfg.data
        loss_fn = self._ddp if self._ddp is not None else self.batch_loss
        total = 0.0
        for j in range(parts):
            examples = [self.train_ex[i] for i in shard_batch(local, j, parts)]
            batch = collate(examples, chunks=grid.chunks, chunk_len=grid.chunk_len)
            last = j == parts - 1
            with self._ddp.no_sync() if self._ddp is not None and not last else nullcontext():
                with precision.autocast(self.cfg.train.amp, self.device):
                    try:
                        loss, nll = loss_fn(batch.to(self.device), len(indices) / self.dist.world, reading)
                        require_finite("training loss", loss)
                    except NonFiniteError as e:
                        if self._ddp is not None:  # every rank must join the all-reduce
                            raise
                        return total, str(e)
                (loss * 0.0 if idle else loss).backward()
            total += 0.0 if idle else float(nll.detach())
        if idle:
            self.returns.clear()
        return total, None

    # -- the loop ------------------------------------------------------------------------
    def fit(self) -> dict:
        """Train until the epochs, ``train.max_steps`` or ``train.max_minutes`` run out (:meth:`_step`
        per batch, :meth:`_end_epoch` per epoch, :meth:`_finish` at the end); returns a summary."""
        run, stop, reason = self._start(), "epochs", None
        while self.pos.epoch < self.cfg.train.epochs:
            batches = epoch_batches(self.train_ex, self.cfg, self.pos.epoch)
            while self.pos.batch < len(batches) and (reason := self._stop_reason(run)) is None:
                self._step(run, batches[self.pos.batch], last_of_epoch=self.pos.batch + 1 == len(batches))
            if reason is not None:
                stop = reason
                break
            self._end_epoch(run)
        return self._finish(run, stop)

    def _start(self) -> _Run:
        bar = TrainingBar.for_run(self.cfg.train, len(self.train_ex), self.pos, disable=not self.progress)
        self._set_lr()
        self.model.train()
        # with C2FSUM_MALLOC=keep: reuse the step's large blocks instead of page-faulting them anew
        # (utils/malloc.py; off by default, it costs 10-30% peak RSS)
        keep_freed_memory(largest_parameter_bytes(self.model))
        return _Run(start_time=time.monotonic() - self.pos.elapsed, bar=bar, last_row=self.run_log.last_val)

    def _set_lr(self) -> None:
        for g in self.optimizer.param_groups:
            g["lr"] = g["base_lr"] * self.schedule.scale

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
        examples = [self.train_ex[i] for i in indices]  # the global batch: every rank holds every example
        self.pos.tokens += sum(len(ex.tgt) + 1 + len(ex.src) for ex in examples)  # target incl. </s>, source
        run.window.nll += nll
        run.window.tokens += nll_units(self.model, examples)  # what the NLL sums over
        run.bar.advance(self.pos.step, time.monotonic() - run.start_time)
        if self.pos.step % max(1, tc.log_every) == 0 or last_of_epoch:
            lr, rewards = self.optimizer.param_groups[0]["lr"], self.returns.last_rewards
            run.bar.show(self.run_log.write_train(run.window, self.pos, lr=lr, rewards=rewards, dist=self.dist))
            run.window = Window()
        if tc.eval_every and self.pos.step % tc.eval_every == 0:
            self.pos.elapsed = time.monotonic() - run.start_time
            run.last_row = self.validate()
            self._maybe_best(run.last_row)
            self._save("last")

    def _end_epoch(self, run: _Run) -> None:
        """Validate (unless ``eval_every`` just did), adjust the learning rate (thesis 5.2), checkpoint."""
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
        self.run_log.close()
        self.dist.barrier()  # rank 0 has written the checkpoint before anyone moves on
        log.info("training stopped (%s) at step %d: val ppl %.2f", stop_reason, self.pos.step, last_row["ppl"])
        p, s = self.pos, self.schedule
        out = {"stop": stop_reason, "steps": p.step, "epochs_done": p.epoch, "val_ppl": last_row["ppl"], "best": s.best}
        return {**out, "best_step": s.best_step, "elapsed_s": round(p.elapsed, 1), "run_dir": str(self.out)}


@dataclass
class _Run:
    """What one call of :meth:`Trainer.fit` carries from step to step (not saved: a resumed run starts anew)."""

    start_time: float
    """``time.monotonic()`` at the start, less the time trained before a resume."""
    bar: TrainingBar
    window: Window = field(default_factory=Window)
    last_row: dict | None = None
    """The last validation row."""
