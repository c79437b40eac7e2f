"""Token classes that every layer reads (data, metrics, decoding), declared once, below them all."""

from __future__ import annotations

SENTENCE_ENDS = (".", "!", "?")
"""The tokens that end a sentence in tokenized text. The tokenizer keeps an abbreviation's period
inside its token (``e.g.``, ``u.s.``), so a lone ``.`` is a sentence's end. A tuple, to serve both
``token in SENTENCE_ENDS`` (data/batching's target cut, decoding's sentence split) and
``token.endswith(SENTENCE_ENDS)`` (metrics/output_stats: a token that ends in a mark)."""

CLOSERS = frozenset({"''", "'", '"', ")", "]", "}", "-rrb-", "-rsb-", "-rcb-"})
"""Closing quotes and brackets: they may follow a sentence's final mark and stay with the sentence
they close (decoding's sentence end, the reader measures' ``ends_sentence``). c2fsum's tokenizer
writes ``''``, ``'`` and the PTB brackets (``-rrb-``...); the plain ``"``, ``)``, ``]``, ``}`` stand
for them in text it did not tokenize (another system's summaries). Not ``` `` ``` nor `` ` ``: PTB's
opening quotes, which start the next sentence."""
