"""DecodeOptions: one typed value made once at the edge; the CLI, the Python API, the server and
evaluate take the same options by the same names."""

import argparse

import pytest

from c2fsum.cli.options import DECODE_FLAGS, add_decode_options, decode_overrides
from c2fsum.config import DecodeConfig
from c2fsum.data.lengths import FALLBACK_MIN_LEN
from c2fsum.decoding.options import DecodeOptions
from c2fsum.errors import InputError
from c2fsum.serving.schemas import SummarizeRequest


def test_from_config_resolves_an_unset_min_len_and_reads_whole_documents():
    o = DecodeOptions.from_config(DecodeConfig(beam=3, min_len=None, read_chunks=2))
    assert (o.beam, o.min_len, o.read_chunks, o.max_words) == (3, FALLBACK_MIN_LEN, 2, 0)
    assert DecodeOptions.from_config(DecodeConfig(min_len=0)).min_len == 0


def test_override_keeps_what_is_not_given_and_is_frozen():
    base = DecodeOptions(beam=4, max_len=40, min_len=9)
    o = base.override(beam=1, min_len=None, max_words=None, block_trigrams=False)
    assert (o.beam, o.min_len, o.max_len, o.max_words, o.block_trigrams) == (1, 9, 40, 0, False)
    assert base.beam == 4  # a new value; the model's stays as it was
    with pytest.raises(AttributeError):
        o.beam = 2  # type: ignore[misc]
    assert hash(o) == hash(base.override(beam=1))  # the server batches requests by equal options


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"beam": 0}, "beam: got 0, expected an integer >= 1"),
        ({"read_chunks": 0}, "read_chunks: got 0, expected an integer >= 1"),
        ({"max_words": -1}, "max_words: got -1, expected an integer >= 0"),
        ({"min_len": 41}, "min_len: got 41, above the maximum summary length 40 (the model config decode.max_len)"),
        ({"min_len": 9, "max_len": 5}, "min_len: got 9, above the maximum summary length 5 (max_len)"),
        ({"beams": 2}, "decoding option(s) ['beams']: unknown"),
    ],
)
def test_bad_options_are_refused_naming_the_field(given, message):
    with pytest.raises(InputError) as e:
        DecodeOptions(beam=4, max_len=40, min_len=9).override(**given)
    assert str(e.value).startswith(message)


def test_the_model_minimum_may_exceed_a_maximum_given_alone():
    assert DecodeOptions(max_len=40, min_len=9).override(max_len=6).min_len == 9  # the summary runs to 6


def test_the_cli_and_the_server_take_every_decoding_option():
    p = argparse.ArgumentParser()
    add_decode_options(p)
    assert decode_overrides(p.parse_args([])) == dict.fromkeys(DECODE_FLAGS)
    a = p.parse_args(
        "--beam 2 --no-block-trigrams --block-repeats --replace-unk --min-len 0 --max-len 9 --read-chunks 3 "
        "--read-budget 0.3 --max-words 0".split()
    )
    assert decode_overrides(a) == {
        "beam": 2,
        "block_trigrams": False,
        "block_repeats": True,
        "read_budget": 0.3,
        "replace_unk": True,
        "min_len": 0,
        "max_len": 9,
        "read_chunks": 3,
        "max_words": 0,
    }
    # the HTTP request names max_len / min_len max_length / min_length; every other option as the CLI does
    http = {"max_length" if f == "max_len" else "min_length" if f == "min_len" else f for f in DECODE_FLAGS}
    assert http <= set(SummarizeRequest.model_fields)
