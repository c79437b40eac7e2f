"""The training loop: the paper's recipe, resumable to the bit on CPU.

Recipe (thesis section 5.2): SGD, batch 20, 20 epochs, gradients renormalized to norm 5,
learning rate 1 (0.1 for a chunk encoder), halved every epoch once validation perplexity
stops decreasing. The loss of a batch is the summed token NLL divided by the number of
documents, as in seq2seq-attn.

Resuming: a checkpoint holds the weights, the optimizer, the schedule, the position in the
epoch and every random generator; the batch order of an epoch is a pure function of
``(seed, epoch)``. A run stopped after k steps and resumed therefore reaches the same
parameters as an uninterrupted run.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from tqdm.auto import tqdm

from c2fsum.config import Config
from c2fsum.data.batching import Example, bucketed_batches, collate, encode_example
from c2fsum.data.prepare import read_prepared
from c2fsum.data.vocab import Vocab
from c2fsum.losses.nll import target_logprobs, token_nll
from c2fsum.losses.reinforce import MovingAverageBaseline, discounted_returns, reinforce_loss
from c2fsum.losses.self_critical import mixed_loss, self_critical_loss
from c2fsum.models import Summarizer, build_model
from c2fsum.training.checkpoint import (
    restore_optimizer,
    restore_rng,
    save_checkpoint,
    write_json,
)
from c2fsum.utils.io import append_jsonl, existing_checkpoint_dir
from c2fsum.utils.malloc import keep_freed_memory

log = logging.getLogger(__name__)


class TrainingError(RuntimeError):
    """Training cannot start: missing data, empty splits, or an unusable run directory."""


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


def encode_split(path: Path, vocab: Vocab, cfg: Config) -> list[Example]:
    return [encode_example(d, vocab, chunks=cfg.data.chunks, chunk_len=cfg.data.chunk_len,
                           max_tgt_len=cfg.data.max_tgt_len) for d in read_prepared(path)]


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
            raise TrainingError(f"data.val_holdout={cfg.data.val_holdout} but {val_path} has only "
                                f"{len(val)} documents")
        train = train + val[: -cfg.data.val_holdout]
        val = val[-cfg.data.val_holdout:]
    if not train:
        raise TrainingError(f"{train_path}: no training documents")
    if not val:
        raise TrainingError(f"{data_dir}: no validation documents (val.jsonl missing or empty)")
    return train, val


def make_optimizer(model: Summarizer, cfg: Config) -> torch.optim.Optimizer:
    """SGD (or Adagrad/Adam) with a separate learning rate for a chunk encoder's parameters."""
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]   # BOW embeddings are fixed
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
    raise TrainingError(f"train.optimizer: unknown optimizer {cfg.train.optimizer!r}, "
                        "expected one of sgd, adagrad, adam")


def loss_target(model: Summarizer, batch) -> torch.Tensor:
    """Extended-vocabulary targets for models that copy, plain vocabulary ids otherwise."""
    return batch.tgt_ext if getattr(model, "copies", False) else batch.tgt_out


@torch.no_grad()
def perplexity(model: Summarizer, examples: list[Example], cfg: Config, device: torch.device,
               batch_size: int | None = None) -> tuple[float, float, int]:
    """Teacher-forced perplexity over ``examples``: (ppl, summed NLL, tokens)."""
    was_training = model.training
    model.eval()
    total, tokens = 0.0, 0
    lengths = [len(e.src) for e in examples]
    for idx in bucketed_batches(len(examples), lengths, batch_size=batch_size or cfg.train.batch_size,
                                bucket_size=1, seed=0, epoch=0, shuffle=False):
        batch = collate([examples[i] for i in idx], chunks=cfg.data.chunks,
                        chunk_len=cfg.data.chunk_len).to(device)
        lp, _ = model(batch.src, batch.src_mask, batch.tgt_in, batch.src_ext, batch.n_ext)
        total += float(token_nll(lp, loss_target(model, batch), batch.tgt_mask))
        tokens += batch.n_tokens
    model.train(was_training)
    return math.exp(min(total / max(tokens, 1), 50.0)), total, tokens


