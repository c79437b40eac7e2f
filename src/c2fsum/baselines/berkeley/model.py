"""BERKELEY's compressive ILP: units, their learned scores, anaphoricity constraints, exact solve.

After Durrett, Berg-Kirkpatrick & Klein (2016). A document is analyzed into textual units
(:func:`analyze`): per sentence its head and its deletable parts (:mod:`.units`), each part
keepable only with the unit it sits in; and its cross-sentence pronouns (:mod:`.coref`). Unit
``u`` of ``n_u`` tokens scores ``s_u = n_u * (w . f(u))``: the weights ``w`` predict the ROUGE
recall a unit brings *per token* (:mod:`.learn`), so a unit's value grows with its length. The
ILP, over binaries ``x_u`` (unit kept) and ``r_p`` (pronoun ``p`` rewritten as its antecedent)::

    maximize    sum_u s_u x_u  -  eps * sum_p r_p
    subject to  x_u <= x_parent(u)                          (a part only with what holds it)
                sum_u n_u x_u + sum_p (m_p - 1) r_p <= L    (word budget; m_p: mention length)
                x_unit(p) <= x_unit(ante(p)) + r_p          (anaphoricity)
                r_p <= x_unit(p)
                sum_j x_head(j) >= 1                        (never empty, when a head fits)

``unit(p)`` is the unit holding the pronoun, ``unit(ante(p))`` the one holding its antecedent
mention (the mention's sentence head, or the deletable part it lies in). Solved exactly by HiGHS
through ``scipy.optimize.milp`` (relative gap 1e-9), as :mod:`c2fsum.baselines.ilp`. Lengths are
tokens, punctuation included, sentence marks excluded, as the ILP baseline counts them; commas
dropped around deleted parts make the written summary at most that long.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from c2fsum.baselines.berkeley.coref import PRONOUNS, Pronoun, resolve
from c2fsum.baselines.berkeley.units import KINDS, SentenceUnits, realize, sentence_units
from c2fsum.baselines.ilp import STOPWORDS

REWRITE_EPS = 1e-4
"""``eps``: a rewrite that costs no words is still only made when it is needed."""
POS_BUCKETS = ((0, 0), (1, 1), (2, 2), (3, 3), (4, 5), (6, 9), (10, 19), (20, 10**9))
FIRST_POS = ("NN", "VB", "IN", "DT", "PRP", "JJ", "RB", "CD", "W", "other")


@dataclass
class Unit:
    """One textual unit: sentence ``sent``, span index ``span`` in that sentence (-1: its head),
    ``kind`` (``head`` or a deletion kind), ``tokens`` the token indices it owns."""

    sent: int
    span: int
    kind: str
    tokens: list[int]

    @property
    def length(self) -> int:
        return len(self.tokens)


@dataclass
class Document:
    """An analyzed article: per sentence its :class:`SentenceUnits`, the units (``U``), the unit of
    each (sentence, span) in ``index``, each unit's parent unit (-1 for heads) and the pronouns."""

    sentences: list[SentenceUnits]
    units: list[Unit] = field(default_factory=list)
    index: dict[tuple[int, int], int] = field(default_factory=dict)
    parent: list[int] = field(default_factory=list)
    pronouns: list[Pronoun] = field(default_factory=list)

    def unit_of(self, sent: int, token: int) -> int:
        """The unit owning a token."""
        return self.index[(sent, self.sentences[sent].owner[token])]


def analyze(src_sentences: Sequence[Sequence[str]]) -> Document:
    """Units and pronouns of a tokenized article (sentence marks ignored; empty sentences get no unit)."""
    sents = [sentence_units(s) for s in src_sentences]
    doc = Document(sentences=sents)
    for j, su in enumerate(sents):
        if not su.tagged.words:
            continue
        owned: dict[int, list[int]] = {}
        for t, o in enumerate(su.owner):
            owned.setdefault(o, []).append(t)
        doc.index[(j, -1)] = len(doc.units)
        doc.units.append(Unit(j, -1, "head", owned.get(-1, [])))
        doc.parent.append(-1)
        for s, sp in enumerate(su.spans):
            doc.index[(j, s)] = len(doc.units)
            doc.units.append(Unit(j, s, sp.kind, owned.get(s, [])))
            doc.parent.append(doc.index[(j, sp.parent)])
    doc.pronouns = resolve(sents)
    return doc


