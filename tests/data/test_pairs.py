"""Sentence pairs for the rewriter: hand-made documents -> pair records, the threshold, the surface
spellings renumbered, the files `c2fsum pairs` writes (read back by the prepared-data reader), and a
bad line skipped with its file and line while the rest goes on."""

import json
from pathlib import Path

import pytest

from c2fsum.cli.main import main
from c2fsum.data.pairs import document_pairs, pairs, sentence_surface
from c2fsum.data.prepare import read_prepared
from c2fsum.errors import InputError

DOC = {
    "id": "p1",
    "src": [
        "background : the gene is expressed in the liver . </s>".split(),
        "we knocked out the gene in ### mice . </s>".split(),
        "knockout mice lived longer than controls . </s>".split(),
        "the funding came from a grant . </s>".split(),
    ],
    "tgt": "knockout mice lived longer . we knocked the gene out . funding is nice .".split(),
    "refs": [
        "knockout mice lived longer .".split(),  # sentence 2, recall 4/4
        "we knocked the gene out .".split(),  # sentence 1, recall 4/5 ("we knocked the gene")
        "zebrafish swim .".split(),  # shares no word: no pair
        "a grant paid .".split(),  # sentence 3: "a grant" 2 of 3
    ],
    # flat indices, </s> counted: sentence 0 is tokens 0-10, sentence 1 11-20, sentence 2 from 21
    "surface": {"2": "The", "11": "We", "17": "200", "21": "Knockout"},
}


def test_pairs_of_a_hand_made_document():
    kept, recalls = document_pairs(DOC, min_recall=0.5)
    assert recalls == [1.0, 4 / 5, 0.0, 2 / 3]
    assert [r["id"] for r in kept] == ["p1#0", "p1#1", "p1#3"]
    first = kept[0]
    assert first["src"] == [DOC["src"][2]]
    assert first["tgt"] == DOC["refs"][0] and first["refs"] == [DOC["refs"][0]]
    assert first["pair"] == {"doc": "p1", "source": 2, "target": 0, "recall": 1.0}
    # sentence 2 starts at flat index 21: "Knockout" is its token 0
    assert first["surface"] == {"0": "Knockout"}
    second = kept[1]
    assert second["src"] == [DOC["src"][1]]
    assert second["surface"] == {"0": "We", "6": "200"}
    assert second["pair"]["recall"] == 0.8


def test_threshold_keeps_only_pairs_at_or_above_it():
    kept, _ = document_pairs(DOC, min_recall=0.8)
    assert [r["id"] for r in kept] == ["p1#0", "p1#1"]
    kept, _ = document_pairs(DOC, min_recall=1.0)
    assert [r["id"] for r in kept] == ["p1#0"]
    kept, _ = document_pairs(DOC, min_recall=0.0)  # the unaligned sentence never makes a pair
    assert [r["id"] for r in kept] == ["p1#0", "p1#1", "p1#3"]


def test_sentence_surface_renumbers_from_the_sentence_start():
    sents = [["a", "</s>"], ["b", "c", "</s>"], ["d", "</s>"]]
    surface = {"0": "A", "2": "B", "4": "</S>", "5": "D"}
    assert sentence_surface(surface, sents, 0) == {"0": "A"}
    assert sentence_surface(surface, sents, 1) == {"0": "B", "2": "</S>"}
    assert sentence_surface(surface, sents, 2) == {"0": "D"}


def write_prepared(folder, docs_by_split, bad_line=None):
    folder.mkdir()
    for split, docs in docs_by_split.items():
        lines = [json.dumps(d) for d in docs]
        if bad_line is not None and split == "val":
            lines.insert(1, bad_line)
        (folder / f"{split}.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (folder / "vocab.txt").write_text("<pad>\t0\n<unk>\t0\n<s>\t0\n</s>\t0\nthe\t9\n", encoding="utf-8")


def test_pairs_folder_is_a_prepared_folder_and_a_bad_line_is_skipped(tmp_path, caplog):
    other = dict(DOC, id="p2", refs=[DOC["refs"][1]], surface={})
    write_prepared(tmp_path / "prep", {"train": [DOC, other], "val": [DOC, other]}, bad_line='{"id": "x"}')
    stats = pairs(tmp_path / "prep", tmp_path / "out", min_recall=0.7, progress=False)
    out = tmp_path / "out"
    train = list(read_prepared(out / "train.jsonl"))
    assert [r["id"] for r in train] == ["p1#0", "p1#1", "p2#0"]
    assert [r["id"] for r in read_prepared(out / "val.jsonl")] == ["p1#0", "p1#1", "p2#0"]
    assert (out / "vocab.txt").read_text() == (tmp_path / "prep" / "vocab.txt").read_text()
    s = stats["splits"]["train"]
    assert (s["documents"], s["abstract_sentences"], s["pairs"], s["unaligned"]) == (2, 5, 3, 1)
    # recalls 1.0, 0.8, 0, 2/3 and 0.8: bins 10 (the last holds 1.0), 8, 0, 6, 8
    assert s["recall_histogram"] == [1, 0, 0, 0, 0, 0, 1, 0, 2, 1]
    assert s["kept_recall_histogram"] == [0, 0, 0, 0, 0, 0, 0, 0, 2, 1]
    assert stats["splits"]["val"]["skipped"] == {"bad_record": 1}
    assert "val.jsonl:2: skipped (bad_record)" in caplog.text
    assert json.loads((out / "stats.json").read_text())["min_recall"] == 0.7


def test_the_two_paths_agree_one_worker_and_two(tmp_path):
    docs = [dict(DOC, id=f"d{i}", refs=DOC["refs"][i % 4 :] or DOC["refs"]) for i in range(9)]
    write_prepared(tmp_path / "prep", {"train": docs})
    pairs(tmp_path / "prep", tmp_path / "one", min_recall=0.5, progress=False, workers=1, chunk_size=2)
    pairs(tmp_path / "prep", tmp_path / "two", min_recall=0.5, progress=False, workers=2, chunk_size=2)
    assert (tmp_path / "one" / "train.jsonl").read_text() == (tmp_path / "two" / "train.jsonl").read_text()


def test_bad_arguments_name_the_field(tmp_path):
    write_prepared(tmp_path / "prep", {"train": [DOC]})
    with pytest.raises(InputError, match="min_recall"):
        pairs(tmp_path / "prep", tmp_path / "out", min_recall=1.5)
    with pytest.raises(InputError, match="same directory"):
        pairs(tmp_path / "prep", tmp_path / "prep", min_recall=0.5)


def test_cli_end_to_end_on_the_test_corpus(tmp_path, capsys):
    corpus = str(Path(__file__).parent / "corpus")
    assert main(["-q", "prepare", "--input", corpus, "--output", str(tmp_path / "prep"), "--workers", "1"]) == 0
    assert (
        main(["-q", "pairs", "--data", str(tmp_path / "prep"), "--out", str(tmp_path / "pairs"), "--workers", "1"]) == 0
    )
    printed = capsys.readouterr().out
    assert "recall quantiles" in printed and "pairs written to" in printed
    records = list(read_prepared(tmp_path / "pairs" / "train.jsonl"))
    assert records and all(len(r["src"]) == 1 and r["src"][0][-1] == "</s>" for r in records)
    assert all(r["pair"]["recall"] >= 0.5 for r in records)
