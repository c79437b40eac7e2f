"""prepare(): output format, hand-computed statistics, bad input, determinism across workers."""

from __future__ import annotations

import gzip
import itertools
import json
import logging
from pathlib import Path

import pytest

from c2fsum.data.prepare import format_stats_table, prepare, process_document, read_prepared
from c2fsum.data.readers import DataError, RawDocument, url_to_id
from c2fsum.data.vocab import EOS, Vocab
from shared_data import CNNDM, need_real

needs_cnndm = pytest.mark.real_data(CNNDM / "stories")


def write_lines(path: Path, lines: list) -> Path:
    """Dicts as JSON lines, str/bytes as given."""
    out = []
    for line in lines:
        out.append(line if isinstance(line, bytes) else (line if isinstance(line, str) else json.dumps(line)).encode())
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


def tiny_train(tmp_path: Path) -> Path:
    """Two good documents, an empty article, a broken line, a record without highlights."""
    src = tmp_path / "in"
    src.mkdir()
    write_lines(
        src / "train.jsonl",
        [
            {"id": "a", "article": "One two. Three four five.", "highlights": "Sum one .\nSum two ."},
            {"id": "b", "article": "Six!", "highlights": "Hi ."},
            {"id": "c", "article": "  ", "highlights": "x"},
            '{"id": "broken"',
            {"id": "d", "article": "Seven."},
        ],
    )
    return src


# ------------------------------------------------------------------------------ golden
def test_tiny_input_gives_hand_computed_files_and_stats(tmp_path, caplog):
    src = tiny_train(tmp_path)
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING):
        stats = prepare(src, out, vocab_size=3, workers=1, progress=False)
    assert (out / "train.jsonl").read_text(encoding="utf-8") == (
        '{"id":"a","src":[["one","two",".","</s>"],["three","four","five",".","</s>"]],'
        '"tgt":["sum","one","."],"refs":[["sum","one","."],["sum","two","."]],'
        '"surface":{"0":"One","4":"Three"}}\n'
        '{"id":"b","src":[["six","!","</s>"]],"tgt":["hi","."],"refs":[["hi","."]],"surface":{"0":"Six"}}\n'
    )
    train = stats["splits"]["train"]
    assert train["documents"] == 2
    assert train["avg_words_per_doc"] == 4.5  # (3 + 4) + 2 words, </s> not counted
    assert train["avg_sents_per_doc"] == 1.5
    assert train["avg_words_per_sent"] == 3.0  # 9 words / 3 sentences
    assert train["avg_words_per_summary"] == 2.5  # targets of 3 and 2 tokens
    assert train["avg_highlights_per_doc"] == 1.5
    assert train["dropped"] == {"empty_article": 1}
    assert train["skipped"] == {"bad_json": 1, "missing_column": 1}
    # counts over article and target tokens: "." 4, "one" 2, then ties alphabetically: "!" first
    assert Vocab.load(out / "vocab.txt").itos == ["<pad>", "<unk>", "<s>", "</s>", ".", "one", "!"]
    assert (out / "vocab.txt").read_text().splitlines()[4:] == [".\t4", "one\t2", "!\t1"]
    assert json.loads((out / "stats.json").read_text()) == stats
    assert f"{src / 'train.jsonl'}:3: dropped (empty_article)" in caplog.text
    assert f"{src / 'train.jsonl'}:4: skipped (bad_json)" in caplog.text
    assert f"{src / 'train.jsonl'}:5: skipped (missing_column)" in caplog.text
    assert sorted(p.name for p in out.iterdir()) == ["stats.json", "train.jsonl", "vocab.txt"]


def test_stats_table(tmp_path):
    stats = prepare(tiny_train(tmp_path), tmp_path / "out", workers=1, progress=False)
    table = format_stats_table(stats)
    lines = table.splitlines()
    header = "split docs words/doc sents/doc words/sent words/summary highl./doc dropped skipped"
    assert lines[0].split() == header.split()
    assert lines[2].split() == ["train", "2", "4.5", "1.5", "3.0", "2.5", "1.50", "1", "2"]
    assert "train dropped: empty_article=1" in table
    assert "train skipped: bad_json=1, missing_column=1" in table


