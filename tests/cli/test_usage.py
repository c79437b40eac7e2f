"""The usage text at the top of ``cli/main.py`` names every flag of every command, in that
command's lines (a flag added to a parser and not to the overview fails here)."""

from __future__ import annotations

import argparse
import re

import pytest

from c2fsum.cli import main as cli_main
from c2fsum.config import decode_fields


def _usage_blocks() -> dict[str, str]:
    """Each command's lines of the usage text (``c2fsum NAME ...`` and the indented lines after it)."""
    blocks: dict[str, str] = {}
    name = None
    for line in (cli_main.__doc__ or "").splitlines():
        if line.startswith("c2fsum "):
            name = line.split()[1]
            blocks[name] = blocks.get(name, "") + " " + line
        elif name is not None and line.startswith(" "):
            blocks[name] += " " + line
        else:
            name = None
    return blocks


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    """The long flags of ``parser`` and of its subcommands (``--no-x`` of a ``--[no-]x`` pair as ``--x``)."""
    out = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= _flags(sub)
        out |= {o for o in action.option_strings if o.startswith("--") and o != "--help" and not o.startswith("--no-")}
    return out


def _named(flag: str, text: str) -> bool:
    return re.search(rf"(--|--\[no-\]){re.escape(flag[2:])}(?![\w-])", text) is not None


def test_every_flag_of_every_command_is_in_the_usage_text():
    """The decoding flags, one per field of config.DecodeConfig, are named as DECODING (they are
    made from the declarations: adding an option changes no usage line)."""
    blocks = _usage_blocks()
    assert "config.DecodeConfig" in blocks["evaluate"].split("DECODING:", 1)[1]
    decode_flags = {"--" + name.replace("_", "-") for name in decode_fields()}
    commands = next(a for a in cli_main.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(commands.choices) == set(blocks)
    missing = []
    for name, parser in commands.choices.items():
        flags = _flags(parser)
        if "[DECODING]" in blocks[name]:
            assert decode_flags <= flags, name
            flags -= decode_flags
        missing += [f"{name} {flag}" for flag in sorted(flags) if not _named(flag, blocks[name])]
    assert not missing, missing


def test_every_command_says_what_it_does_and_runs_a_function():
    """Each parser is made from its command's declaration (cli/options.Command): ``c2fsum NAME --help``
    opens with a description (the help line when the command has none of its own), and every leaf
    command, plot's figures included, runs its own function."""
    from c2fsum.cli.options import Command

    def leaves(parser: argparse.ArgumentParser, path: str):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield path, parser
        for action in subs:
            for name, sub in action.choices.items():
                assert sub.description, f"{path} {name}"
                yield from leaves(sub, f"{path} {name}")

    found = dict(leaves(cli_main.build_parser(), "c2fsum"))
    assert {"c2fsum rouge", "c2fsum plot attention", "c2fsum plot reading"} <= set(found)
    for path, parser in found.items():
        func = parser.get_default("func")
        assert callable(func) and func.__name__.startswith("cmd_"), path
    assert cli_main.build_parser().parse_args(["table", "m.json"]).func.__module__ == "c2fsum.cli.table"
    with pytest.raises(ValueError, match="command x: expected either run or subcommands"):
        Command("x", help="h")