def _bucket(j: int) -> int:
    return next(b for b, (lo, hi) in enumerate(POS_BUCKETS) if lo <= j <= hi)


def _first_pos(tag: str) -> str:
    for p in FIRST_POS[:-1]:
        if tag.startswith(p):
            return p
    return "other"


FEATURES: list[str] = (
    ["bias"]
    + [f"kind={k}" for k in KINDS]
    + [f"sent_pos={lo}-{hi}" for lo, hi in POS_BUCKETS]
    + [f"head&sent_pos={lo}-{hi}" for lo, hi in POS_BUCKETS]
    + [f"first_pos={p}" for p in FIRST_POS]
    + [
        "log_len",
        "unit_start_frac",
        "sent_len_short",
        "sent_len_long",
        "log_doc_sents",
        "content_frac",
        "mean_log_doc_count",
        "max_log_doc_count",
        "frac_in_first_sent",
        "has_number",
        "has_proper",
        "has_quote",
        "has_pronoun",
        "sent_has_pronoun_ante",
    ]
)
"""Unit features (Durrett et al.'s kinds: position, structure, lexical); one weight each."""


def features(doc: Document) -> np.ndarray:
    """The ``(U, F)`` feature matrix of a document's units, columns as :data:`FEATURES`."""
    col = {name: i for i, name in enumerate(FEATURES)}
    X = np.zeros((len(doc.units), len(FEATURES)))
    words = [su.tagged.words for su in doc.sentences]
    counts = Counter(w for ws in words for w in ws if w not in STOPWORDS and any(c.isalnum() for c in w))
    first = set(words[0]) if words else set()
    with_ante = {p.sent for p in doc.pronouns}
    n_sents = len(doc.sentences)
    for u, unit in enumerate(doc.units):
        su = doc.sentences[unit.sent]
        ws = [su.tagged.words[t] for t in unit.tokens]
        tags = [su.tagged.tags[t] for t in unit.tokens]
        content = [w for w in ws if w in counts]
        b = _bucket(unit.sent)
        lo, hi = POS_BUCKETS[b]
        X[u, col["bias"]] = 1
        X[u, col[f"kind={unit.kind}"]] = 1
        X[u, col[f"sent_pos={lo}-{hi}"]] = 1
        if unit.kind == "head":
            X[u, col[f"head&sent_pos={lo}-{hi}"]] = 1
        elif tags:
            X[u, col[f"first_pos={_first_pos(tags[0])}"]] = 1
        X[u, col["log_len"]] = math.log1p(len(ws))
        X[u, col["unit_start_frac"]] = unit.tokens[0] / max(len(su.tagged.words), 1) if unit.tokens else 0
        X[u, col["sent_len_short"]] = float(len(su.tagged.words) < 8)
        X[u, col["sent_len_long"]] = float(len(su.tagged.words) > 35)
        X[u, col["log_doc_sents"]] = math.log1p(n_sents) / 5
        X[u, col["content_frac"]] = len(content) / max(len(ws), 1)
        logs = [math.log(counts[w]) for w in content]
        X[u, col["mean_log_doc_count"]] = float(np.mean(logs)) if logs else 0
        X[u, col["max_log_doc_count"]] = max(logs) if logs else 0
        X[u, col["frac_in_first_sent"]] = sum(w in first for w in content) / max(len(content), 1)
        X[u, col["has_number"]] = float(any("#" in w or w.isdigit() for w in ws))
        X[u, col["has_proper"]] = float(any(t.startswith("NNP") for t in tags))
        X[u, col["has_quote"]] = float(any(w in ("``", "''", '"') for w in ws))
        X[u, col["has_pronoun"]] = float(any(w in PRONOUNS for w in ws))
        X[u, col["sent_has_pronoun_ante"]] = float(unit.sent in with_ante)
    return X


