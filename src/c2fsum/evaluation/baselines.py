"""Extractive baselines evaluated exactly like the models (thesis Table 6.1).

* ``first``: the article's first sentence (the thesis's FIRST);
* ``lead3``: its first three sentences (LEAD-3, the standard baseline of later work);
* ``lead``: its first ``budget`` words (the last sentence cut), for targets longer than a
  sentence or three (PubMed abstracts: the budget = the mean training target length);
* ``oracle``: the extractive ceiling, sentences chosen greedily to raise ROUGE-1 F + ROUGE-2 F
  against the reference within the word budget (:func:`oracle_summary`);
* ``ilp``: concept-coverage ILP under a word budget (:mod:`c2fsum.evaluation.ilp`), the
  extractive stand-in for the thesis's BERKELEY system;
* ``berkeley``: the thesis's BERKELEY (Durrett et al. 2016), a compressive ILP over sentence heads
  and their deletable parts with anaphoricity constraints and learned unit scores
  (:mod:`c2fsum.evaluation.berkeley`); its budget defaults to the one chosen on validation with
  its weights.

Every baseline's ``metrics.json`` records ``avg_words``, the mean summary length in
whitespace tokens, and what a reader meets (:mod:`c2fsum.evaluation.reader`, as ``evaluate``);
BERKELEY's also its ``compression`` rate (the share of the chosen sentences'
tokens deleted), ``pronouns_rewritten`` (per summary) and ``dangling_pronouns`` (in all: kept
pronouns whose antecedent is neither kept nor written in; 0 unless ``--no-anaphora``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from c2fsum.data.prepare import read_split
from c2fsum.errors import InputError
from c2fsum.evaluation.ilp import ilp_summary
from c2fsum.evaluation.reader import reader_measures
from c2fsum.evaluation.scoring import first_sentence_baseline, lead_k, sentence_words
from c2fsum.metrics.rouge import Rouge155Tokenizer, ngram_counts, rouge_settings, score_corpus
from c2fsum.utils.io import write_json, write_jsonl

BASELINES = ("first", "lead3", "lead", "ilp", "oracle", "berkeley")
DISPLAY = {
    "first": "FIRST",
    "lead3": "LEAD-3",
    "lead": "LEAD",
    "ilp": "ILP",
    "oracle": "ORACLE",
    "berkeley": "BERKELEY",
}
BUDGETED = ("lead", "ilp", "oracle", "berkeley")
"""The baselines that take a word budget (``--budget``)."""
ILP_BUDGET = 25
"""Default ILP length budget in words (about a first sentence; the gold highlights average 14)."""


def lead_words(src_sentences: Sequence[Sequence[str]], budget: int) -> str:
    """LEAD with a word budget: the article's first ``budget`` words (``<s>``/``</s>`` not counted),
    one sentence per line, the last sentence cut where the budget runs out."""
    if budget < 1:
        raise InputError(f"budget: expected at least 1 word, got {budget}")
    lines, left = [], budget
    for sentence in src_sentences:
        words = sentence_words(sentence)[:left]
        if words:
            lines.append(" ".join(words))
            left -= len(words)
        if left == 0:
            break
    return "\n".join(lines)


def _f1(overlap: int, cand_total: int, ref_total: int) -> float:
    if overlap == 0:
        return 0.0
    p, r = overlap / cand_total, overlap / ref_total
    return 2 * p * r / (p + r)


def oracle_summary(src_sentences: Sequence[Sequence[str]], reference: str, budget: int) -> str:
    """The greedy extractive oracle: starting from nothing, add the sentence that fits the word
    budget and raises ROUGE-1 F + ROUGE-2 F against ``reference`` the most; stop when none raises
    it. Chosen sentences in article order, one per line; ties go to the earlier sentence.

    N-grams are those of the scorer (:class:`~c2fsum.metrics.rouge.Rouge155Tokenizer`: lower-cased,
    Porter-stemmed, punctuation dropped). The greedy criterion counts the candidate's bigrams within
    its sentences (the scorer's ROUGE-2 also counts the one bigram across each sentence boundary:
    the reported scores are the scorer's). Budget in article words, as LEAD's.
    """
    tok = Rouge155Tokenizer()
    ref_tokens = tok.tokenize(reference)
    ref = {n: ngram_counts(ref_tokens, n) for n in (1, 2)}
    ref_total = {n: max(sum(ref[n].values()), 1) for n in (1, 2)}
    texts = [sentence_words(s) for s in src_sentences]
    grams = [{n: ngram_counts(tok.tokenize(" ".join(t)), n) for n in (1, 2)} for t in texts]
    chosen: list[int] = []
    have: dict[int, Counter] = {1: Counter(), 2: Counter()}
    best_score, used = 0.0, 0

    def score_with(j: int) -> float:
        total = 0.0
        for n in (1, 2):
            cand = have[n] + grams[j][n]
            overlap = sum(min(c, ref[n][g]) for g, c in cand.items() if g in ref[n])
            total += _f1(overlap, sum(cand.values()), ref_total[n])
        return total

    while True:
        best_j = -1
        for j, t in enumerate(texts):
            if j in chosen or not t or used + len(t) > budget:
                continue
            s = score_with(j)
            if s > best_score:
                best_j, best_score = j, s
        if best_j < 0:
            break
        chosen.append(best_j)
        used += len(texts[best_j])
        for n in (1, 2):
            have[n] += grams[best_j][n]
    return "\n".join(" ".join(texts[j]) for j in sorted(chosen))


def baseline_summary(
    name: str,
    src_sentences: list[list[str]],
    *,
    ilp_budget: int = ILP_BUDGET,
    reference: str = "",
) -> str:
    """The summary of a tokenized article by baseline ``name`` (sentences one per line).

    ``ilp_budget``: the word budget of ``lead``, ``ilp`` and ``oracle``; ``reference``: what the
    oracle aims at (its sentences one per line; other baselines ignore it).
    """
    if name == "first":
        return first_sentence_baseline(src_sentences)
    if name == "lead3":
        return lead_k(src_sentences, 3)
    if name == "lead":
        return lead_words(src_sentences, ilp_budget)
    if name == "ilp":
        return ilp_summary(src_sentences, ilp_budget)
    if name == "oracle":
        return oracle_summary(src_sentences, reference, ilp_budget)
    if name == "berkeley":  # with the shipped weights; run_baseline takes others
        from c2fsum.evaluation.berkeley import berkeley_summary, load_weights

        return berkeley_summary(src_sentences, ilp_budget, load_weights()[0])
    raise InputError(f"unknown baseline {name!r}, expected one of {', '.join(BASELINES)}")


def _ablation_label(name: str, compress: bool, anaphora: bool) -> str:
    if name != "berkeley" or (compress and anaphora):
        return ""
    return " (" + ", ".join(x for x, on in (("no compression", compress), ("no anaphora", anaphora)) if not on) + ")"


def run_baseline(
    name: str,
    data_dir: str | Path,
    split: str,
    out_dir: str | Path,
    *,
    limit: int = 0,
    official: bool = False,
    ilp_budget: int = ILP_BUDGET,
    rouge_clean: str = "none",
    berkeley_weights: str | Path | None = None,
    berkeley_compress: bool = True,
    berkeley_anaphora: bool = True,
) -> dict:
    """Write ``predictions.jsonl`` and ``metrics.json`` of a baseline on a prepared split.

    ROUGE scores exactly the strings written to ``predictions.jsonl``; ``rouge_clean``: see
    :func:`c2fsum.metrics.rouge.score_corpus`. ``berkeley_weights``: BERKELEY's weights file
    (default: the shipped CNN/DM weights); ``berkeley_compress`` / ``berkeley_anaphora``: its
    ablations (:func:`c2fsum.evaluation.berkeley.solve`).
    """
    settings = rouge_settings(official=official, clean=rouge_clean)
    if name not in BASELINES:
        raise InputError(f"unknown baseline {name!r}, expected one of {', '.join(BASELINES)}")
    extra: dict = {}
    if name == "berkeley":
        from c2fsum.evaluation.berkeley import load_weights
        from c2fsum.evaluation.berkeley.model import summarize

        weights, record = load_weights(berkeley_weights)
        stats = {"sentence_tokens": 0, "deleted_tokens": 0, "rewritten": 0, "dangling": 0, "fallback": 0}
        extra["weights"] = str(berkeley_weights) if berkeley_weights else "shipped (cnndm-weights.json)"
        extra["weights_made_by"] = record.get("command", "")
    rows = []
    for doc in read_split(data_dir, split, limit=limit):
        references = [" ".join(r) for r in doc["refs"]]  # the reference's sentences
        if name == "berkeley":
            candidate, st = summarize(
                doc["src"], ilp_budget, weights, compress=berkeley_compress, anaphora=berkeley_anaphora
            )
            for k in stats:
                stats[k] += int(st[k])
        else:
            candidate = baseline_summary(name, doc["src"], ilp_budget=ilp_budget, reference="\n".join(references))
        rows.append({"id": doc["id"], "candidate": candidate, "references": references})
    if name == "berkeley" and rows:
        extra["compression"] = stats["deleted_tokens"] / max(stats["sentence_tokens"], 1)
        extra["pronouns_rewritten"] = stats["rewritten"] / len(rows)
        extra["dangling_pronouns"] = stats["dangling"]
        extra["fallbacks"] = stats["fallback"]
        extra["compress"], extra["anaphora"] = berkeley_compress, berkeley_anaphora
    scores = score_corpus(
        [r["candidate"] for r in rows], [r["references"] for r in rows], official=official, clean=rouge_clean
    )
    reader, per_summary = reader_measures(rows, data_dir, split)
    for row, counts in zip(rows, per_summary, strict=True):
        row.update(counts)
    metrics = {
        "ppl": None,
        **{k: v for k, v in scores.items() if k != "per_doc"},
        **settings,
        "model": DISPLAY[name] + _ablation_label(name, berkeley_compress, berkeley_anaphora),
        "split": split,
        "n_docs": len(rows),
        "avg_words": sum(len(r["candidate"].split()) for r in rows) / max(len(rows), 1),
        **reader,
        **extra,
    }
    if name in BUDGETED:
        metrics["budget"] = ilp_budget
    if name == "ilp":
        metrics["ilp_budget"] = ilp_budget
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "predictions.jsonl", rows)
    write_json(out / "metrics.json", metrics)
    return metrics
