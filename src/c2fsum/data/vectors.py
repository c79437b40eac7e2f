"""Word vectors from our own text: word2vec (gensim) on a prepared corpus, saved without pickle.

The thesis starts its models from word2vec vectors; ``c2fsum vectors`` trains them on the
train split of a prepared folder (:mod:`c2fsum.data.prepare`) and ``model.pretrained_emb``
starts a recipe from the file (:func:`c2fsum.modules.embeddings.load_pretrained`).

What is trained on: every article sentence of ``train.jsonl`` and, unless ``summaries=False``,
every highlight (reference sentence), read one document at a time (the corpus is never held in
memory). The vocabulary is the prepared ``vocab.txt`` (the words a model of this folder can
embed) less the four specials and less words seen fewer than ``min_count`` times; other tokens
(rarer words, ``</s>``) are dropped from the sentences before windows are taken, as word2vec
drops rare words.

Files written (``out`` by its suffix):

``FILE.safetensors``  one float32 tensor ``vectors`` of shape (W, E), metadata = the settings;
                      beside it ``FILE.words.txt``: the W words, one per line, row order (UTF-8)
``FILE.txt``/``.vec`` the word2vec text format: a ``W E`` header line, then ``word v1 ... vE``
                      (``%.9g``: every float32 reads back exactly)
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from c2fsum.config import Word2VecSettings
from c2fsum.data.prepare import read_prepared, split_path
from c2fsum.data.vocab import SPECIALS, Vocab

log = logging.getLogger(__name__)

SAFETENSORS_SUFFIX = ".safetensors"
TEXT_SUFFIXES = (".txt", ".vec")
WORDS_SUFFIX = ".words.txt"
TENSOR = "vectors"


@dataclass
class WordVectors:
    """W words and their (W, E) float32 matrix, row i the vector of ``words[i]``."""

    words: list[str]
    matrix: np.ndarray
    path: str = ""

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])


def words_path(path: str | Path) -> Path:
    """The word list beside a ``.safetensors`` vector file: ``vec.safetensors`` -> ``vec.words.txt``."""
    path = Path(path)
    return path.with_name(path.name[: -len(SAFETENSORS_SUFFIX)] + WORDS_SUFFIX)


# ------------------------------------------------------------------------------- training
class _Sentences:
    """A restartable iterable over the token lists of a prepared split, one document read at a
    time; counts the documents of its last complete pass and advances ``bar`` per document."""

    def __init__(self, path: Path, *, summaries: bool) -> None:
        self.path = path
        self.summaries = summaries
        self.documents = 0
        self.bar: tqdm | None = None

    def __iter__(self) -> Iterator[list[str]]:
        n = 0
        for doc in read_prepared(self.path):
            yield from doc["src"]
            if self.summaries:
                yield from doc["refs"]
            n += 1
            if self.bar is not None:
                self.bar.update(1)
        self.documents = n


class _EpochBar:
    """gensim callback: names the epoch under way on the progress bar."""

    def __init__(self, bar: tqdm, epochs: int) -> None:
        self.bar, self.epochs, self.epoch = bar, epochs, 0

    def on_epoch_begin(self, model) -> None:
        self.epoch += 1
        self.bar.set_description(f"vectors: epoch {self.epoch}/{self.epochs}")

    def on_epoch_end(self, model) -> None:
        self.bar.set_postfix_str(f"{self.epoch} epoch(s) done", refresh=True)

    def on_train_begin(self, model) -> None:  # gensim calls all four
        pass

    def on_train_end(self, model) -> None:
        pass


def train_vectors(
    data_dir: str | Path, settings: Word2VecSettings | None = None, *, progress: bool = True
) -> tuple[WordVectors, dict]:
    """word2vec on the train split of the prepared folder ``data_dir``, as ``settings`` say
    (:class:`c2fsum.config.Word2VecSettings`; None: its defaults).

    Returns the vectors (words in decreasing count order) and a record of the settings, counts and
    seconds.

    Raises FileNotFoundError (no train split or vocab.txt), DataError (a bad line, named by file
    and line) or ValueError (no word left to train).
    """
    from gensim.models import Word2Vec  # heavy import, only when asked for

    settings = settings or Word2VecSettings()
    data_dir = Path(data_dir)
    train = split_path(data_dir, "train")
    vocab_file = data_dir / "vocab.txt"
    if not vocab_file.exists():
        raise FileNotFoundError(f"{vocab_file}: no vocabulary (run `c2fsum prepare` first)")
    known = set(Vocab.load(vocab_file).itos) - set(SPECIALS)

    started = time.perf_counter()
    sentences = _Sentences(train, summaries=settings.summaries)
    model = Word2Vec(
        vector_size=settings.dim,
        window=settings.window,
        min_count=settings.min_count,
        workers=settings.workers,
        sg=int(settings.skip_gram),
        epochs=settings.epochs,
        seed=settings.seed,
    )
    with _gensim_quiet():
        n_docs, words = _count_words(model, sentences, known, progress=progress)
        if not words:
            raise ValueError(
                f"{train}: no word of {vocab_file} occurs {settings.min_count} times or more (lower --min-count)"
            )
        counted = time.perf_counter()
        _train(model, sentences, n_docs, epochs=settings.epochs, progress=progress)
    seconds = time.perf_counter() - started
    vectors = WordVectors(words, np.ascontiguousarray(model.wv.vectors, dtype=np.float32))
    record = {
        "data": str(data_dir),
        "documents": n_docs,
        "sentences": int(model.corpus_count),
        "tokens": int(model.corpus_total_words),
        "words": len(words),
        **_settings_record(settings),
        "seconds_counting": round(counted - started, 1),
        "seconds": round(seconds, 1),
    }
    log.info(
        "word2vec: %d words x %d dimensions from %d documents (%d tokens), %d epochs in %.0f s",
        len(words),
        settings.dim,
        n_docs,
        record["tokens"],
        settings.epochs,
        seconds,
    )
    return vectors, record


@contextmanager
def _gensim_quiet() -> Iterator[None]:
    """gensim's log at WARNING within (its INFO lines every second would drown the bar), its level
    restored after."""
    gensim_log = logging.getLogger("gensim")
    level = gensim_log.level
    gensim_log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        gensim_log.setLevel(level)


def _count_words(model, sentences: _Sentences, known: set[str], *, progress: bool) -> tuple[int, list[str]]:
    """Build ``model``'s vocabulary from one pass over ``sentences``: the words of ``known`` seen
    ``min_count`` times or more. Returns the documents read and the words, most frequent first."""
    from gensim.utils import RULE_DEFAULT, RULE_DISCARD

    def keep(word: str, count: int, min_count: int) -> int:
        return RULE_DEFAULT if word in known else RULE_DISCARD

    with tqdm(desc="vectors: counting", unit="doc", file=sys.stderr, disable=not progress) as bar:
        sentences.bar = bar
        model.build_vocab(sentences, trim_rule=keep)
    return sentences.documents, list(model.wv.index_to_key)


def _train(model, sentences: _Sentences, n_docs: int, *, epochs: int, progress: bool) -> None:
    """Train ``model`` for ``epochs`` passes over ``sentences`` (``n_docs`` documents each)."""
    with tqdm(total=epochs * n_docs, desc="vectors", unit="doc", file=sys.stderr, disable=not progress) as bar:
        sentences.bar = bar
        model.train(sentences, total_examples=model.corpus_count, epochs=epochs, callbacks=[_EpochBar(bar, epochs)])


def _settings_record(settings: Word2VecSettings) -> dict:
    """The settings that made the vectors, as the record names them."""
    return {
        "dim": settings.dim,
        "epochs": settings.epochs,
        "min_count": settings.min_count,
        "window": settings.window,
        "workers": settings.workers,
        "algorithm": "skip-gram" if settings.skip_gram else "cbow",
        "summaries": settings.summaries,
        "seed": settings.seed,
    }


# ------------------------------------------------------------------------------ the files
def save_vectors(vectors: WordVectors, path: str | Path, *, record: dict | None = None) -> list[Path]:
    """Write ``vectors`` to ``path`` (format by its suffix, see the module docstring); returns the
    files written. Each file goes to a temporary name first and is renamed when complete."""
    path = Path(path)
    words, matrix = vectors.words, np.asarray(vectors.matrix, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise ValueError(f"vectors: expected a ({len(words)}, E) matrix for {len(words)} words, got {matrix.shape}")
    for w in words:
        if not w or any(c.isspace() for c in w):
            raise ValueError(f"vectors: word {w!r} is empty or holds white space; it cannot be written")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(SAFETENSORS_SUFFIX):
        from safetensors.numpy import save_file

        words_file = words_path(path)
        meta = {"format": "c2fsum word vectors", "words_file": words_file.name, "words": str(len(words))}
        meta.update({k: str(v) for k, v in (record or {}).items()})
        _replace(words_file, lambda tmp: tmp.write_text("".join(w + "\n" for w in words), encoding="utf-8"))
        _replace(path, lambda tmp: save_file({TENSOR: np.ascontiguousarray(matrix)}, str(tmp), metadata=meta))
        return [path, words_file]
    if path.suffix in TEXT_SUFFIXES:

        def write(tmp: Path) -> None:
            with open(tmp, "w", encoding="utf-8", newline="\n") as f:
                f.write(f"{matrix.shape[0]} {matrix.shape[1]}\n")
                for w, row in zip(words, matrix, strict=True):
                    f.write(w + " " + " ".join(f"{x:.9g}" for x in row.tolist()) + "\n")

        _replace(path, write)
        return [path]
    raise ValueError(
        f"{path}: unknown vector file type; expected a name ending in {SAFETENSORS_SUFFIX}, "
        f"{' or '.join(TEXT_SUFFIXES)} (word2vec text)"
    )


def _replace(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_vectors(path: str | Path, *, binary: bool = False) -> WordVectors:
    """The vectors of a file: ``.safetensors`` (with its ``.words.txt``), or any word2vec text
    (``binary``: binary) or GloVe text file (no header line).

    Raises FileNotFoundError or ValueError naming the file: missing, unreadable, empty, rows and
    words of different counts, a word listed twice.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: pretrained embedding file does not exist")
    if path.name.endswith(SAFETENSORS_SUFFIX):
        vectors = _read_safetensors(path)
    else:
        vectors = _read_word2vec(path, binary=binary)
    if not vectors.words:
        raise ValueError(f"{path}: holds no vectors")
    if len(set(vectors.words)) != len(vectors.words):
        dup = next(w for w, n in Counter(vectors.words).items() if n > 1)
        raise ValueError(f"{path}: the word {dup!r} has two vectors")
    return vectors


