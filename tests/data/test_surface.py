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