def unit_scores(doc: Document, weights: np.ndarray) -> np.ndarray:
    """``(U,)`` scores ``n_u * (w . f(u))``."""
    lengths = np.array([u.length for u in doc.units], dtype=np.float64)
    return lengths * (features(doc) @ weights) if len(doc.units) else np.zeros(0)


@dataclass
class Selection:
    """An ILP solution: kept units and rewritten pronouns (indices into the document's lists)."""

    units: list[int]
    rewritten: list[int]


def pronoun_units(doc: Document) -> list[tuple[int, int]]:
    """Per pronoun: (unit holding it, unit holding its antecedent mention's last token)."""
    return [(doc.unit_of(p.sent, p.token), doc.unit_of(p.antecedent.sent, p.antecedent.end - 1)) for p in doc.pronouns]


def objective(doc: Document, scores: np.ndarray, sel: Selection) -> float:
    """The ILP objective of a selection."""
    return float(sum(scores[u] for u in sel.units)) - REWRITE_EPS * len(sel.rewritten)


def feasible(doc: Document, sel: Selection, budget: int) -> bool:
    """Whether a selection meets every constraint of the module docstring."""
    kept = set(sel.units)
    rew = set(sel.rewritten)
    if any(doc.parent[u] >= 0 and doc.parent[u] not in kept for u in kept):
        return False
    length = sum(doc.units[u].length for u in kept)
    length += sum(len(doc.pronouns[p].replacement) - 1 for p in rew)
    if length > budget:
        return False
    for p, (up, ua) in enumerate(pronoun_units(doc)):
        if p in rew and up not in kept:
            return False
        if up in kept and ua not in kept and p not in rew:
            return False
    heads = [u for u, unit in enumerate(doc.units) if unit.kind == "head"]
    if any(doc.units[h].length <= budget for h in heads) and not kept & set(heads):
        return False
    return True


def solve(doc: Document, scores: np.ndarray, budget: int, *, compress: bool = True, anaphora: bool = True) -> Selection:
    """The optimal selection (module docstring), by HiGHS.

    When no head fits together with what its pronouns need, the never-empty constraint is
    dropped (the summary then falls back to the first sentence cut, :func:`summarize`).
    Ablations: ``compress=False`` ties every part to its parent (``x_u = x_parent(u)``: whole
    sentences only); ``anaphora=False`` drops the anaphoricity constraints (no rewriting either).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    if budget < 1:
        raise ValueError(f"budget: expected at least 1 word, got {budget}")
    U, P = len(doc.units), len(doc.pronouns)
    if U == 0:
        return Selection([], [])
    lengths = np.array([u.length for u in doc.units], dtype=np.float64)
    heads = np.array([u.kind == "head" for u in doc.units])
    rows: list[tuple[dict[int, float], float, float]] = []
    for u, par in enumerate(doc.parent):
        if par >= 0:
            rows.append(({u: 1.0, par: -1.0}, -np.inf if compress else 0.0, 0.0))
    length_row = {u: float(lengths[u]) for u in range(U)}
    for p, pr in enumerate(doc.pronouns):
        length_row[U + p] = float(len(pr.replacement) - 1)
    rows.append((length_row, -np.inf, float(budget)))
    for p, (up, ua) in enumerate(pronoun_units(doc)):
        if up != ua and anaphora:
            rows.append(({up: 1.0, ua: -1.0, U + p: -1.0}, -np.inf, 0.0))
        rows.append(({U + p: 1.0, up: -1.0}, -np.inf, 0.0))
    fits = heads & (lengths <= budget)
    if fits.any():
        rows.append(({int(u): 1.0 for u in np.nonzero(heads)[0]}, 1.0, np.inf))
    cost = np.concatenate([-np.asarray(scores, dtype=np.float64), np.full(P, REWRITE_EPS)])
    upper = np.concatenate([(lengths <= budget).astype(np.float64), np.full(P, 1.0 if anaphora else 0.0)])

    def run(rows: list[tuple[dict[int, float], float, float]]):
        r, c, v = [], [], []
        for i, (coef, _, _) in enumerate(rows):
            for k, val in coef.items():
                r.append(i)
                c.append(k)
                v.append(val)
        A = coo_matrix((v, (r, c)), shape=(len(rows), U + P)).tocsr()
        lo, hi = np.array([lo for _, lo, _ in rows]), np.array([hi for _, _, hi in rows])
        return milp(
            cost,
            constraints=LinearConstraint(A, lo, hi),
            integrality=np.ones(U + P),
            bounds=Bounds(np.zeros(U + P), upper),
            options={"mip_rel_gap": 1e-9},
        )

    res = run(rows)
    if res.x is None and fits.any() and res.status == 2:  # infeasible: no head fits with its antecedents
        res = run(rows[:-1])
    if res.x is None:
        raise RuntimeError(f"BERKELEY ILP solver failed: {res.message}")
    return Selection([u for u in range(U) if res.x[u] > 0.5], [p for p in range(P) if res.x[U + p] > 0.5])


def render(doc: Document, sel: Selection) -> list[list[str]]:
    """The summary's sentences (words), in article order: kept heads with their kept parts,
    rewritten pronouns replaced by their antecedents' mentions."""
    kept = set(sel.units)
    out = []
    for j, su in enumerate(doc.sentences):
        head = doc.index.get((j, -1))
        if head is None or head not in kept:
            continue
        spans_kept = [doc.index[(j, s)] in kept for s in range(len(su.spans))]
        repl = {doc.pronouns[p].token: doc.pronouns[p].replacement for p in sel.rewritten if doc.pronouns[p].sent == j}
        words = realize(su, spans_kept, repl)
        if words:
            out.append(words)
    return out


