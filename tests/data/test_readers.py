"""Readers: .story files, url lists, JSONL/CSV/Parquet tables, the Hugging Face path, bad input."""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import logging
from pathlib import Path

import pytest

from c2fsum.data.readers import (
    DataError,
    RawDocument,
    SkipLog,
    article_id,
    find_sources,
    find_url_lists,
    hf_sources,
    parse_story,
    read_csv,
    read_jsonl,
    read_parquet,
    read_story,
    split_of_name,
    url_to_id,
)
from shared_data import CNNDM

needs_cnndm = pytest.mark.real_data(CNNDM / "stories")

STORY = """(CNN) -- First paragraph.

Second paragraph without a period

@highlight

First highlight

@highlight

Second highlight.
"""


def write_jsonl(path: Path, rows: list, *, raw_lines: dict[int, bytes] | None = None) -> Path:
    """Rows as JSON lines; ``raw_lines`` puts given bytes at given 0-based line positions."""
    lines = [json.dumps(r).encode() for r in rows]
    for i, raw in sorted((raw_lines or {}).items()):
        lines.insert(i, raw)
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def record(i: int, **extra) -> dict:
    return {
        "id": f"doc{i}",
        "article": f"Article number {i}. It is short.",
        "highlights": f"Point {i} .\nMore .",
        **extra,
    }


# ------------------------------------------------------------------------------------- names
@pytest.mark.parametrize(
    "name, split",
    [
        ("train.jsonl", "train"),
        ("Train.JSONL.GZ", "train"),
        ("validation.parquet", "val"),
        ("valid.csv", "val"),
        ("val.jsonl.gz", "val"),
        ("test-00000-of-00001.parquet", "test"),
        ("train_sample.csv", "train"),
        ("cnn_dm_subset.csv", None),
        ("manifest.jsonl.gz", None),
        ("trainer.jsonl", None),
    ],
)
def test_split_of_name(name, split):
    assert split_of_name(name) == split


