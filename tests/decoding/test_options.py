"""DecodeOptions: one typed value made once at the edge; the CLI, the Python API, the server and
evaluate take the same options by the same names."""

import argparse
from dataclasses import fields

import pytest
from pydantic import ValidationError

from c2fsum.cli.options import DECODE_FLAGS, add_decode_options, decode_overrides
from c2fsum.config import Config, ConfigError, DecodeConfig, decode_fields, load_config
from c2fsum.data.lengths import FALLBACK_MIN_LEN, default_min_len
from c2fsum.decoding.options import DecodeOptions
from c2fsum.errors import InputError
from c2fsum.serving.schemas import DecodeDefaults, SummarizeRequest


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
        "--read-budget 0.3 --max-words 0 --length-norm 0.5 --batch-size 4".split()
    )
    given = {
        "beam": 2,
        "block_trigrams": False,
        "block_repeats": True,
        "read_budget": 0.3,
        "replace_unk": True,
        "min_len": 0,
        "max_len": 9,
        "read_chunks": 3,
        "max_words": 0,
        "length_norm": 0.5,
        "batch_size": 4,
    }
    assert decode_overrides(a) == {**dict.fromkeys(DECODE_FLAGS), **given}
    http = SummarizeRequest.model_validate({"text": "x", **decode_overrides(a)})
    assert http.options() == decode_overrides(a)  # the HTTP fields are named as the flags


def test_every_declared_option_is_a_config_key_a_flag_an_http_field_and_checked_alike():
    """Adding an option is one line in config.DecodeConfig: it is then a config key, a flag of
    every decoding command, a field of the HTTP request and of /health's defaults, an option of a
    call, and recorded in metrics.json (tests/decoding/test_min_len_default.py), with the same
    bounds everywhere."""
    declared = decode_fields()
    assert list(declared) == [f.name for f in fields(DecodeConfig)] == list(DECODE_FLAGS)
    assert set(declared) == set(Config().to_dict()["decode"]) == set(DecodeOptions().to_dict())
    assert set(SummarizeRequest.model_fields) == {"text", *declared}
    assert set(DecodeDefaults.model_fields) == set(declared)
    for command in ("summarize", "evaluate"):
        flags = {o for action in _subparser(command)._actions for o in action.option_strings}
        assert {"--" + name.replace("_", "-") for name in declared} <= flags, command
    for name, (kind, f) in declared.items():
        assert f.metadata["help"], name
        if kind is bool:
            continue
        low = f.metadata["ge"] if f.metadata["ge"] is not None else f.metadata["gt"]
        if low is None:
            continue
        bad = low - 1 if f.metadata["ge"] is not None else low  # just out of bounds
        with pytest.raises(InputError, match=f"^{name}: got "):
            DecodeOptions(**{name: bad})
        with pytest.raises(ConfigError, match=f"^decode.{name}: got "):
            load_config(None, [f"decode.{name}={bad}"])
        with pytest.raises(ValidationError):
            SummarizeRequest.model_validate({"text": "x", name: bad})
        with pytest.raises(SystemExit):
            _subparser("summarize").parse_args(["--model", "m", f"--{name.replace('_', '-')}", str(bad)])


def test_old_http_names_are_still_accepted():
    old = SummarizeRequest.model_validate({"text": "x", "max_length": 9, "min_length": 2}).options()
    assert (old["max_len"], old["min_len"]) == (9, 2)
    with pytest.raises(ValidationError, match="max_length"):  # both spellings at once: one is extra
        SummarizeRequest.model_validate({"text": "x", "max_len": 9, "max_length": 9})


def test_an_unset_min_len_is_chosen_in_one_place():
    assert DecodeOptions().min_len == DecodeOptions(min_len=None).min_len == default_min_len(None)
    assert default_min_len({"min_len": 17}) == 17


def _subparser(command: str) -> argparse.ArgumentParser:
    from c2fsum.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]
