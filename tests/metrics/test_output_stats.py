from c2fsum.metrics.output_stats import OutputStats, repeated_trigrams


def test_repeated_trigrams_golden():
    # a b c a b c: trigrams abc bca cab abc -> 1 repeat of 4
    assert repeated_trigrams(list("abcabc")) == (1, 4)
    assert repeated_trigrams(list("ab")) == (0, 0)
    assert repeated_trigrams(list("aaaa")) == (1, 2)


def test_output_stats_shares():
    s = OutputStats()
    s.add([5, 6, 7, 5, 6, 7], vocab_size=10)  # 1 of 4 trigrams repeated, no copies
    s.add([5, 12, 6], vocab_size=10)  # 1 copied word of 3
    out = s.summary()
    assert out["repeated_trigrams"] == 100 * 1 / 5
    assert out["docs_with_repeated_trigram"] == 50.0
    assert out["copied_oov"] == 100 * 1 / 9
