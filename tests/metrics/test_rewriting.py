"""Verbatim copies, spans and compression of rewritten sentences: hand-worked pairs."""

from c2fsum.metrics.rewriting import is_span, rewrite_measures

SRC = "the knockout mice lived longer than controls . </s>".split()


def test_spans():
    assert is_span("the knockout mice".split(), SRC)
    assert is_span("mice lived longer than controls .".split(), SRC)
    assert is_span(SRC[:-1], SRC)  # the whole sentence, </s> dropped
    assert not is_span("the mice lived longer".split(), SRC)  # a word left out inside
    assert not is_span([], SRC)
    assert not is_span([*SRC, "again"], SRC)


def test_measures_hand_worked():
    pairs = [
        (SRC, "the knockout mice lived longer than controls .".split()),  # verbatim, 8/8
        (SRC, "knockout mice lived longer".split()),  # span, 4/8
        (SRC, "knockout mice outlived controls .".split()),  # rewritten, 5/8
        ("a b </s>".split(), "a c b d".split()),  # rewritten, 4/2
    ]
    m = rewrite_measures(pairs)
    assert m.pairs == 4
    assert m.verbatim == 25.0 and m.span == 50.0 and m.rewritten == 50.0
    assert abs(m.compression_mean - (1 + 0.5 + 5 / 8 + 2) / 4) < 1e-12
    assert abs(m.compression_total - (8 + 4 + 5 + 4) / (8 + 8 + 8 + 2)) < 1e-12
    assert rewrite_measures([]).pairs == 0
