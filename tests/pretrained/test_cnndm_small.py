"""The shipped model cnndm-small: loads by name from the package, and decodes as it did when shipped.

Golden outputs were written by the committed weights (``src/c2fsum/pretrained/cnndm-small``);
a change to tokenization, the model code or beam search that changes them fails here.
"""

from __future__ import annotations

import pytest

import c2fsum
from c2fsum.cli.main import main
from c2fsum.pretrained import registry

ARTICLE = (
    "(CNN) -- The U.S. space agency said on Monday it will send a new rover to Mars in 2030, two years "
    "later than planned, because of budget cuts. The rover will look for signs of ancient life. NASA "
    "officials said the delay would cost an extra $300 million."
)
GOLDEN = (
    "-lrb- cnn -rrb- -- the u.s. space agency said on monday it will send a new rover to mars in #### , "
    "two years later than planned , because of budget cuts ."
)
TEXT = (  # the same summary as a reader gets it (Summary.text, the CLI): c2fsum.decoding.render; the
    # agency's dateline that opens it is left out
    "The U.S. space agency said on Monday it will send a new rover to Mars in 2030, two years later "
    "than planned, because of budget cuts."
)


@pytest.fixture(scope="module")
def model():
    return c2fsum.load("cnndm-small")


def test_it_loads_by_name_from_the_package(model):
    assert model.path == registry.PRETRAINED_DIR / "cnndm-small"
    assert model.config.decode.min_len == 9  # lengths.json travelled with the export


def test_golden_summary_through_the_api_and_the_cli(model, tmp_path, capsys):
    out = model.summarize([ARTICLE], max_words=400)[0]
    assert " ".join(out.tokens) == GOLDEN
    assert out.text == TEXT
    doc = tmp_path / "article.txt"
    doc.write_text(ARTICLE, encoding="utf-8")
    assert main(["-q", "summarize", "--model", "cnndm-small", "--max-words", "400", str(doc)]) == 0
    assert capsys.readouterr().out.strip() == TEXT


@pytest.mark.real_data
def test_real_test_articles_get_readable_summaries(model):
    from shared_data import read_raw

    docs = read_raw("test", 12, real=True)
    outs = model.summarize([d["article"] for d in docs], max_words=400)
    for d, o in zip(docs, outs, strict=True):
        words = o.tokens
        assert 9 <= len(words) <= 40, (d["id"], o.text)
        assert "<unk>" not in o.text and "#" not in o.text and "-lrb-" not in o.text, (d["id"], o.text)
        assert next(c for c in o.text if c.isalpha()).isupper() and o.text[-1] in ".!?\u201d)", (d["id"], o.text)
        trigrams = [tuple(words[i : i + 3]) for i in range(len(words) - 2)]
        assert len(trigrams) == len(set(trigrams)), (d["id"], o.text)