def compression(doc: Document, sel: Selection) -> tuple[int, int]:
    """``(tokens of the chosen sentences, of those deleted)``: the compression rate's parts."""
    kept = set(sel.units)
    heads = [doc.index[(j, -1)] for j in range(len(doc.sentences)) if doc.index.get((j, -1)) in kept]
    total = sum(len(doc.sentences[doc.units[h].sent].tagged.words) for h in heads)
    chosen_sents = {doc.units[h].sent for h in heads}
    deleted = sum(u.length for i, u in enumerate(doc.units) if u.sent in chosen_sents and i not in kept)
    return total, deleted


def dangling(doc: Document, sel: Selection) -> int:
    """Kept pronouns whose antecedent is neither kept nor written in their place (0 unless the
    anaphoricity constraints are off)."""
    kept, rew = set(sel.units), set(sel.rewritten)
    return sum(1 for p, (up, ua) in enumerate(pronoun_units(doc)) if up in kept and ua not in kept and p not in rew)


def summarize(
    src_sentences: Sequence[Sequence[str]],
    budget: int,
    weights: np.ndarray,
    *,
    compress: bool = True,
    anaphora: bool = True,
) -> tuple[str, dict]:
    """The BERKELEY summary of a tokenized article (sentences one per line) and its statistics:
    ``sentence_tokens`` / ``deleted_tokens`` (:func:`compression`), ``rewritten`` (pronouns
    rewritten), ``dangling`` (:func:`dangling`), ``fallback`` (True when the ILP kept nothing
    because no head fits the budget: then the first sentence cut to ``budget`` words).
    ``compress``, ``anaphora``: :func:`solve`'s ablations."""
    doc = analyze(src_sentences)
    sel = solve(doc, unit_scores(doc, weights), budget, compress=compress, anaphora=anaphora)
    lines = render(doc, sel)
    total, deleted = compression(doc, sel)
    stats = {
        "sentence_tokens": total,
        "deleted_tokens": deleted,
        "rewritten": len(sel.rewritten),
        "dangling": dangling(doc, sel),
        "fallback": False,
    }
    if not lines:
        first = next((su.tagged.words for su in doc.sentences if su.tagged.words), [])
        return " ".join(first[:budget]), {**stats, "fallback": True}
    return "\n".join(" ".join(ws) for ws in lines), stats


def berkeley_summary(src_sentences: Sequence[Sequence[str]], budget: int, weights: np.ndarray) -> str:
    """The BERKELEY summary of a tokenized article, sentences one per line (:func:`summarize`)."""
    return summarize(src_sentences, budget, weights)[0]
