"""The checkpoint format: writing a model's files and reading a checkpoint back, never unpickling code.

This module is the one place that reads and writes the format: :mod:`c2fsum.training.checkpoint`
(training checkpoints, with optimizer and generator state) and :mod:`c2fsum.reports.export`
(exports for shipping) write their weights, model files and manifest through
:func:`write_tensors`, :func:`write_model_files` and :func:`write_manifest`.

A checkpoint is a directory::

    model.safetensors      the model's weights
    config.json            the resolved Config (rebuilds the model)
    vocab.txt              the vocabulary
    trainer.json           step, epoch, position in the epoch, learning-rate schedule, best score
    optimizer.safetensors  the optimizer's tensor state (e.g. momentum buffers); may be empty
    rng.json               torch (CPU, CUDA), Python and NumPy generator states (:mod:`c2fsum.training.rng`;
                           before it: rng.safetensors with the torch states, rng.json with the others)
    lengths.json           the training targets' lengths and the default ``min_len`` they give
                           (:mod:`c2fsum.data.lengths`; absent in checkpoints written before it)
    manifest.json          format name and version, size and SHA-256 of every other file (written last)

A checkpoint exported for shipping (:mod:`c2fsum.reports.export`) has only the model's files
(weights, config, vocabulary), ``export.json`` (where it came from, the dtype its weights are
stored in) and a model card ``README.md``; weights stored as float16 load back as float32.

Directories are written under a temporary name and swapped in whole
(:func:`c2fsum.utils.io.atomic_directory`, by :func:`c2fsum.training.checkpoint.save_checkpoint`),
so a crash never leaves half a checkpoint.

Tensors that share memory (one parameter under two names, e.g. the embedding that
``model.share_src_tgt_emb`` ties; or views of one buffer) are each stored under every name
(safetensors refuses shared memory) and load back tied, as the model's own ``load_state_dict``
ties them.

Loading never unpickles: weights and tensor state are safetensors (a JSON header and raw
bytes), everything else is JSON or text. Before anything is used, :func:`verify_checkpoint`
checks the manifest (format version, every file present, not truncated, not altered) and
:func:`load_weights` checks every tensor's name, shape and dtype against the model that
``config.json`` and ``vocab.txt`` describe; each fault is a :class:`CheckpointError` that
names the file and the problem.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from c2fsum.config import Config, config_from_json
from c2fsum.data.lengths import LENGTHS_FILE, default_min_len
from c2fsum.data.vocab import Vocab, VocabError
from c2fsum.errors import CheckpointError
from c2fsum.models import CoarseToFine, Model, Summarizer, build_model
from c2fsum.models.seq2seq import Seq2Seq
from c2fsum.pretrained.registry import resolve_model
from c2fsum.utils.io import existing_checkpoint_dir

log = logging.getLogger(__name__)

FORMAT = "c2fsum-checkpoint"
FORMAT_VERSION = 1
"""Bump when the layout of a checkpoint changes; loaders refuse other versions by name."""


@dataclass
class Loaded:
    model: Model
    """A :class:`~c2fsum.models.base.Summarizer`, or a :class:`~c2fsum.models.base.Selector`
    (``select-rewrite``, whose rewriter :func:`load_rewriter` loads)."""
    config: Config
    """With ``decode.min_len`` resolved to a number (:func:`resolve_min_len`)."""
    vocab: Vocab
    path: Path
    lengths: dict | None = None
    """The checkpoint's ``lengths.json`` (training target lengths), None when it has none."""


