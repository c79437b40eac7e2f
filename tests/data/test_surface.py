def test_comparable_is_the_per_character_rule_for_every_code_point():
    """``_comparable`` (one ``str.translate``) against its rule written per character: every code
    point of the basic plane (surrogates aside) and a few that change length when lowercased."""
    from c2fsum.data.surface import _QUOTES, _comparable

    def per_character(text: str) -> str:
        out = []
        for ch in text.translate(_QUOTES):
            low = ch.lower()
            out.append("#" if ch.isdigit() else low if len(low) == 1 else ch)
        return "".join(out)

    every = "".join(chr(i) for i in range(0x10000) if not 0xD800 <= i < 0xE000)
    for text in (every, "İSTANBUL ẞ ß Σς ﬁ ½ ² ٣ Ⅻ ‘q’ ǅ", "Tol2 in 30 cells"):
        assert _comparable(text) == per_character(text)
        assert len(_comparable(text)) == len(text)


def test_surface_cells_of_a_fixed_grid_are_those_of_the_numbered_layout():
    """The fixed grid's fast path (cell c is token c) against the general path that numbers every
    token and lays the numbers out with ``make_grid``: the same cells for a cut and an uncut grid."""
    from c2fsum.data.grid import PAD, make_grid
    from c2fsum.data.surface import surface_cells, surface_forms
    from c2fsum.data.tokenize import preprocess_article

    text = "Sofia Vergara paid $1,500 in 2015. The FBI said NO. " * 30 + "Then 3 more."
    sents = preprocess_article(text)
    surface = surface_forms(text, sents)
    flat = [w for s in sents for w in s]
    for chunks, chunk_len, max_words in ((0, 40, 0), (3, 7, 0), (0, 5, 33), (2, 40, 50)):
        numbered, k = [], 0
        for s in sents:
            numbered.append([str(k + j) for j in range(len(s))])
            k += len(s)
        grid = make_grid(numbered, chunks, chunk_len, max_words=max_words)
        expected = [PAD if c == PAD else surface.get(int(c), flat[int(c)]) for c in grid.words]
        got = surface_cells(sents, surface, chunks=chunks, chunk_len=chunk_len, max_words=max_words)
        assert got == expected
        assert "Vergara" in got and "1,500" in got[: len(got)]
