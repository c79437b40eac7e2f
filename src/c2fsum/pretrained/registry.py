"""Which model a name means: a shipped model, a local directory, or a Hugging Face hub repository.

Every loader (``c2fsum.load``, ``summarize``, ``evaluate``, ``serve``, ``plot attention``,
``train.init_from``) goes through :func:`c2fsum.models.checkpoint.resolve_checkpoint`, which
asks :func:`resolve_model` for a directory and then verifies what it finds there (manifest,
hashes, tensor shapes; never a pickle). A model is, tried in this order:

1. the name of a model shipped inside the installed package (:data:`SHIPPED`, folders under
   ``c2fsum/pretrained/``), e.g. ``cnndm-small``; only a bare name (no ``/``), so ``./cnndm-small``
   means a local folder;
2. a local directory: a run directory (its ``best`` checkpoint) or a checkpoint directory;
3. a Hugging Face hub repository id ``owner/name`` or ``owner/name@revision`` (a branch, tag or
   commit), fetched with ``huggingface_hub.snapshot_download`` into the hub cache (``HF_HOME`` /
   ``HF_HUB_CACHE``); with ``HF_HUB_OFFLINE=1`` only the cache is read. The repository holds a
   checkpoint folder (what ``c2fsum export`` writes) or a run directory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import c2fsum.pretrained
from c2fsum.errors import CheckpointError

PRETRAINED_DIR = Path(c2fsum.pretrained.__file__).resolve().parent
"""Where shipped models live: ``PRETRAINED_DIR / NAME`` is a checkpoint folder."""


@dataclass(frozen=True)
class ShippedModel:
    name: str
    description: str
    command: str
    """The documented command (run in a source checkout) that trains, evaluates and exports it."""


SHIPPED: dict[str, ShippedModel] = {
    m.name: m
    for m in (
        ShippedModel(
            "cnndm-small",
            "CNN/DailyMail news summarizer sized for CPUs (configs/cnndm-small.yaml)",
            "make model",
        ),
        ShippedModel(
            "pubmed-model0",
            "MODEL 0 reading the first 400 words of biomedical papers, trained on SumPubMed "
            "(configs/pubmed-model0.yaml)",
            "make model NAME=pubmed-model0",
        ),
        ShippedModel(
            "pubmed-model3",
            "MODEL 3 reading whole biomedical papers with hard coarse-to-fine attention and coarse supervision, "
            "trained on SumPubMed (configs/pubmed-model3.stages)",
            "make model NAME=pubmed-model3",
        ),
        ShippedModel(
            "pubmed-rewrite",
            "sentence-level coarse-to-fine for biomedical papers: a selector picks whole sentences of the paper, "
            "a pointer-generator rewrites each one; trained on SumPubMed (configs/pubmed-rewrite.stages)",
            "make model NAME=pubmed-rewrite MODEL_MINUTES=300 PARALLEL=1",
        ),
    )
}
"""The names a release ships. A folder under ``PRETRAINED_DIR`` with a ``config.json`` is a
shipped model too, registered or not."""

_HUB_ID = re.compile(r"^(?P<repo>[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95})(?:@(?P<rev>[\w.\-/]{1,200}))?$")


def shipped_names() -> list[str]:
    """Registered names and the folders under :data:`PRETRAINED_DIR` that hold a model, sorted."""
    found = set(SHIPPED)
    if PRETRAINED_DIR.is_dir():
        found |= {d.name for d in PRETRAINED_DIR.iterdir() if d.is_dir() and (d / "config.json").is_file()}
    return sorted(found)


def parse_hub_id(spec: str) -> tuple[str, str | None] | None:
    """``("owner/name", revision or None)`` if ``spec`` reads as a hub repository id, else None."""
    m = _HUB_ID.match(spec)
    if m is None or ".." in m["repo"] or m["repo"].endswith("."):
        return None
    return m["repo"], m["rev"]


def shipped_dir(name: str) -> Path:
    """The folder of shipped model ``name``; a :class:`CheckpointError` says how to make missing weights."""
    folder = PRETRAINED_DIR / name
    if (folder / "model.safetensors").is_file():
        return folder
    entry = SHIPPED.get(name)
    how = (
        f"run `{entry.command}` in a c2fsum source checkout (it trains, evaluates and exports it into "
        f"src/c2fsum/pretrained/{name}), then reinstall"
        if entry
        else f"re-export it with `c2fsum export --name {name} --out {folder}`"
    )
    raise CheckpointError(
        f"{name}: a shipped model name, but its weights are not in this installation ({folder} has no "
        f"model.safetensors): {how}; or pass a run directory or a Hugging Face repo id instead"
    )


def _hub_snapshot(spec: str, repo: str, revision: str | None) -> Path:
    try:
        from huggingface_hub import snapshot_download
    except ImportError as e:  # a dependency, but a trimmed environment may lack it
        raise CheckpointError(f"{spec}: loading from the Hugging Face hub needs huggingface_hub (pip install)") from e
    try:
        return Path(snapshot_download(repo, revision=revision))
    except Exception as e:  # the hub client's network, cache, auth and validation errors, all alike
        reason = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise CheckpointError(
            f"{spec}: no such model: not a shipped model ({', '.join(shipped_names())}), no local directory "
            f"{spec}, and the Hugging Face hub repository {repo}"
            f"{'@' + revision if revision else ''} could not be fetched ({type(e).__name__}: {reason})"
        ) from e


def resolve_model(spec: str | Path) -> Path:
    """The local directory that ``spec`` names (shipped model, local directory, hub snapshot).

    The directory is not verified here: :func:`c2fsum.models.checkpoint.load_checkpoint` checks
    its manifest, hashes and tensors like every checkpoint. Raises :class:`CheckpointError` for an
    unknown name (listing the shipped names and what was tried), a shipped name whose weights are
    not installed (with the command that makes them), or a hub repository that cannot be fetched.
    """
    text = str(spec)
    if isinstance(spec, str) and "/" not in text and "\\" not in text and text in shipped_names():
        return shipped_dir(text)
    path = Path(text).expanduser()
    if path.exists():
        return path
    hub = parse_hub_id(text) if isinstance(spec, str) else None
    if hub is not None:
        return _hub_snapshot(text, *hub)
    raise CheckpointError(
        f"{text}: no such model: not a shipped model ({', '.join(shipped_names())}), no such directory, "
        f"and not a Hugging Face hub repository id (owner/name[@revision])"
    )