def test_all_highlights_target(tmp_path):
    prepare(tiny_train(tmp_path), tmp_path / "out", all_highlights=True, workers=1, progress=False)
    first = next(read_prepared(tmp_path / "out" / "train.jsonl"))
    assert first["tgt"] == ["sum", "one", ".", "sum", "two", "."]


def test_process_document():
    doc = RawDocument(id="x", article="A bc. C de.", highlights=("First .", "Second ."), where="here")
    assert process_document(doc) == {
        "id": "x",
        "src": [["a", "bc", ".", EOS], ["c", "de", ".", EOS]],
        "tgt": ["first", "."],
        "refs": [["first", "."], ["second", "."]],
        "surface": {"0": "A", "4": "C"},  # the article's own spelling where preprocessing changed it
        "non_running": {},  # what the article left out, by kind (prepare counts it, never writes it)
    }
    empty = RawDocument(id="y", article="", highlights=("h",), where="here")
    assert process_document(empty) == ("empty_article", "the article has no tokens")


# --------------------------------------------------------------------------- bad input
def test_no_usable_document_is_a_data_error_naming_the_path_and_output_is_untouched(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    write_lines(src / "train.jsonl", ['{"broken', {"id": "x", "article": "", "highlights": "h"}])
    out = tmp_path / "out"
    out.mkdir()
    (out / "train.jsonl").write_text("earlier run\n")
    message = rf"{src}: no usable document \(skipped: {{'bad_json': 1}}, dropped: {{'empty_article': 1}}\)"
    with pytest.raises(DataError, match=message):
        prepare(src, out, workers=1, progress=False)
    assert [p.name for p in out.iterdir()] == ["train.jsonl"]
    assert (out / "train.jsonl").read_text() == "earlier run\n"


def test_split_files_of_an_earlier_run_are_replaced_or_removed(tmp_path, caplog):
    out = tmp_path / "out"
    out.mkdir()
    for name in ("train.jsonl", "test.jsonl"):
        (out / name).write_text("earlier run\n")
    with caplog.at_level(logging.WARNING):
        prepare(tiny_train(tmp_path), out, workers=1, progress=False)
    assert sorted(p.name for p in out.iterdir()) == ["stats.json", "train.jsonl", "vocab.txt"]
    assert f"{out / 'test.jsonl'}: removed, left from an earlier run" in caplog.text


def test_missing_input_and_bad_arguments(tmp_path):
    with pytest.raises(DataError, match="nothing-here: input not found"):
        prepare(tmp_path / "nothing-here", tmp_path / "out", progress=False)
    with pytest.raises(ValueError, match="workers: expected an int >= 1, got 0"):
        prepare(tmp_path, tmp_path / "out", workers=0)
    with pytest.raises(DataError, match="no input paths given"):
        prepare([], tmp_path / "out")


def test_without_train_split_vocab_comes_from_all_splits(tmp_path, caplog):
    src = tmp_path / "in"
    src.mkdir()
    write_lines(src / "val.jsonl", [{"id": "v", "article": "Alpha.", "highlights": "h ."}])
    write_lines(src / "test.jsonl", [{"id": "t", "article": "Beta.", "highlights": "h ."}])
    with caplog.at_level(logging.WARNING):
        stats = prepare(src, tmp_path / "out", workers=1, progress=False)
    assert stats["vocab"]["built_from"] == ["val", "test"]
    assert {"alpha", "beta", "h"} <= set(Vocab.load(tmp_path / "out" / "vocab.txt").itos)
    assert "no train split among the inputs" in caplog.text


# ------------------------------------------------------------------------- read_prepared
@pytest.mark.parametrize(
    "line, message",
    [
        ('{"id": "a", "src": [["x"]]', r"p.jsonl:2: not valid JSON"),
        ('{"id": "a", "src": [["x"]], "tgt": []}', r"p.jsonl:2: missing field 'refs'"),
        ('{"id": 3, "src": [["x"]], "tgt": [], "refs": []}', r"p.jsonl:2: 'id' must be a string, got int"),
        (
            '{"id": "a", "src": [[]], "tgt": [], "refs": []}',
            r"p.jsonl:2: 'src'\[0\] must be a non-empty list",
        ),
        (
            '{"id": "a", "src": [["x"]], "tgt": [1], "refs": []}',
            r"p.jsonl:2: 'tgt' must be a list of strings",
        ),
        ("[1, 2]", r"p.jsonl:2: expected a JSON object, got list"),
    ],
)
def test_read_prepared_errors_name_file_and_line(tmp_path, line, message):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "ok", "src": [["x", "</s>"]], "tgt": ["y"], "refs": [["y"]]}\n' + line + "\n")
    reader = read_prepared(path)
    assert next(reader)["id"] == "ok"
    with pytest.raises(DataError, match=message):
        next(reader)


