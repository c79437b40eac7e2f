"""Licence and funding residue in SumPubMed's abstracts, kept out of the targets (issue 39).

1,475 of the 100,756 highlight lines of ``../shared/data/pubmed`` (train, val and test) are not
abstract sentences but the paper's XML metadata run together: its keywords, funders with their
FundRef DOIs and the licence, e.g. ``...epigenetic controlissue-copyright-statement\u00a9 the author 2015``
or ``...lamp-3http://dx.doi.org/ <dig> /501100001602science foundation ireland...``. Models
trained on them learnt to write "the author 2015" (rendered "The author 1950", "The author% of c
females"). Outside those lines the word "author" is in 2 highlight lines of 100,756.

:func:`without_licence` drops such lines from a document's highlights; ``prepare`` calls it before
the highlights become targets and references. The decoders leave the residue's words out as well
(:func:`c2fsum.decoding.hypothesis.markup_ids`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

LICENCE_LINE = re.compile(r"issue-copyright-statement|dx\.doi\.org/\s*(?:<dig>|\d+)\s*/501100\d")
"""A highlight line that is the paper's metadata: its licence statement (``issue-copyright-statement``)
or a funder's FundRef DOI (``dx.doi.org/10.13039/501100...``, digits as ``<dig>`` in SumPubMed)."""


def is_licence_line(line: str) -> bool:
    """Is ``line`` licence or funding metadata, not a sentence of the abstract?"""
    return LICENCE_LINE.search(line) is not None


def without_licence(highlights: Sequence[str]) -> tuple[str, ...]:
    """``highlights`` without their licence and funding lines (each highlight is cut into lines
    first: SumPubMed gives a whole abstract as one highlight, one sentence a line)."""
    out = []
    for h in highlights:
        lines = h.split("\n")
        kept = [line for line in lines if not is_licence_line(line)]
        if kept and any(k.strip() for k in kept):
            out.append(h if len(kept) == len(lines) else "\n".join(kept))
    return tuple(out)