def sha256_file(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB blocks (the manifest's ``sha256``)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


STORED_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
"""Dtypes an exported checkpoint may store its floating-point weights in (``export.json``)."""


def tensors_to_store(
    tensors: dict[str, torch.Tensor], dtype: torch.dtype | None = None
) -> tuple[dict[str, torch.Tensor], float]:
    """CPU, contiguous tensors that safetensors can write, and the largest rounding error of ``dtype``.

    Args:
        tensors: name -> tensor of any shape (a state dict); several names may share memory.
        dtype: store floating-point tensors in this dtype (None: as they are).
    Returns:
        The tensors under the same names, none sharing memory with another (a tensor whose storage
        an earlier name already holds is copied), and the largest absolute difference a cast to
        ``dtype`` made (0.0 without a cast).
    Raises:
        CheckpointError naming the tensor whose values do not fit ``dtype`` (beyond its range).
    """
    out: dict[str, torch.Tensor] = {}
    seen: set[int] = set()
    err = 0.0
    for k, v in tensors.items():
        t = v.detach().cpu()
        if dtype is not None and t.is_floating_point() and t.dtype != dtype:
            c = t.to(dtype)
            if not bool(torch.isfinite(c).all()) and bool(torch.isfinite(t).all()):
                raise CheckpointError(f"tensor {k!r}: values beyond the range of {dtype} (largest {t.abs().max():.3g})")
            if t.numel():
                err = max(err, float((c.to(t.dtype) - t).abs().max()))
            t = c
        t = t.contiguous()
        ptr = t.untyped_storage().data_ptr()
        if ptr in seen and t.numel():
            t = t.clone()  # the same memory as an earlier name: its own copy
        seen.add(t.untyped_storage().data_ptr())
        out[k] = t
    return out, err


def write_tensors(path: str | Path, tensors: dict[str, torch.Tensor], dtype: torch.dtype | None = None) -> float:
    """Write ``tensors`` (name -> tensor, memory shared or not) as the safetensors file ``path``.

    ``dtype``: store floating-point tensors in it. Returns the largest rounding error of that cast
    (:func:`tensors_to_store`).
    """
    try:
        stored, err = tensors_to_store(tensors, dtype)
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from e
    save_file(stored, str(path))
    return err


REWRITER_DIR = "rewriter"
"""Where an exported ``select-rewrite`` model keeps its rewriter: a checkpoint folder inside its own
(``model.rewriter`` = this name, read relative to the model's folder)."""


def resolve_rewriter(checkpoint: str | Path, rewriter: str) -> str:
    """What ``model.rewriter`` names for the model in ``checkpoint``: the folder of that name inside
    it (an exported model's :data:`REWRITER_DIR`) when there is one, else ``rewriter`` as given (a run,
    checkpoint or shipped model name)."""
    inside = Path(checkpoint) / rewriter
    return str(inside) if rewriter and not Path(rewriter).is_absolute() and inside.is_dir() else rewriter


def write_model_files(
    folder: str | Path,
    *,
    model: torch.nn.Module,
    config: Config,
    vocab: Vocab,
    lengths: dict | None = None,
    dtype: torch.dtype | None = None,
) -> float:
    """The files that rebuild a model: ``model.safetensors``, ``config.json``, ``vocab.txt``, and
    ``lengths.json`` when ``lengths`` is given. Returns the weights' largest rounding error when
    ``dtype`` stores them in another dtype (0.0 otherwise)."""
    folder = Path(folder)
    err = write_tensors(folder / "model.safetensors", model.state_dict(), dtype)
    (folder / "config.json").write_text(config.to_json(), encoding="utf-8")
    vocab.save(folder / "vocab.txt")
    if lengths is not None:
        (folder / LENGTHS_FILE).write_text(json.dumps(lengths, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return err


def write_manifest(folder: str | Path) -> None:
    """``manifest.json``: format, version, and size and SHA-256 of every other file of ``folder``
    (written last; :func:`verify_checkpoint` checks it)."""
    folder = Path(folder)
    files = {
        p.name: {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
        for p in sorted(folder.iterdir())
        if p.is_file() and p.name != "manifest.json"
    }
    (folder / "manifest.json").write_text(
        json.dumps({"format": FORMAT, "version": FORMAT_VERSION, "files": files}, indent=2), encoding="utf-8"
    )


def verify_checkpoint(path: str | Path) -> dict | None:
    """Check a checkpoint directory against its ``manifest.json``; returns the manifest.

    Raises :class:`CheckpointError` for another format or version, a missing file, a file of the
    wrong size (truncated or extended) or with another SHA-256 (altered). A directory without a
    manifest (written before format version 1) is accepted with a warning and returns None; its
    files are still checked structurally when read.
    """
    path = Path(path)
    mpath = path / "manifest.json"
    if not mpath.exists():
        log.warning(
            "%s: no manifest.json (checkpoint written before format version %d): file integrity cannot be checked",
            path,
            FORMAT_VERSION,
        )
        return None
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{mpath}: unreadable manifest ({e})") from e
    if (
        not isinstance(manifest, dict)
        or manifest.get("format") != FORMAT
        or not isinstance(manifest.get("files"), dict)
    ):
        raise CheckpointError(f"{mpath}: not a c2fsum checkpoint manifest (expected format {FORMAT!r})")
    if manifest.get("version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{mpath}: checkpoint format version {manifest.get('version')!r}, this c2fsum "
            f"reads version {FORMAT_VERSION} (re-save it with the c2fsum that wrote it)"
        )
    for name, meta in manifest["files"].items():
        f = path / name
        if not f.is_file():
            raise CheckpointError(f"{f}: missing (listed in manifest.json)")
        size = f.stat().st_size
        if size != meta.get("bytes"):
            what = "truncated" if size < meta.get("bytes", 0) else "has extra bytes"
            raise CheckpointError(f"{f}: {what}: {size} bytes, manifest.json says {meta.get('bytes')}")
        if sha256_file(f) != meta.get("sha256"):
            raise CheckpointError(f"{f}: content altered (SHA-256 differs from manifest.json)")
    return manifest


def read_tensors(path: str | Path) -> dict[str, torch.Tensor]:
    """All tensors of a safetensors file (never unpickles); a damaged file is a :class:`CheckpointError`."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: missing")
    try:
        return load_file(str(path))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        with open(path, "rb") as f:
            head = f.read(2)
        if head[:1] == b"\x80" or head == b"PK":  # pickle protocol 2+ / torch.save zip archive
            raise CheckpointError(
                f"{path}: a pickle or torch.save file, not safetensors; c2fsum never unpickles (it could run code)"
            ) from e
        raise CheckpointError(f"{path}: not a readable safetensors file ({e})") from e


def load_weights(
    model: torch.nn.Module,
    path: str | Path,
    *,
    vocab_size: int | None = None,
    stored_dtype: torch.dtype | None = None,
) -> None:
    """Load ``model.safetensors`` at ``path`` into ``model`` after checking every tensor.

    Names, shapes and dtypes must equal the model's exactly, and float tensors must be finite;
    otherwise a :class:`CheckpointError` names the first offending tensor (and the vocabulary
    size when that explains a shape mismatch). ``stored_dtype`` (declared by an exported
    checkpoint's ``export.json``, e.g. float16) is accepted for the model's floating-point
    tensors and converted to the model's dtype. Weights saved under older names load through
    the model's key map (:meth:`Seq2Seq.renamed`).
    """
    path = Path(path)
    weights = read_tensors(path)
    if isinstance(model, Seq2Seq):
        weights = model.renamed(weights)
    own = model.state_dict()
    missing = sorted(set(own) - set(weights))
    if missing:
        raise CheckpointError(
            f"{path}: missing tensor(s) {missing[:3]} that the model of config.json needs ({len(missing)} in all)"
        )
    unexpected = sorted(set(weights) - set(own))
    if unexpected:
        raise CheckpointError(
            f"{path}: unexpected tensor(s) {unexpected[:3]} that the model of config.json "
            f"does not have ({len(unexpected)} in all)"
        )
    for k, want in own.items():
        got = weights[k]
        if tuple(got.shape) != tuple(want.shape):
            hint = ""
            if vocab_size is not None and vocab_size in tuple(want.shape):
                hint = (
                    f"; the vocabulary (vocab.txt, {vocab_size} entries) does not match the weights "
                    f"(wrong vocabulary size)"
                )
            raise CheckpointError(
                f"{path}: tensor {k!r} has shape {list(got.shape)}, the model of config.json "
                f"expects {list(want.shape)}{hint}"
            )
        if stored_dtype is not None and got.dtype == stored_dtype and want.is_floating_point():
            got = weights[k] = got.to(want.dtype)
        if got.dtype != want.dtype:
            raise CheckpointError(f"{path}: tensor {k!r} has dtype {got.dtype}, expected {want.dtype}")
        if got.is_floating_point() and not bool(torch.isfinite(got).all()):
            raise CheckpointError(f"{path}: tensor {k!r} holds NaN or Inf values")
    model.load_state_dict(weights)


def read_json(path: str | Path) -> Any:
    """A JSON file of a checkpoint; a missing or damaged file is a :class:`CheckpointError`."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise CheckpointError(f"{path}: missing") from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path}: unreadable JSON ({e})") from e


def resolve_checkpoint(run_or_ckpt: str | Path, which: str = "best") -> Path:
    """A checkpoint directory from a model name (:func:`c2fsum.pretrained.registry.resolve_model`: a shipped
    model, a run directory (``best``, falling back to ``last``), a checkpoint directory, or a
    Hugging Face hub repository id)."""
    p = resolve_model(run_or_ckpt)
    if p.exists() and not p.is_dir():
        raise CheckpointError(
            f"{p}: a file, not a directory; a model is a shipped name, a run or checkpoint directory "
            "(holding model.safetensors, or best/ or last/), or a hub repository id owner/name"
        )
    if (p / "model.safetensors").exists():
        return p
    order = [which, "last" if which == "best" else "best"]
    for name in order:
        d = existing_checkpoint_dir(p / name)
        if d is not None and (d / "model.safetensors").exists():
            return d
    raise CheckpointError(f"{p}: no checkpoint found (expected {p}/best or {p}/last with model.safetensors)")


def read_lengths(path: str | Path) -> dict | None:
    """The ``lengths.json`` of a checkpoint directory, None when it has none.

    A file that is not a JSON object with a non-negative integer ``min_len`` is a :class:`CheckpointError`.
    """
    f = Path(path) / LENGTHS_FILE
    if not f.exists():
        return None
    facts = read_json(f)
    if not isinstance(facts, dict) or type(facts.get("min_len")) is not int or facts["min_len"] < 0:
        raise CheckpointError(f"{f}: expected a JSON object with a non-negative integer 'min_len'")
    return facts


def resolve_min_len(config: Config, lengths: dict | None, where: str | Path = "checkpoint") -> Config:
    """``config`` with ``decode.min_len`` a number: the config's own, else the recorded default.

    ``None`` becomes :func:`~c2fsum.data.lengths.default_min_len` (the recorded one, or the
    fallback). A checkpoint without ``lengths.json`` was written when 0 was the only default
    (which made barely trained models write empty summaries): its 0 also becomes the fallback.
    Pass ``min_len=0`` when decoding to allow empty summaries.
    """
    dc = config.decode
    if dc.min_len is not None and not (lengths is None and dc.min_len == 0):
        return config
    value = default_min_len(lengths)
    if lengths is None:
        log.info("%s: no %s (older checkpoint): default decode.min_len %d", where, LENGTHS_FILE, value)
    return replace(config, decode=replace(dc, min_len=value))


def _stored_dtype(path: Path) -> torch.dtype | None:
    """The weights' storage dtype that ``export.json`` declares (None without the file)."""
    if not (path / "export.json").exists():
        return None
    meta = read_json(path / "export.json")
    name = meta.get("weights_dtype", "float32") if isinstance(meta, dict) else None
    if name not in STORED_DTYPES:
        raise CheckpointError(
            f"{path / 'export.json'}: weights_dtype {name!r}, expected one of {', '.join(STORED_DTYPES)}"
        )
    return STORED_DTYPES[name]


def warm_start(model: torch.nn.Module, path: str | Path) -> str:
    """Copy the weights of another run or checkpoint (same architecture) into ``model``, e.g. an
    ML-trained model to start RL (``train.init_from``); returns a line for the log.

    A flat model (MODEL 0/1) may also start a hierarchical one of the same sizes (MODEL 2/3):
    everything but the chunk encoder and the coarse attention map is copied, under the names
    :meth:`CoarseToFine.weights_from_flat` gives (the word-attention map becomes the fine map), so
    MODEL 3 starts reading with a trained encoder, decoder and generator and has only to learn
    where to read. A model with coverage may start from one without (its w_c starts as drawn, See
    et al.'s second stage). CheckpointError when the weights do not match the model.
    """
    ckpt = resolve_checkpoint(path)
    verify_checkpoint(ckpt)
    weights = read_tensors(ckpt / "model.safetensors")
    if isinstance(model, Seq2Seq):
        weights = model.renamed(weights)
    own = model.state_dict()
    fresh: list[str] = []
    source = read_json(ckpt / "config.json").get("model", {}).get("family")
    if isinstance(model, CoarseToFine) and source in ("model0", "model1"):
        weights = CoarseToFine.weights_from_flat(weights)
        fresh = [k for k in own if k not in weights and k.startswith(CoarseToFine.NEW_OVER_FLAT)]
    fresh += [k for k in own if k not in weights and k.endswith(".coverage_w")]  # coverage added (See et al.)
    new = getattr(model, "NEW_WEIGHTS", ())  # a selector's features added to one trained without them
    fresh += [k for k in own if k not in weights and k.split(".")[0] in new]
    bad = [k for k, v in weights.items() if k not in own or own[k].shape != v.shape]
    missing = sorted(set(own) - set(weights) - set(fresh))
    if bad or missing:
        raise CheckpointError(f"{ckpt} does not match this model (e.g. {(bad or missing)[:3]})")
    model.load_state_dict(weights, strict=not fresh)
    return f"initialized from {ckpt}" + (f" ({source}; new: {', '.join(fresh)})" if fresh else "")


def load_checkpoint(run_or_ckpt: str | Path, *, which: str = "best", device: str | torch.device = "cpu") -> Loaded:
    """Rebuild a model from a checkpoint's config, weights and vocabulary (no pickle involved).

    ``run_or_ckpt`` is any model name :func:`resolve_checkpoint` accepts (shipped name, directory,
    hub repository id).

    Every file is verified first (:func:`verify_checkpoint`, :func:`load_weights`); a damaged or
    mismatched checkpoint raises :class:`CheckpointError` naming the file and the problem.
    """
    path = resolve_checkpoint(run_or_ckpt, which)
    verify_checkpoint(path)
    for name in ("config.json", "vocab.txt"):
        if not (path / name).exists():
            raise CheckpointError(f"{path}: missing {name}")
    try:
        config = config_from_json((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:  # ConfigError and JSONDecodeError are ValueErrors
        raise CheckpointError(f"{path / 'config.json'}: {str(e).splitlines()[0] if str(e) else e!r}") from e
    try:
        vocab = Vocab.load(path / "vocab.txt")
    except VocabError as e:
        raise CheckpointError(f"{path / 'vocab.txt'}: {e}") from e
    lengths = read_lengths(path)
    config = resolve_min_len(config, lengths, path)
    model = build_model(config.model, len(vocab), config.data.chunks)
    load_weights(model, path / "model.safetensors", vocab_size=len(vocab), stored_dtype=_stored_dtype(path))
    model.to(device)
    model.eval()
    return Loaded(model=model, config=config, vocab=vocab, path=path, lengths=lengths)


def load_rewriter(checkpoint: str | Path, rewriter: str, *, device: str | torch.device = "cpu") -> Loaded:
    """The rewriter of the ``select-rewrite`` model in ``checkpoint``: its ``model.rewriter``
    (``rewriter``, found by :func:`resolve_rewriter`), loaded as :func:`load_checkpoint` loads a
    model (its best checkpoint); CheckpointError when it is no model that writes words."""
    loaded = load_checkpoint(resolve_rewriter(checkpoint, rewriter), device=device)
    if not isinstance(loaded.model, Summarizer):
        raise CheckpointError(f"{loaded.path}: a rewriter writes words; a {loaded.config.model.family} model does not")
    return loaded