def test_read_prepared_missing_file(tmp_path):
    with pytest.raises(DataError, match="prepared split file not found"):
        list(read_prepared(tmp_path / "train.jsonl"))


# ---------------------------------------------------------------- real data, determinism
@pytest.fixture(scope="module")
def real_inputs(tmp_path_factory) -> Path:
    """About 50 real CNN/DM documents: 32 train, 10 val, 8 test (first lines of each file)."""
    need_real(CNNDM / "train.jsonl.gz")
    folder = tmp_path_factory.mktemp("cnndm50")
    for split, n in (("train", 32), ("val", 10), ("test", 8)):
        with gzip.open(CNNDM / f"{split}.jsonl.gz", "rb") as f:
            (folder / f"{split}.jsonl").write_bytes(b"".join(itertools.islice(f, n)))
    return folder


@pytest.mark.real_data
def test_real_documents_same_output_with_one_and_two_workers(real_inputs, tmp_path, capsys):
    one = prepare(real_inputs, tmp_path / "w1", workers=1, progress=False)
    two = prepare(real_inputs, tmp_path / "w2", workers=2, progress=True, chunk_size=3)
    assert "prepare train" in capsys.readouterr().err
    for name in ("train.jsonl", "val.jsonl", "test.jsonl", "vocab.txt", "stats.json"):
        assert (tmp_path / "w1" / name).read_bytes() == (tmp_path / "w2" / name).read_bytes(), name
    assert one == two
    assert {s: v["documents"] for s, v in one["splits"].items()} == {"train": 32, "val": 10, "test": 8}
    input_ids = [json.loads(line)["id"] for line in (real_inputs / "train.jsonl").read_text().splitlines()]
    docs = list(read_prepared(tmp_path / "w1" / "train.jsonl"))
    assert [d["id"] for d in docs] == input_ids
    for d in docs:
        assert all(s[-1] == EOS and EOS not in s[:-1] for s in d["src"])
        assert d["tgt"] == d["refs"][0] and EOS not in d["tgt"]
        assert all(t == t.lower() and not any(c.isdigit() for c in t) for s in d["src"] for t in s)


@pytest.mark.real_data
def test_hf_json_builder_gives_the_same_output(real_inputs, tmp_path, monkeypatch):
    pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    val = tmp_path / "val.jsonl"
    val.write_text(
        "".join((real_inputs / "val.jsonl").read_text(encoding="utf-8").splitlines(True)[:4]),
        encoding="utf-8",
    )
    direct = tmp_path / "direct"
    prepare(val, direct, workers=1, progress=False)
    via_hf = tmp_path / "hf"
    prepare(val, via_hf, hf="json", workers=1, progress=False, hf_kwargs={"cache_dir": str(tmp_path / "cache")})
    assert (direct / "val.jsonl").read_bytes() == (via_hf / "val.jsonl").read_bytes()


@needs_cnndm
def test_stories_with_url_lists(tmp_path):
    """Real story texts renamed to the hashes of made-up URLs, split by url lists."""
    real = sorted((CNNDM / "stories").glob("*.story"))[:3]
    stories, lists = tmp_path / "stories", tmp_path / "lists"
    stories.mkdir()
    lists.mkdir()
    urls = [f"http://example.com/story/{i}" for i in range(3)]
    for url, path in zip(urls, real, strict=True):
        (stories / f"{url_to_id(url)}.story").write_bytes(path.read_bytes())
    (lists / "all_train.txt").write_text(f"{urls[2]}\n{urls[0]}\n")
    (lists / "all_test.txt").write_text(f"{urls[1]}\n")
    stats = prepare(stories, tmp_path / "out", url_lists=lists, workers=1, progress=False)
    assert [d["id"] for d in read_prepared(tmp_path / "out" / "train.jsonl")] == [
        url_to_id(urls[2]),
        url_to_id(urls[0]),
    ]
    assert stats["splits"]["test"]["documents"] == 1
    assert stats["splits"]["train"]["sources"] == [f"2 .story files in {stories}"]