def _read_safetensors(path: Path) -> WordVectors:
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="numpy") as f:
            if TENSOR not in f.keys():
                raise ValueError(f"{path}: no tensor named {TENSOR!r} (holds {sorted(f.keys())})")
            matrix = f.get_tensor(TENSOR)
    except SafetensorError as e:
        raise ValueError(f"{path}: not a readable safetensors file ({e})") from None
    if matrix.ndim != 2 or not np.issubdtype(matrix.dtype, np.floating):
        raise ValueError(f"{path}: {TENSOR!r} must be a 2-D float matrix, got {matrix.dtype} of shape {matrix.shape}")
    words_file = words_path(path)
    if not words_file.is_file():
        raise FileNotFoundError(f"{words_file}: the word list of {path} does not exist")
    try:
        words = words_file.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise ValueError(f"{words_file}: not UTF-8 ({e.reason} at byte {e.start})") from None
    if len(words) != matrix.shape[0]:
        raise ValueError(f"{words_file}: {len(words)} words for the {matrix.shape[0]} vectors of {path}")
    return WordVectors(words, matrix.astype(np.float32, copy=False), str(path))


def _read_word2vec(path: Path, *, binary: bool) -> WordVectors:
    from gensim.models import KeyedVectors  # heavy import, only when asked for

    def load(no_header: bool) -> KeyedVectors:
        return KeyedVectors.load_word2vec_format(str(path), binary=binary, no_header=no_header)

    if path.stat().st_size == 0:
        raise ValueError(f"{path}: holds no vectors (the file is empty)")
    try:
        try:
            kv = load(no_header=False)
        except (ValueError, UnicodeDecodeError, IndexError):
            if binary:
                raise
            kv = load(no_header=True)  # GloVe: no "W E" header line
    except (ValueError, UnicodeDecodeError, IndexError, EOFError, TypeError) as e:
        kind = "binary word2vec" if binary else "word2vec or GloVe text"
        raise ValueError(f"{path}: not a {kind} vector file ({type(e).__name__}: {e})") from None
    return WordVectors(list(kv.index_to_key), np.asarray(kv.vectors, dtype=np.float32), str(path))