class Trainer:
    """Trains ``cfg`` on a prepared data directory into a run directory.

    Files in ``out``: ``config.json`` (resolved), ``metrics.jsonl`` (one row per log/validation
    event), ``tb/`` (TensorBoard), ``last/`` and ``best/`` checkpoints.
    """

    def __init__(self, cfg: Config, data_dir: str | Path, out: str | Path, *, resume: bool = False,
                 progress: bool = True, validate_fn=None):
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
        if n_words and len(self.vocab) > n_words + 4:       # keep the specials and the n most frequent
            self.vocab = Vocab(self.vocab.itos[: n_words + 4], self.vocab.counts[: n_words + 4])
        self.device = torch.device(cfg.train.device)
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise TrainingError("--device cuda asked for, but torch sees no CUDA device")
        if cfg.train.threads > 0:
            torch.set_num_threads(cfg.train.threads)
        if cfg.train.best_metric not in ("ppl", "rougeL"):
            raise TrainingError(f"train.best_metric: got {cfg.train.best_metric!r}, expected ppl or rougeL")
        if cfg.train.objective not in ("ml", "mixed"):
            raise TrainingError(f"train.objective: got {cfg.train.objective!r}, expected ml or mixed")
        self.train_ex, self.val_ex = load_splits(self.data_dir, self.vocab, cfg)
        if cfg.train.best_metric == "rougeL" and self.validate_fn is None:
            from c2fsum.training.validation import rouge_validation

            self.validate_fn = rouge_validation(cfg, self.vocab)
        torch.manual_seed(cfg.train.seed)
        self.model = build_model(cfg.model, len(self.vocab), cfg.data.chunks).to(self.device)
        if cfg.model.pretrained_emb:
            from c2fsum.modules.embeddings import load_pretrained

            for emb in (self.model.src_emb, self.model.tgt_emb):
                load_pretrained(emb, self.vocab.itos, cfg.model.pretrained_emb,
                                binary=cfg.model.pretrained_binary)
        self.optimizer = make_optimizer(self.model, cfg)
        self.schedule = Schedule()
        self.pos = Position()
        self.baseline = MovingAverageBaseline(cfg.train.reinforce_beta)
        self._last_rewards: tuple[float, float] | None = None
        self.out.mkdir(parents=True, exist_ok=True)
        self.metrics_path = self.out / "metrics.jsonl"
        if resume:
            self._resume()
        else:
            if existing_checkpoint_dir(self.out / "last") is not None:
                raise TrainingError(f"{self.out} already holds a run; use --resume to continue it "
                                    "or choose another --out")
            if cfg.train.init_from:
                self._init_from(cfg.train.init_from)
            self.metrics_path.write_text("", encoding="utf-8")
        write_json(self.out / "config.json", cfg.to_dict())
        self._tb = None

    # -- state ---------------------------------------------------------------------------
    def _resume(self) -> None:
        ckpt = existing_checkpoint_dir(self.out / "last")
        if ckpt is None:
            raise TrainingError(f"--resume: {self.out}/last does not exist")
        from safetensors.torch import load_file

        self.model.load_state_dict(load_file(str(ckpt / "model.safetensors")))
        state = json.loads((ckpt / "trainer.json").read_text(encoding="utf-8"))
        restore_optimizer(ckpt, self.optimizer, state)
        self.schedule = Schedule(**state["schedule"])
        p = state["position"]
        self.pos = Position(**p)
        self.baseline = MovingAverageBaseline(self.cfg.train.reinforce_beta, state.get("baseline"))
        restore_rng(ckpt)
        # drop log rows written after the checkpoint, so the log reads as one run
        if self.metrics_path.exists():
            rows = [json.loads(x) for x in self.metrics_path.read_text(encoding="utf-8").splitlines() if x]
            keep = [r for r in rows if r.get("step", 0) <= self.pos.step]
            self.metrics_path.write_text("".join(json.dumps(r) + "\n" for r in keep), encoding="utf-8")
        log.info("resumed from %s at step %d (epoch %d, batch %d)", ckpt, self.pos.step, self.pos.epoch,
                 self.pos.batch)

    def _init_from(self, path: str) -> None:
        """Copy the weights of another run (same architecture), e.g. an ML-trained model for RL."""
        from safetensors.torch import load_file

        from c2fsum.training.checkpoint import resolve_checkpoint

        ckpt = resolve_checkpoint(path)
        weights = load_file(str(ckpt / "model.safetensors"))
        own = self.model.state_dict()
        bad = [k for k, v in weights.items() if k not in own or own[k].shape != v.shape]
        if bad or set(own) - set(weights):
            raise TrainingError(f"train.init_from={path}: {ckpt} does not match this model "
                                f"(e.g. {(bad or sorted(set(own) - set(weights)))[:3]})")
        self.model.load_state_dict(weights)
        log.info("initialized from %s", ckpt)

    def _trainer_state(self) -> dict:
        return {"schedule": vars(self.schedule).copy(), "position": vars(self.pos).copy(),
                "baseline": self.baseline.state()}

    def _set_lr(self) -> None:
        for g in self.optimizer.param_groups:
            g["lr"] = g["base_lr"] * self.schedule.scale

    def _save(self, name: str) -> None:
        save_checkpoint(self.out / name, model=self.model, config=self.cfg, vocab=self.vocab,
                        trainer_state=self._trainer_state(), optimizer=self.optimizer)

    def _log(self, row: dict) -> None:
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
        ppl, nll, tokens = perplexity(self.model, self.val_ex, self.cfg, self.device)
        row = {"split": "val", "step": self.pos.step, "epoch": self.pos.epoch, "ppl": ppl,
               "nll_per_token": nll / max(tokens, 1)}
        if self.cfg.train.best_metric == "rougeL" and self.validate_fn is not None:
            row.update(self.validate_fn(self.model, self.val_ex[: self.cfg.train.rouge_val_docs]))
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

    def batch_loss(self, batch) -> tuple[torch.Tensor, torch.Tensor]:
        """Loss to minimize (per document) and the summed token NLL of one training batch.

        For MODEL 3 the REINFORCE term of the hard coarse choices is added (thesis 4.4.1);
        +PRETRAIN and +ALTERNATE switch the minibatch to soft attention.
        """
        tc, model = self.cfg.train, self.model
        if getattr(model, "coarse", None) == "hard":
            soft = self.pos.epoch < tc.soft_pretrain_epochs
            if not soft and tc.alternate > 0:
                soft = bool(torch.rand(()) < tc.alternate)
            model.use_soft = soft
        out = model(batch.src, batch.src_mask, batch.tgt_in, batch.src_ext, batch.n_ext)
        lp = target_logprobs(out.logprobs, loss_target(model, batch), batch.tgt_mask)   # (B, T)
        nll = -lp.sum()
        loss = nll / batch.size
        if tc.objective == "mixed":
            loss = mixed_loss(self.self_critical(batch) / batch.size, loss, tc.rl_weight)
        if out.policy is not None:
            returns = discounted_returns(lp.detach(), batch.tgt_mask, tc.reinforce_gamma)   # (B, T)
            base = self.baseline.get(returns.size(1), returns.device, returns.dtype)
            loss = loss + reinforce_loss(out.policy, returns, base, batch.tgt_mask,
                                         tc.reinforce_scale) / batch.size
            self.baseline.update(returns, batch.tgt_mask)
        return loss, nll

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
            greedy = greedy_decode(model, model.encode(batch.src, batch.src_mask, batch.src_ext, batch.n_ext),
                                   max_len=max_len)
        model.train()

        def reward(tokens: list[int], ex) -> float:
            words = ids_to_words(tokens, self.vocab.itos, ex.oovs)
            return score_pair(words_to_text(words), " ".join(ex.tgt_words))["rougeL"]

        r_sample = torch.tensor([reward(t, ex) for t, ex in zip(drawn.token_lists(), batch.examples, strict=True)],
                                dtype=torch.float32)
        r_greedy = torch.tensor([reward(h.tokens, ex) for h, ex in zip(greedy, batch.examples, strict=True)],
                                dtype=torch.float32)
        self._last_rewards = (float(r_sample.mean()), float(r_greedy.mean()))
        return self_critical_loss(drawn.logprob, r_sample.to(drawn.logprob.device),
                                  r_greedy.to(drawn.logprob.device))

    # -- the loop ------------------------------------------------------------------------
    def fit(self) -> dict:
        cfg, tc = self.cfg, self.cfg.train
        lengths = [len(e.tgt) * 1000 + len(e.src) for e in self.train_ex]
        n_batches = math.ceil(len(self.train_ex) / tc.batch_size)
        total = tc.epochs * n_batches
        if tc.max_steps:
            total = min(total, tc.max_steps)
        start_time = time.monotonic() - self.pos.elapsed
        bar = tqdm(total=total, initial=min(self.pos.step, total), disable=not self.progress,
                   desc="train", unit="step", dynamic_ncols=True)
        self._set_lr()
        self.model.train()
        stop_reason = "epochs"
        window_nll, window_tok, window_t0 = 0.0, 0, time.monotonic()
        params = [p for p in self.model.parameters() if p.requires_grad]
        keep_freed_memory()   # reuse the step's large blocks instead of page-faulting them anew (utils/malloc.py)
        last_row: dict | None = None
        while self.pos.epoch < tc.epochs:
            batches = bucketed_batches(len(self.train_ex), lengths, batch_size=tc.batch_size,
                                       bucket_size=cfg.data.bucket_size, seed=tc.seed, epoch=self.pos.epoch)
            while self.pos.batch < len(batches):
                if tc.max_steps and self.pos.step >= tc.max_steps:
                    stop_reason = "max_steps"
                    break
                if tc.max_minutes and (time.monotonic() - start_time) >= tc.max_minutes * 60:
                    stop_reason = "max_minutes"
                    break
                batch = collate([self.train_ex[i] for i in batches[self.pos.batch]], chunks=cfg.data.chunks,
                                chunk_len=cfg.data.chunk_len).to(self.device)
                loss, nll = self.batch_loss(batch)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if tc.max_grad_norm > 0:
                    torch.nn.utils.clip_grad_norm_(params, tc.max_grad_norm)
                self.optimizer.step()
                self.pos.step += 1
                self.pos.batch += 1
                n_tok = batch.n_tokens + int(batch.src_mask.sum())
                self.pos.tokens += n_tok
                window_nll += float(nll.detach())
                window_tok += batch.n_tokens
                bar.update(1)
                if self.pos.step % max(1, tc.log_every) == 0 or self.pos.batch == len(batches):
                    dt = max(time.monotonic() - window_t0, 1e-9)
                    row = {"split": "train", "step": self.pos.step, "epoch": self.pos.epoch,
                           "ppl": math.exp(min(window_nll / max(window_tok, 1), 50.0)),
                           "lr": self.optimizer.param_groups[0]["lr"],
                           "tgt_tokens_per_s": window_tok / dt}
                    if self._last_rewards is not None:
                        row["reward_sample"], row["reward_greedy"] = self._last_rewards
                    self._log(row)
                    bar.set_postfix(loss=f"{window_nll / max(window_tok, 1):.3f}", ppl=f"{row['ppl']:.1f}",
                                    tok_s=f"{window_tok / dt:.0f}")
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
        summary = {"stop": stop_reason, "steps": self.pos.step, "epochs_done": self.pos.epoch,
                   "val_ppl": last_row["ppl"], "best": self.schedule.best, "best_step": self.schedule.best_step,
                   "elapsed_s": round(self.pos.elapsed, 1), "run_dir": str(self.out)}
        log.info("training stopped (%s) at step %d: val ppl %.2f", stop_reason, self.pos.step, last_row["ppl"])
        return summary