def test_hf_hub_path_with_a_fake_load_dataset(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    calls = []

    def fake_load_dataset(*args, **kwargs):
        calls.append(args)
        row = {"id": "h1", "article": "Hub article. Two sentences.", "highlights": "Hub summary ."}
        return {"train": [row], "validation": [dict(row, id="h2")], "test": [dict(row, id="h3")]}

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    stats = prepare(None, tmp_path / "out", hf="cnn_dailymail", workers=1, progress=False)
    assert calls == [("cnn_dailymail", "3.0.0")]
    assert {s: v["documents"] for s, v in stats["splits"].items()} == {"train": 1, "val": 1, "test": 1}
    assert next(read_prepared(tmp_path / "out" / "val.jsonl"))["id"] == "h2"
    with pytest.raises(DataError, match="give either input paths or hf, not both"):
        prepare(tmp_path, tmp_path / "out2", hf="cnn_dailymail")


def test_read_split_and_find_document_name_the_file(tmp_path):
    from c2fsum.data.prepare import find_document, read_split

    docs = [{"id": f"d{i}", "src": [["w", EOS]], "tgt": ["w"], "refs": [["w"]]} for i in range(3)]
    write_lines(tmp_path / "test.jsonl", docs)
    assert read_split(tmp_path, "test") == docs
    assert read_split(tmp_path, "test", limit=2) == docs[:2]
    assert find_document(tmp_path, "test", "d2") == docs[2]
    with pytest.raises(
        ValueError, match=r"test.jsonl: no document with id 'zz' \(3 documents read; first ids: d0, d1, d2\)"
    ):
        find_document(tmp_path, "test", "zz")
    with pytest.raises(FileNotFoundError, match=r"val.jsonl: no such split \(run `c2fsum prepare` first\)"):
        read_split(tmp_path, "val")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(ValueError, match="empty.jsonl: no documents"):
        read_split(tmp_path, "empty")


def test_paper_headings_and_non_running_text_are_counted(tmp_path):
    """Issue 36: headings become the record's sections, non-running text is left out of src and
    counted by kind in stats.json and in the printed table."""
    src = tmp_path / "in"
    src.mkdir()
    article = (
        "BACKGROUND\nlon protease in e. coli cells reduces growth  <cit> .\n\n"
        "RESULTS\ncell culture\na range of cell lines was tested.fig.  <dig> growth of the lines. bars: sd\n\n"
        "* includes forward and reverse reads\n\n"
        "additional file 1\nprimers used in this study.\n\nclick here for file\n\n"
        "acknowledgements\nwe thank the staff of the animal facility for their help.\n"
    )
    write_lines(src / "val.jsonl", [{"id": "p", "article": article, "highlights": "We test it ."}])
    stats = prepare(src, tmp_path / "out", workers=1, progress=False)
    [doc] = read_prepared(tmp_path / "out" / "val.jsonl")
    assert [" ".join(s) for s in doc["src"]] == [
        "lon protease in e. coli cells reduces growth < cit > . </s>",
        "a range of cell lines was tested . </s>",
    ]
    assert doc["sections"] == [["BACKGROUND", 0], ["RESULTS", 1], ["cell culture", 1]]
    assert "non_running" not in doc
    val = stats["splits"]["val"]
    assert val["sections"] == 3
    assert val["non_running"] == {
        "file_caption": 2, "footnote": 1, "licence": 0, "url": 0, "table": 0, "legend": 1,
        "acknowledgement": 1, "publication": 0, "competing_interests": 0, "contributions": 0,
    }  # fmt: skip
    assert "val articles: 3 headings kept as sections; left out of the sentences: file_caption=2, footnote=1" in (
        format_stats_table(stats)
    )
    # a record whose sections are not [heading, index] pairs is refused with file and line
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**doc, "sections": [["x"]]}) + "\n")
    with pytest.raises(DataError, match=r"bad.jsonl:1: 'sections' must be"):
        list(read_prepared(bad))