def test_ids():
    url = "http://web.archive.org/web/20150401100102id_/http://www.cnn.com/2015/04/01/a/index.html"
    assert url_to_id(url) == hashlib.sha1(url.encode()).hexdigest()
    assert article_id("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d"


# ----------------------------------------------------------------------------------- stories
def test_parse_story_follows_the_hugging_face_rules():
    article, highlights = parse_story(STORY)
    assert article == "(CNN) -- First paragraph. Second paragraph without a period ."
    assert highlights == ["First highlight .", "Second highlight."]


@needs_cnndm
def test_real_story_files_match_their_jsonl_records():
    records = {}
    for split in ("train", "test"):
        with gzip.open(CNNDM / f"{split}.jsonl.gz", "rt", encoding="utf-8") as f:
            records.update((d["id"], d) for d in map(json.loads, f))
    stories = sorted((CNNDM / "stories").glob("*.story"))
    assert len(stories) == 20
    for path in stories:
        doc = read_story(path, SkipLog())
        rec = records[doc.id]
        assert (doc.article, "\n".join(doc.highlights)) == (rec["article"], rec["highlights"]), path


def test_story_without_highlights_and_non_utf8_story_are_skipped_with_location(tmp_path, caplog):
    (tmp_path / "good.story").write_text(STORY, encoding="utf-8")
    (tmp_path / "nohl.story").write_text("Just an article.\n\nNo highlights.\n", encoding="utf-8")
    (tmp_path / "latin1.story").write_bytes(b"line one\nCaf\xe9 society\n@highlight\n\nx\n")
    skips = SkipLog("t")
    with caplog.at_level(logging.WARNING):
        docs = [read_story(p, skips) for p in sorted(tmp_path.glob("*.story"))]
    assert [d.id if d else None for d in docs] == ["good", None, None]
    assert skips.as_dict() == {"no_highlights": 1, "not_utf8": 1}
    assert f"{tmp_path / 'nohl.story'}: skipped (no_highlights)" in caplog.text
    assert f"{tmp_path / 'latin1.story'}:2: skipped (not_utf8)" in caplog.text


def _story_tree(tmp_path: Path, urls: dict[str, list[str]]) -> tuple[Path, Path]:
    """A stories folder with one story per URL (named by its hash) plus url list files."""
    stories, lists = tmp_path / "stories", tmp_path / "url_lists"
    stories.mkdir()
    lists.mkdir()
    for split, split_urls in urls.items():
        (lists / f"all_{split}.txt").write_text("".join(u + "\n" for u in split_urls), encoding="utf-8")
        for u in split_urls:
            if "missing" not in u:
                (stories / f"{url_to_id(u)}.story").write_text(STORY.replace("First", u), encoding="utf-8")
    return stories, lists


def test_url_lists_split_stories_in_list_order(tmp_path, caplog):
    urls = {
        "train": ["http://a/3", "http://a/1", "http://a/missing"],
        "val": ["http://a/2"],
        "test": ["http://a/4"],
    }
    stories, lists = _story_tree(tmp_path, urls)
    (stories / "0123456789abcdef0123456789abcdef01234567.story").write_text(STORY, encoding="utf-8")
    skips = SkipLog("inputs")
    with caplog.at_level(logging.WARNING):
        sources = find_sources(stories, url_lists=lists, skips=skips)
    assert list(sources) == ["train", "val", "test"]
    train = [d.id for s in sources["train"] for d in s.documents(SkipLog())]
    assert train == [url_to_id("http://a/3"), url_to_id("http://a/1")]
    assert [d.id for d in sources["val"][0].documents(SkipLog())] == [url_to_id("http://a/2")]
    assert skips.as_dict() == {"missing_story_train": 1, "not_in_url_lists": 1}
    assert "0123456789abcdef0123456789abcdef01234567.story: skipped (not_in_url_lists)" in caplog.text
    assert "all_train.txt: skipped (missing_story_train): 1 of its URLs have no .story file" in caplog.text


def test_find_url_lists_accepts_mapping_and_rejects_empty_folder(tmp_path):
    assert find_url_lists({"validation": tmp_path / "x.txt"}) == {"val": tmp_path / "x.txt"}
    with pytest.raises(DataError, match="no url list found"):
        find_url_lists(tmp_path)


def test_stories_without_url_lists_go_to_story_split(tmp_path):
    for name in ("b", "a"):
        (tmp_path / f"{name}.story").write_text(STORY, encoding="utf-8")
    assert [d.id for d in find_sources(tmp_path)["train"][0].documents(SkipLog())] == ["a", "b"]
    assert list(find_sources(tmp_path, story_split="test")) == ["test"]


# ------------------------------------------------------------------------------------ tables
def test_jsonl_bad_lines_are_skipped_and_named(tmp_path, caplog):
    path = write_jsonl(
        tmp_path / "train.jsonl.gz",
        [record(0), {"id": "x", "article": "no highlights column"}, record(1), ["a", "list"], record(2)],
        raw_lines={1: b'{"id": "broken", "article": ', 3: b'{"id": "caf\xe9"}'},
    )
    skips = SkipLog("train")
    with caplog.at_level(logging.WARNING):
        docs = list(read_jsonl(path, skips))
    assert [d.id for d in docs] == ["doc0", "doc1", "doc2"]
    assert skips.as_dict() == {"bad_json": 2, "missing_column": 1, "not_utf8": 1}
    assert f"{path}:2: skipped (bad_json)" in caplog.text
    assert f"{path}:3: skipped (missing_column): no 'highlights' field" in caplog.text
    assert f"{path}:4: skipped (not_utf8)" in caplog.text
    assert f"{path}:6: skipped (bad_json): expected a JSON object, got list" in caplog.text


def test_record_rules(tmp_path):
    rows = [
        {"article": "No id here.", "highlights": "A .\n\n B . "},
        {"id": 7, "article": None, "highlights": ["x", "y"]},
        {"id": "e", "article": "Text.", "highlights": ""},
        {"id": "f", "article": 3, "highlights": "h"},
    ]
    skips = SkipLog()
    docs = list(read_jsonl(write_jsonl(tmp_path / "test.jsonl", rows), skips))
    assert docs[0] == RawDocument(
        id=article_id("No id here."),
        article="No id here.",
        highlights=("A .", "B ."),
        where=f"{tmp_path / 'test.jsonl'}:1",
    )
    assert (docs[1].id, docs[1].article, docs[1].highlights) == ("7", "", ("x", "y"))
    assert len(docs) == 2
    assert skips.as_dict() == {"bad_value": 1, "no_highlights": 1}


def test_json_array_file(tmp_path):
    path = tmp_path / "val.json"
    path.write_text(json.dumps([record(0), record(1)]), encoding="utf-8")
    assert [d.id for d in read_jsonl(path, SkipLog())] == ["doc0", "doc1"]


def test_csv_with_multiline_fields_bom_and_bad_rows(tmp_path, caplog):
    path = tmp_path / "train.csv"
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        w = csv.writer(f)
        w.writerow(["", "article", "highlights", "id"])
        w.writerow([0, "First article.", "H one .\nH two .", "a"])
        w.writerow([1, 'Second, with "quotes"\nand a newline.', "H .", "b"])
        w.writerow([2, "too", "few"])
    with open(path, "ab") as f:
        f.write(b'3,"Caf\xe9 article.","H .",c\n4,"Last.","H .",d\n')
    skips = SkipLog()
    with caplog.at_level(logging.WARNING):
        docs = list(read_csv(path, skips))
    assert [(d.id, d.highlights) for d in docs] == [
        ("a", ("H one .", "H two .")),
        ("b", ("H .",)),
        ("d", ("H .",)),
    ]
    assert docs[1].article == 'Second, with "quotes"\nand a newline.'
    # line numbers count physical lines: rows "a" and "b" span two lines each, and are named so
    assert [d.where for d in docs] == [f"{path}:2-3", f"{path}:4-5", f"{path}:8"]
    assert skips.as_dict() == {"bad_csv": 1, "not_utf8": 1}
    assert f"{path}:6: skipped (bad_csv): 3 fields, header has 4" in caplog.text
    assert f"{path}:7: skipped (not_utf8)" in caplog.text


def test_csv_quote_left_open_names_every_line_it_swallowed(tmp_path, caplog):
    # hostile_campaign: the rows after an unbalanced quote became part of its field, and the
    # refusal named only the row's first line, so the records on the lines after it were lost unnamed
    path = tmp_path / "train.csv"
    path.write_bytes(b'id,article,highlights\na,"Open quote.,H .\nb,Caf\xe9.,H .\nc,Three.,H .\n')
    skips = SkipLog()
    with caplog.at_level(logging.WARNING):
        assert list(read_csv(path, skips)) == []
    assert f"{path}:2-4: skipped (not_utf8)" in caplog.text


def test_jsonl_too_deep_too_long_integers_and_bom_are_named_not_raised(tmp_path, caplog):
    # hostile_campaign: json.loads raised RecursionError (100,000 nested brackets) and ValueError
    # (an integer of 5,000 digits) out of prepare; a UTF-8 BOM made line 1 bad JSON
    path = write_jsonl(
        tmp_path / "train.jsonl",
        [record(0), record(1)],
        raw_lines={1: b"[" * 100_000 + b"]" * 100_000, 2: b'{"id": ' + b"7" * 5000 + b', "article": "x"}'},
    )
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    skips = SkipLog()
    with caplog.at_level(logging.WARNING):
        assert [d.id for d in read_jsonl(path, skips)] == ["doc0", "doc1"]
    assert skips.as_dict() == {"bad_json": 2}
    assert f"{path}:2: skipped (bad_json): nested too deeply" in caplog.text
    assert f"{path}:3: skipped (bad_json): Exceeds the limit (4300 digits)" in caplog.text
    array = tmp_path / "val.json"
    array.write_bytes(b"\xef\xbb\xbf" + b"[" * 100_000 + b"]" * 100_000)
    assert list(read_jsonl(array, skips)) == []
    assert f"{array}: skipped (unreadable_files): bad JSON: nested too deeply" in caplog.text
    array.write_bytes(b"\xef\xbb\xbf" + json.dumps([record(5)]).encode())
    assert [d.id for d in read_jsonl(array, skips)] == ["doc5"]


def test_damaged_gzip_and_parquet_stop_with_a_named_skip(tmp_path, caplog):
    # hostile_campaign: a cut gzip stream raised EOFError out of prepare; a damaged Parquet page
    # raised pyarrow's error mid-file
    from c2fsum.data.readers import read_table

    path = write_jsonl(tmp_path / "train.jsonl.gz", [record(i) for i in range(200)])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    skips = SkipLog()
    with caplog.at_level(logging.WARNING):
        docs = list(read_table(path, skips))
    assert 0 < len(docs) < 200
    assert skips.as_dict() == {"unreadable_files": 1}
    assert f"{path}: skipped (unreadable_files): cannot read on after {len(docs)} document(s) (EOFError" in caplog.text
    not_gz = tmp_path / "val.csv.gz"
    not_gz.write_bytes(b"article,highlights\nA.,H\n")
    assert list(read_table(not_gz, skips)) == []
    assert f"{not_gz}: skipped (unreadable_files): cannot read on after 0 document(s) (BadGzipFile" in caplog.text


def test_csv_missing_column_skips_the_file(tmp_path, caplog):
    path = tmp_path / "test.csv"
    path.write_text("id,text\n1,hello\n", encoding="utf-8")
    skips = SkipLog()
    with caplog.at_level(logging.WARNING):
        assert list(read_csv(path, skips)) == []
    assert skips.as_dict() == {"missing_column_files": 1}
    assert f"{path}:1: skipped (missing_column_files): no column ['article', 'highlights']" in caplog.text


def test_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "validation-00000-of-00001.parquet"
    pq.write_table(pa.table({"article": ["A one.", "A two.", None], "highlights": ["h1", "h2 .\nh3", "h"]}), path)
    skips = SkipLog()
    docs = list(read_parquet(path, skips, batch_size=2))
    assert [(d.id, d.highlights) for d in docs] == [
        (article_id("A one."), ("h1",)),
        (article_id("A two."), ("h2 .", "h3")),
        (article_id(""), ("h",)),
    ]
    assert docs[2].where == f"{path}:row 3"
    bad = tmp_path / "train.parquet"
    pq.write_table(pa.table({"text": ["x"]}), bad)
    assert list(read_parquet(bad, skips)) == []
    assert skips.as_dict() == {"missing_column_files": 1}


# ------------------------------------------------------------------------------- discovery
def test_folder_with_split_files_and_stories_reads_the_split_files(tmp_path, caplog):
    write_jsonl(tmp_path / "train.jsonl", [record(0)])
    write_jsonl(tmp_path / "validation.jsonl", [record(1)])
    write_jsonl(tmp_path / "manifest.jsonl", [{"id": 1}])
    (tmp_path / "stories").mkdir()
    (tmp_path / "stories" / "s.story").write_text(STORY, encoding="utf-8")
    with caplog.at_level(logging.INFO):
        sources = find_sources(tmp_path)
    assert {k: [s.paths[0].name for s in v] for k, v in sources.items()} == {
        "train": ["train.jsonl"],
        "val": ["validation.jsonl"],
    }
    assert "1 .story files found there too are NOT read" in caplog.text
    assert "manifest.jsonl: file name names no split" in caplog.text


def test_nested_hf_style_folder(tmp_path):
    (tmp_path / "data").mkdir()
    write_jsonl(tmp_path / "data" / "test-00000-of-00001.jsonl", [record(0)])
    assert list(find_sources(tmp_path)) == ["test"]


def test_discovery_errors_name_the_path(tmp_path):
    with pytest.raises(DataError, match=f"{tmp_path / 'nope'}: input not found"):
        find_sources(tmp_path / "nope")
    with pytest.raises(DataError, match=f"{tmp_path}: no .story files and no split files"):
        find_sources(tmp_path)
    odd = write_jsonl(tmp_path / "cnn_dm_subset.jsonl", [record(0)])
    with pytest.raises(DataError, match="cnn_dm_subset.jsonl: cannot tell the split from the file name"):
        find_sources(odd)
    txt = tmp_path / "train.txt"
    txt.write_text("x")
    with pytest.raises(DataError, match="train.txt: unsupported input"):
        find_sources(txt)


# ---------------------------------------------------------------------------- Hugging Face
class _FakeDatasetDict(dict):
    pass


def test_hf_path_with_a_fake_load_dataset(monkeypatch):
    datasets = pytest.importorskip("datasets")
    calls = []

    def fake_load_dataset(*args, **kwargs):
        calls.append((args, kwargs))
        return _FakeDatasetDict(train=[record(0), {"article": "x"}], validation=[record(1)], test=[record(2)])

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    sources = hf_sources("cnn_dailymail")
    assert calls == [(("cnn_dailymail", "3.0.0"), {})]
    assert list(sources) == ["train", "val", "test"]
    skips = SkipLog()
    assert [d.id for d in sources["train"][0].documents(skips)] == ["doc0"]
    assert skips.as_dict() == {"missing_column": 1}
    assert sources["val"][0].describe() == "hf:cnn_dailymail[validation]"


def test_hf_json_builder_on_local_files(tmp_path, monkeypatch):
    pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    train = write_jsonl(tmp_path / "train.jsonl", [record(0), record(1)])
    sources = hf_sources("json", data_files={"train": [train]}, cache_dir=str(tmp_path / "cache"))
    assert [d.id for d in sources["train"][0].documents(SkipLog())] == ["doc0", "doc1"]


def test_hf_failure_is_a_data_error(tmp_path):
    pytest.importorskip("datasets")
    with pytest.raises(DataError, match="--hf json: load_dataset failed"):
        hf_sources("json", data_files={"train": [tmp_path / "absent.jsonl"]}, cache_dir=str(tmp_path / "c"))
