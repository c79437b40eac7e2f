"""``c2fsum vectors``: word2vec on a prepared corpus, for ``model.pretrained_emb``.

    c2fsum vectors --data DATA_DIR --out FILE.safetensors|FILE.txt [--dim 128] [--epochs 5]
                   [--min-count 5] [--window 5] [--workers 2] [--skip-gram] [--no-summaries] [--seed 1]

Its flags are made from :class:`c2fsum.config.Word2VecSettings` (help, default, bounds).

Then ``c2fsum train ... --set model.pretrained_emb=FILE --set model.emb_dim=DIM``
(:mod:`c2fsum.data.vectors` says what is trained on and how the files are laid out).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from c2fsum.cli.options import Command, add_data, add_settings, data_folder, given_settings
from c2fsum.config import Word2VecSettings


def cmd_vectors(a: argparse.Namespace) -> int:
    from c2fsum.data.vectors import save_vectors, train_vectors

    data = data_folder(a)
    out = Path(a.out)
    if not (out.name.endswith(".safetensors") or out.suffix in (".txt", ".vec")):
        raise ValueError(f"--out {a.out}: expected a name ending in .safetensors, .txt or .vec")
    vectors, record = train_vectors(data, given_settings(a, Word2VecSettings), progress=not a.quiet)
    files = save_vectors(vectors, out, record=record)
    print(
        f"{record['words']:,} word vectors of {record['dim']} dimensions ({record['algorithm']}, "
        f"{record['epochs']} epochs over {record['documents']:,} documents, {record['tokens']:,} tokens) "
        f"in {record['seconds']:.0f} s"
    )
    print("written to " + ", ".join(str(f) for f in files))
    print(f"use them: --set model.pretrained_emb={files[0]} --set model.emb_dim={record['dim']}")
    return 0


def _arguments(s: argparse.ArgumentParser) -> None:
    add_data(s)
    s.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="FILE.safetensors (with FILE.words.txt beside it) or FILE.txt / FILE.vec (word2vec text)",
    )
    add_settings(s, Word2VecSettings)


COMMAND = Command(
    "vectors",
    help="train word2vec on a prepared corpus (for model.pretrained_emb)",
    description="word2vec (gensim) on the articles and highlights of a prepared folder's train split; "
    "its vocabulary is the folder's vocab.txt.",
    run=cmd_vectors,
    arguments=_arguments,
)
