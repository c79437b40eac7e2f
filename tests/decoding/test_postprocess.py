import torch

from c2fsum.decoding.postprocess import ids_to_words, split_sentences, words_to_text

ITOS = ["<pad>", "<unk>", "<s>", "</s>", "the", "mayor", "said", "."]


def test_extended_ids_become_the_documents_own_words():
    assert ids_to_words([4, 8, 6, 9], ITOS, ["hamilton", "zurich"]) == ["the", "hamilton", "said", "zurich"]


def test_replace_unk_takes_the_most_attended_source_word():
    attn = torch.zeros(2, 1, 3)
    attn[0, 0, 2] = 1.0  # step 0 looks at source word 2
    attn[1, 0, 0] = 1.0
    words = ids_to_words([1, 1], ITOS, [], attn=attn, src_words=["a", "b", "kigali"], replace_unk=True)
    assert words == ["kigali", "a"]
    assert ids_to_words([1], ITOS, [], attn=attn, src_words=["a"], replace_unk=False) == ["<unk>"]


def test_sentences_split_after_final_punctuation():
    words = ["the", "mayor", "said", ".", "he", "left", "!", "then"]
    assert split_sentences(words) == [["the", "mayor", "said", "."], ["he", "left", "!"], ["then"]]
    assert words_to_text(words) == "the mayor said .\nhe left !\nthen"
    assert split_sentences(["a", "</s>", "b"]) == [["a"], ["b"]]


def test_a_summary_stopped_mid_sentence_ends_at_its_last_sentence_end():
    from c2fsum.decoding.postprocess import to_last_sentence_end

    cut = ["the", "mayor", "said", ".", "he", "left", "-rrb-", "!", "''", "then", "he"]
    assert to_last_sentence_end(cut) == ["the", "mayor", "said", ".", "he", "left", "-rrb-", "!", "''"]
    assert to_last_sentence_end(["an", ".", "''", "-rrb-", "b"]) == ["an", ".", "''", "-rrb-"]
    # PTB's opening single quote starts the next sentence (PubMed vocabularies hold it)
    assert to_last_sentence_end(["an", ".", "`", "b"]) == ["an", "."]
    assert to_last_sentence_end(["no", "end", "at", "all"]) == ["no", "end", "at", "all"]  # nothing to keep else
    assert to_last_sentence_end([]) == []


def test_the_cut_of_the_tokens_is_the_cut_of_the_readable_text():
    """One rule for both: a period after a single letter (an initial, ``e . coli``) ends no
    sentence unless it is the last token; ``whole_sentences`` (the text) and
    ``to_last_sentence_end`` (the tokens) cut at the same place."""
    import itertools

    from c2fsum.decoding.postprocess import to_last_sentence_end
    from c2fsum.decoding.render import whole_sentences

    assert to_last_sentence_end(["it", "grew", ".", "in", "e", ".", "coli", "it"]) == ["it", "grew", "."]
    assert to_last_sentence_end(["it", "is", "a", "."]) == ["it", "is", "a", "."]
    alphabet = ["w", "on", ".", "!", "-rrb-", "''", "e"]
    for n in range(1, 6):
        for words in itertools.product(alphabet, repeat=n):
            cut = to_last_sentence_end(list(words))
            if cut != list(words) or words[-1] in (".", "!"):
                assert [t for t, _ in whole_sentences([(w, w) for w in words])] == cut, words
