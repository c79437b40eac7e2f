"""ROUGE: hand-computed goldens, the ROUGE-1.5.5 stemmer, markup, and agreement with the Perl script."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from pathlib import Path

import pytest

from c2fsum.metrics import rouge
from c2fsum.metrics.porter import porter_stem
from c2fsum.metrics.rouge import (
    CONCAT_METRICS,
    METRICS,
    OfficialRougeUnavailable,
    Rouge155Tokenizer,
    official_scores,
    rouge155_stem,
    score_corpus,
    score_document,
    score_pair,
    split_sentences,
    wordnet_exceptions,
)
from shared_data import CNNDM, need_real

ALL_KEYS = METRICS + CONCAT_METRICS


def _perl_ok() -> bool:
    try:
        return subprocess.run(["perl", "-MXML::Parser", "-MDB_File", "-e", "1"], capture_output=True).returncode == 0
    except FileNotFoundError:
        return False


needs_perl = pytest.mark.skipif(
    not _perl_ok(), reason="perl with XML::Parser and DB_File not installed (.ci/install-perl.sh)"
)


def _read_split(split: str, n: int | None = None) -> list[dict]:
    path = need_real(CNNDM / f"{split}.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    return docs[:n] if n else docs


def _lead3(article: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", article) if s.strip()][:3]


# --------------------------------------------------------------------------- hand-computed goldens


def test_cat_mat_golden():
    # cand "the cat sat on the mat", ref "the cat lay on the mat"; no token is longer than 3
    # characters, so nothing is stemmed.
    # R1: matches the x2, cat, on, mat = 5 of 6 on both sides -> P = R = F = 5/6.
    # R2: cand bigrams {the cat, cat sat, sat on, on the, the mat}, ref {the cat, cat lay, lay on,
    #     on the, the mat}: 3 shared of 5 each -> P = R = F = 3/5.
    # RL: LCS "the cat on the mat" = 5 -> P = R = F = 5/6.
    got = score_pair("the cat sat on the mat", "the cat lay on the mat")
    assert got == pytest.approx({"rouge1": 5 / 6, "rouge2": 3 / 5, "rougeL": 5 / 6}, abs=1e-12)


def test_summary_level_lcs_golden():
    # Lin (2004) sec. 3.2: ref "w1 w2 w3 w4 w5"; candidate sentences "w3 w4 w6" and "w1 w2 w7".
    # Union LCS = {w3 w4} + {w1 w2} = 4 -> P 4/6, R 4/5, F = 2 (4/6)(4/5) / (4/6 + 4/5) = 8/11.
    # R2 over the joined text (bigrams cross sentence ends, as in ROUGE-1.5.5): cand has w3w4 w4w6
    # w6w1 w1w2 w2w7, ref w1w2 w2w3 w3w4 w4w5 -> 2 shared: P 2/5, R 2/4, F = 4/9.
    # R1: 4 shared, P 4/6, R 4/5 -> 8/11.
    expected = {"rouge1": 8 / 11, "rouge2": 4 / 9, "rougeL": 8 / 11}
    assert score_pair("w3 w4 w6\nw1 w2 w7", "w1 w2 w3 w4 w5") == pytest.approx(expected, abs=1e-12)
    # a list of sentences splits sentences the same way, and so do </s> marks with clean="ptb"
    assert score_pair(["w3 w4 w6", "w1 w2 w7"], "w1 w2 w3 w4 w5") == pytest.approx(expected, abs=1e-12)
    ptb = score_pair("w3 w4 w6 </s> w1 w2 w7 </s>", "w1 w2 w3 w4 w5", clean="ptb")
    assert ptb == pytest.approx(expected, abs=1e-12)
    # by default, as in ROUGE-1.5.5, "</s>" is the word "s" and no sentence break: one candidate
    # sentence of 8 tokens "w3 w4 w6 s w1 w2 w7 s". R1 4 hits: P 4/8, R 4/5 -> F 8/13. R2 {w3 w4,
    # w1 w2}: P 2/7, R 2/4 -> F 4/11. RL: LCS of one sentence "w1 w2" (or "w3 w4") = 2: P 2/8, R 2/5
    # -> F 4/13.
    raw = score_pair("w3 w4 w6 </s> w1 w2 w7 </s>", "w1 w2 w3 w4 w5")
    assert raw == pytest.approx({"rouge1": 8 / 13, "rouge2": 4 / 11, "rougeL": 4 / 13}, abs=1e-12)
    # one sentence: plain LCS "w1 w2 w7"/"w3 w4" -> 2, F = 2 (2/6)(2/5) / (2/6 + 2/5) = 4/11
    assert score_pair("w3 w4 w6 w1 w2 w7", "w1 w2 w3 w4 w5")["rougeL"] == pytest.approx(4 / 11, abs=1e-12)


def test_max_vs_concat_protocol_golden():
    # highlights h1 "the cat lay on the mat", h2 "a dog sat on a log", cand "the cat sat on the mat"
    # max: h1 as in test_cat_mat_golden (5/6, 3/5, 5/6); h2: R1 {sat, on} 2/6 -> 1/3, R2 {sat on}
    #      1/5, RL "sat on" 2/6 -> best is h1 for every metric.
    # concat (12 reference tokens, 11 bigrams): R1 hits the x2 cat sat on mat = 6 -> P 1, R 1/2,
    #      F 2/3. R2 hits {the cat, sat on, on the, the mat} = 4 -> P 4/5, R 4/11, F 1/2.
    #      RL: union LCS 5 (line 1) + 2 ("sat on", line 2), but "on" is used up by line 1 (the
    #      candidate has one "on") -> 6 hits, P 1, R 1/2, F 2/3.
    got = score_document("the cat sat on the mat", ["the cat lay on the mat", "a dog sat on a log"])
    expected = {
        "rouge1": 5 / 6,
        "rouge2": 3 / 5,
        "rougeL": 5 / 6,
        "rouge1_concat": 2 / 3,
        "rouge2_concat": 1 / 2,
        "rougeL_concat": 2 / 3,
    }
    assert got == pytest.approx(expected, abs=1e-12)


def test_max_protocol_takes_the_best_highlight_per_metric():
    # cand "a b c d"; h1 "d c b a": R1 4/4 -> 1, R2 0, RL LCS 1 -> 1/4;
    # h2 "a b q q": R1 2/4 -> 1/2, R2 {a b} 1/3 each side -> 1/3, RL "a b" -> 1/2.
    got = score_document("a b c d", ["d c b a", "a b q q"])
    assert got["rouge1"] == pytest.approx(1.0)
    assert got["rouge2"] == pytest.approx(1 / 3)
    assert got["rougeL"] == pytest.approx(1 / 2)


def test_empty_candidate_scores_zero():
    assert score_document("", ["x y"]) == dict.fromkeys(ALL_KEYS, 0.0)
    assert score_document(" </s> ", ["x y"], clean="ptb") == dict.fromkeys(ALL_KEYS, 0.0)
    assert score_document(" -lrb- ", ["x y"]) == dict.fromkeys(ALL_KEYS, 0.0)


# --------------------------------------------------------------------------- stemming


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("said", "say"),
        ("children", "child"),
        ("went", "go"),
        ("were", "be"),
        ("better", "well"),
        ("best", "well"),  # adj 'good', then adv 'well' read later
        ("comics", "comic_strip"),
        ("media", "medium"),
        ("born", "bear"),
        ("was", "was"),
        ("men", "men"),  # 3 characters: never looked up nor stemmed
        ("days", "dai"),
        ("they", "thei"),
        ("died", "di"),  # NLTK's default mode gives day, they, die
    ],
)
def test_rouge155_stem_goldens(word, stem):
    assert rouge155_stem(word) == stem


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        # Porter (1980) examples, as the Perl reference implementation stems them end to end
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("ties", "ti"),
        ("cats", "cat"),
        ("feed", "feed"),
        ("agreed", "agre"),
        ("plastered", "plaster"),
        ("motoring", "motor"),
        ("sing", "sing"),
        ("conflated", "conflat"),
        ("troubled", "troubl"),
        ("sized", "size"),
        ("hopping", "hop"),
        ("falling", "fall"),
        ("filing", "file"),
        ("happy", "happi"),
        ("relational", "relat"),
        ("conditional", "condit"),
        ("rational", "ration"),
        ("hopeful", "hope"),
        ("goodness", "good"),
        ("allowance", "allow"),
        ("adjustment", "adjust"),
        ("generalization", "gener"),
        ("oscillators", "oscil"),
        ("controll", "control"),
        ("roll", "roll"),
        ("yelling", "yell"),
        # where ROUGE's Perl differs from NLTK's ORIGINAL_ALGORITHM mode
        ("agreement", "agreem"),  # CYL 2004: -ement, then -ent, on the shortened word
        ("analogy", "analog"),  # logi -> log
        ("accidental", "accid"),
    ],
)
def test_porter_stem_goldens(word, stem):
    assert porter_stem(word) == stem


def test_nltk_default_stemmer_differs():
    from nltk.stem.porter import PorterStemmer

    assert [PorterStemmer().stem(w) for w in ("days", "said", "children")] == ["day", "said", "children"]


def test_wordnet_exception_table():
    table = wordnet_exceptions()
    assert len(table) == rouge.EXPECTED_EXCEPTION_KEYS == 5930
    assert {k: table[k] for k in ("said", "went", "children", "goes", "better", "testes")} == {
        "said": "say",
        "went": "go",
        "children": "child",
        "goes": "go",
        "better": "well",
        "testes": "testes",
    }


# --------------------------------------------------------------------------- tokenizer and markup


def test_tokenizer_matches_perl_rules():
    tok = Rouge155Tokenizer(stem=False)
    # lowercase A-Z; everything else outside [a-z0-9] separates; the Kelvin sign is not "k"
    assert tok.tokenize("Naïve café—owner’s 2 WINS! \u212a well-known") == [
        "na",
        "ve",
        "caf",
        "owner",
        "s",
        "2",
        "wins",
        "well",
        "known",
    ]
    stemmed = Rouge155Tokenizer().tokenize("He said the children's toys")
    assert stemmed == ["he", "say", "the", "child", "s", "toi"]


def test_markup_is_scored_as_words_by_default():
    # ROUGE-1.5.5 reads "-lrb-" as "lrb", "</s>" as "s", "<unk>" as "unk"; "##" is nothing
    tok = Rouge155Tokenizer(stem=False)
    assert tok.tokenize("it rose </s> <s> -lrb- by ## % -rrb- <pad> <unk>") == [
        "it",
        "rose",
        "s",
        "s",
        "lrb",
        "by",
        "rrb",
        "pad",
        "unk",
    ]
    assert score_pair("a <unk> b", "a <unk> b") == pytest.approx(dict.fromkeys(METRICS, 1.0))
    # "-lrb- cnn -rrb- x" vs "cnn x": 2 of 4 candidate tokens match -> P 1/2, R 1, F 2/3
    assert score_pair("-lrb- cnn -rrb- x", "cnn x")["rouge1"] == pytest.approx(2 / 3)


def test_ptb_clean_drops_markup():
    tok = Rouge155Tokenizer(stem=False, clean="ptb")
    assert tok.tokenize("it rose </s> <s> -lrb- by ## % -rrb- <pad>") == ["it", "rose", "by"]
    a, b = tok.tokenize("<unk>"), tok.tokenize("<UNK>")
    assert len(a) == len(b) == 1 and a != b and a[0] != "unk"
    assert score_pair("-lrb- cnn -rrb- x", "cnn x", clean="ptb")["rouge1"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="expected one of none, ptb, got 'PTB'"):
        score_pair("a", "a", clean="PTB")


def test_ptb_clean_unk_is_a_token_that_matches_nothing():
    # tokens [a, <unk>, b] on both sides: 2 of 3 unigrams match, no bigram does (a-unk, unk-b).
    got = score_pair("a <unk> b", "a <unk> b", clean="ptb")
    assert got == pytest.approx({"rouge1": 2 / 3, "rouge2": 0.0, "rougeL": 2 / 3})
    assert score_pair("a <unk> b", "a unk b", clean="ptb")["rouge1"] == pytest.approx(2 / 3)
    # </s> is not the word "s"
    assert score_pair("a b </s>", "a b s", clean="ptb") == pytest.approx(
        {"rouge1": 0.8, "rouge2": 2 / 3, "rougeL": 0.8}
    )  # 2/2 vs 2/3 -> F 4/5; 1/1 vs 1/2 -> 2/3


def test_split_sentences():
    assert split_sentences("a b </s> c\n\n d  e </s>") == ["a b </s> c", "d e </s>"]
    assert split_sentences("a b </s> c\n\n d  e </s>", clean="ptb") == ["a b", "c", "d e"]
    assert split_sentences(["x </s> y", "  ", "z"], clean="ptb") == ["x", "y", "z"]
    assert split_sentences(["x </s> y", "  ", "z\nw"]) == ["x </s> y", "z", "w"]
    with pytest.raises(TypeError, match="expected a string or a list of strings, got int"):
        split_sentences(3)


def test_argument_errors():
    with pytest.raises(TypeError, match="got one str"):
        score_document("a", "a b")
    with pytest.raises(ValueError, match="non-empty list"):
        score_document("a", [])
    with pytest.raises(ValueError, match="got 2 candidates but 1 reference lists"):
        score_corpus(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="no documents"):
        score_corpus([], [])


def test_score_corpus_means_and_per_doc():
    out = score_corpus(
        ["the cat sat on the mat", ""], [["the cat lay on the mat"], ["x"]], ids=["d1", "d2"], perl_rounding=False
    )
    assert out["n_docs"] == 2
    assert out["rouge1"] == pytest.approx(100 * (5 / 6) / 2)
    assert out["rouge2_concat"] == pytest.approx(100 * (3 / 5) / 2)
    assert [d["id"] for d in out["per_doc"]] == ["d1", "d2"]
    assert set(out) == set(ALL_KEYS) | {"n_docs", "per_doc"}


def test_rouge_score_alone_differs_on_stemming():
    # The gap this module closes: rouge-score's own stemmer has no WordNet exceptions.
    # Ours: [the child go home] vs [a child go home] -> R1 3/4. rouge-score: only "home" matches.
    from rouge_score import rouge_scorer

    plain = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True).score(
        "A child goes home.", "The children went home."
    )
    assert plain["rouge1"].fmeasure == pytest.approx(0.25)
    assert score_pair("The children went home.", "A child goes home.")["rouge1"] == pytest.approx(0.75)


# --------------------------------------------------------------------------- official ROUGE-1.5.5


def test_missing_perl_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(OfficialRougeUnavailable, match="needs perl") as err:
        score_corpus(["a"], [["a"]], official=True)
    assert "\n" not in str(err.value)
    fake = tmp_path / "perl"
    fake.write_text("#!/bin/sh\nexit 2\n")
    fake.chmod(0o755)
    with pytest.raises(OfficialRougeUnavailable, match=r"perl module\(s\) XML::Parser, DB_File") as err:
        official_scores(["a"], [["a"]], cache_dir=tmp_path)
    assert "\n" not in str(err.value) and "install-perl.sh" in str(err.value)


@pytest.fixture(scope="session")
def rouge_cache(tmp_path_factory) -> Path:
    """A fresh cache dir: the WordNet DB is rebuilt (and checked against the exception files)."""
    if not _perl_ok():
        pytest.skip("perl with XML::Parser and DB_File not installed (.ci/install-perl.sh)")
    cache = tmp_path_factory.mktemp("rouge155_cache")
    rouge.ensure_rouge_data(cache)
    return cache


def _perl_morph_stems(words: list[str], data_dir: Path, work: Path) -> list[str]:
    """Stems computed by the Perl subs ``MorphStem``, ``stem`` and ``initialise`` of the shipped script.

    The subs are cut out of ROUGE-1.5.5.pl at run time and fed every word; as in ``createNGram``,
    only tokens longer than 3 characters are stemmed.
    """
    script = (rouge.rouge155_home() / "ROUGE-1.5.5.pl").read_text(encoding="latin-1")
    morph = re.search(r"^sub MorphStem \{.*?^\}\n", script, re.S | re.M).group()
    porter = script[script.index("local %step2list;") :]
    driver = work / "stem.pl"
    db = data_dir / "WordNet-2.0.exc.db"
    header = f"use DB_File; use Fcntl;\ntie %exceptiondb, 'DB_File', '{db}', O_RDONLY, 0440, $DB_HASH or die;\n"
    loop = 'while (my $w = <STDIN>) { chomp $w; print((length($w) > 3 ? MorphStem($w) : $w), "\\n"); }\n'
    driver.write_text(header + porter + "\n" + morph + "initialise();\n" + loop, encoding="latin-1")
    proc = subprocess.run(
        ["perl", str(driver)],
        input="".join(w + "\n" for w in words),
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.split("\n")[:-1]


@pytest.mark.real_data
def test_stemmer_matches_perl_on_every_corpus_word(rouge_cache, tmp_path):
    vocab: set[str] = set()
    for split in ("train", "val", "test"):
        for doc in _read_split(split):
            for field in ("article", "highlights"):
                vocab.update(t.lower() for t in re.findall(r"[A-Za-z0-9]+", doc[field]))
    words = sorted(vocab)
    assert len(words) > 40000
    data_dir = rouge.ensure_rouge_data(rouge_cache)
    perl = _perl_morph_stems(words, data_dir, tmp_path)
    assert len(perl) == len(words)
    mismatches = [(w, p, rouge155_stem(w)) for w, p in zip(words, perl, strict=True) if rouge155_stem(w) != p]
    assert mismatches == [], f"{len(mismatches)} of {len(words)} word types differ, e.g. {mismatches[:10]}"


def test_rebuilt_wordnet_db_holds_the_exception_table(rouge_cache):
    db = rouge.ensure_rouge_data(rouge_cache) / "WordNet-2.0.exc.db"
    assert rouge.read_exception_db(db) == wordnet_exceptions()


EDGE_CASES = [
    ("", ["x y"]),  # empty candidate
    (
        "The children went home <unk> . </s> He said -lrb- it -rrb- cost ## dollars .",
        ["A child goes home <unk> .", "he says it cost 20 dollars ."],
    ),
    (["<s> naïve café—owner’s 2 wins ! </s>", "\u212a well-known"], ["naive cafe owner s 2 win", "k known"]),
    ("w3 w4 w6\nw1 w2 w7", ["w1 w2 w3 w4 w5", "..."]),  # a highlight with no token
]


@pytest.fixture(scope="module")
def agreement_docs() -> tuple[list, list, list]:
    docs = _read_split("test", 30)
    cands = [_lead3(d["article"]) for d in docs] + [c for c, _ in EDGE_CASES]
    refs = [[h for h in d["highlights"].split("\n") if h.strip()] for d in docs] + [r for _, r in EDGE_CASES]
    ids = [d["id"] for d in docs] + [f"edge{i}" for i in range(len(EDGE_CASES))]
    return cands, refs, ids


@pytest.mark.real_data
@pytest.mark.parametrize("clean", ["none", "ptb"])
def test_python_scores_equal_official_per_document(rouge_cache, agreement_docs, clean):
    cands, refs, ids = agreement_docs
    official = official_scores(cands, refs, ids=ids, cache_dir=rouge_cache, jobs=2, clean=clean)
    rounded = score_corpus(cands, refs, ids=ids, clean=clean)  # perl_rounding is the default
    exact = score_corpus(cands, refs, ids=ids, perl_rounding=False, clean=clean)
    assert official["n_docs"] == rounded["n_docs"] == len(cands)
    for off, r, e in zip(official["per_doc"], rounded["per_doc"], exact["per_doc"], strict=True):
        assert off["id"] == r["id"] == e["id"]
        for k in ALL_KEYS:
            # with the script's 5-decimal arithmetic: the same number (well within the 1e-5 asked)
            assert abs(r[k] - off[k]) <= 1e-9, (off["id"], k, r[k], off[k])
            # exact F: off only by the script's rounding of P and R (<= 1e-5) and of F (5e-6)
            assert abs(e[k] - off[k]) <= 1.5e-5 + 1e-12, (off["id"], k, e[k], off[k])
    for k in ALL_KEYS:
        assert rounded[k] == pytest.approx(official[k], abs=1e-9)


def test_score_corpus_official_flag(rouge_cache, monkeypatch):
    monkeypatch.setattr(rouge, "_default_cache_dir", lambda: rouge_cache)
    out = score_corpus(["the cat sat on the mat"], [["the cat lay on the mat", "a dog sat on a log"]], official=True)
    assert out["per_doc"] == [
        {
            "rouge1": 0.83333,
            "rouge2": 0.6,
            "rougeL": 0.83333,
            "rouge1_concat": 0.66667,
            "rouge2_concat": 0.5,
            "rougeL_concat": 0.66667,
        }
    ]
    assert out["n_docs"] == 1 and out["rouge1"] == pytest.approx(83.333)


# --------------------------------------------------------------------------- real predictions, raw Perl

NON_ASCII = [
    " caf\u00e9 na\u00efve \u2014 \u2018quoted\u2019 \u6771\u4eac \u212a \ufb01ne 5\u00b0c stra\u00dfe",
    " \u00c5ngstr\u00f6m\u2028line \u00bd \u0394 \U0001f600 cost \u00a3 ## m",
]


@pytest.fixture(scope="module")
def first_predictions(tmp_path_factory) -> list[dict]:
    """``predictions.jsonl`` of ``c2fsum baseline first`` on the first 120 shared CNN/DM test documents.

    The prepared split is made with c2fsum's own preprocessing (PTB brackets such as ``-lrb-``,
    digits masked as ``#``); every tenth document gets non-ASCII text added to its candidate and
    its first highlight, as a user's own system might write.
    """
    from c2fsum.data.prepare import process_document
    from c2fsum.data.readers import RawDocument
    from c2fsum.evaluation.baselines import run_baseline

    work = tmp_path_factory.mktemp("first")
    rows = []
    for d in _read_split("test", 120):
        raw = RawDocument(d["id"], d["article"], tuple(d["highlights"].split("\n")), "test")
        rec = process_document(raw)
        assert isinstance(rec, dict)
        rows.append(json.dumps(rec))
    (work / "data").mkdir()
    (work / "data" / "test.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    run_baseline("first", work / "data", "test", work / "out")
    preds = [json.loads(line) for line in (work / "out" / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]
    for k, p in enumerate(preds[::10]):
        p["candidate"] += NON_ASCII[k % 2]
        p["references"][0] += NON_ASCII[(k + 1) % 2]
    return preds


def _perl_on_strings(preds: list[dict], data_dir: Path, work: Path) -> dict[str, dict[str, float]]:
    """ROUGE-1.5.5.pl ``-c 95 -m -n 2 -a`` run directly on the strings, as a user would run it.

    One SPL file per candidate (its lines as written), one per highlight (max protocol), one with
    the highlights one per line (concat protocol); the strings are written as they are. Returns
    the F the script prints, per eval id ``{i}_{j}`` (highlight j) and ``{i}_c`` (concat).
    """
    config = ['<ROUGE-EVAL version="1.5.5">']
    for i, p in enumerate(preds):
        (work / f"peer{i}.txt").write_text(p["candidate"] + "\n", encoding="utf-8")
        models = {f"{i}_{j}": r for j, r in enumerate(p["references"])}
        models[f"{i}_c"] = "\n".join(p["references"])
        for eid, text in models.items():
            (work / f"model{eid}.txt").write_text(text + "\n", encoding="utf-8")
            config.append(
                f'<EVAL ID="{eid}"><PEER-ROOT>{work}</PEER-ROOT><MODEL-ROOT>{work}</MODEL-ROOT>'
                f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="A">peer{i}.txt</P></PEERS>'
                f'<MODELS><M ID="R">model{eid}.txt</M></MODELS></EVAL>'
            )
    (work / "config.xml").write_text("\n".join([*config, "</ROUGE-EVAL>"]) + "\n", encoding="utf-8")
    script = rouge.rouge155_home() / "ROUGE-1.5.5.pl"
    cmd = ["perl", str(script), "-e", str(data_dir), "-c", "95", "-m", "-n", "2", "-a", "-d", str(work / "config.xml")]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    scores: dict[str, dict[str, float]] = {}
    for m in re.finditer(r"^A ROUGE-([12L]) Eval (\S+)\.A R:\S+ P:\S+ F:(\S+)$", out, re.M):
        scores.setdefault(m.group(2), {})["rouge" + m.group(1)] = float(m.group(3))
    return scores


@pytest.mark.real_data
def test_default_scores_equal_perl_on_predictions_jsonl(rouge_cache, first_predictions, tmp_path):
    preds = first_predictions
    cands = [p["candidate"] for p in preds]
    refs = [p["references"] for p in preds]
    # the strings hold what issue 17 found ignored: PTB brackets, # digits, non-ASCII text
    assert sum(c.startswith("-lrb- cnn -rrb-") for c in cands) >= 10
    assert sum("#" in c for c in cands) >= 10 and sum("#" in r for rs in refs for r in rs) >= 10
    assert sum(not (c + "".join(r)).isascii() for c, r in zip(cands, refs, strict=True)) >= 12
    perl = _perl_on_strings(preds, rouge.ensure_rouge_data(rouge_cache), tmp_path)
    assert len(perl) == sum(len(r) + 1 for r in refs)
    expected = [
        {
            **{m: max(perl[f"{i}_{j}"][m] for j in range(len(r))) for m in METRICS},
            **{f"{m}_concat": perl[f"{i}_c"][m] for m in METRICS},
        }
        for i, r in enumerate(refs)
    ]
    rounded = score_corpus(cands, refs)["per_doc"]  # the default: F as the script prints it
    exact = score_corpus(cands, refs, perl_rounding=False)["per_doc"]
    assert max(abs(r[k] - x[k]) for r, x in zip(rounded, expected, strict=True) for k in ALL_KEYS) <= 1e-9
    # exact F: off only by the script's rounding of P and R (<= 1e-5) and of F (5e-6)
    assert max(abs(e[k] - x[k]) for e, x in zip(exact, expected, strict=True) for k in ALL_KEYS) <= 1.5e-5 + 1e-12
    # our official path writes the same files: the same numbers
    assert official_scores(cands, refs, cache_dir=rouge_cache, jobs=2)["per_doc"] == rounded
    # the former default (clean="ptb") departs from the script on the documents with brackets
    ptb = score_corpus(cands, refs, clean="ptb")["per_doc"]
    moved = [i for i, (p, x) in enumerate(zip(ptb, expected, strict=True)) if abs(p["rouge1"] - x["rouge1"]) > 1e-3]
    assert len(moved) >= 10 and all("-lrb-" in cands[i] + "".join(refs[i]) for i in moved)
