"""The command line as README.md and docs/ describe it is the parser's (api/cli.build_parser): every
`warlog ...` line they show parses, every subcommand is named there as `warlog NAME`, every option
is named there, and the defaults they give are the parser's. Nothing is executed."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from api.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXT = "\n".join(path.read_text(encoding="utf-8") for path in DOCS)
# Placeholders the docs write where the parser wants a whole number.
NUMBERS = {"SEQ": "3", "N": "2", "DAYS": "2"}
# The options every client command takes (README, "Server and token"; `warlog --help`).
CLIENT = {"--server", "--token", "--as", "--timeout", "--json"}


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    return build_parser()._subparsers._group_actions[0].choices


def _command_lines() -> list[tuple[str, str]]:
    """(file, line) for each `warlog ...` in a code block (a line, or each of `;`/`&&`-joined
    commands) or an inline code span, with a shell's `$ `, VAR=value prefixes, a trailing
    comment, `&` or redirection taken off."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        # a fence may be indented (a block inside a list item)
        for block in re.findall(r"^[ \t]*```[^\n]*\n(.*?)^[ \t]*```", text, re.S | re.M):
            for line in block.replace("\\\n", " ").splitlines():
                for part in re.split(r";|&&", line.strip().removeprefix("$ ")):
                    command = re.match(r"^\s*(?:[A-Z_]+=\S+\s+)*(?:\.venv/bin/)?(warlog\s.*)$", part)
                    if command:
                        found.append((path.name, command.group(1)))
        prose = re.sub(r"^[ \t]*```.*?^[ \t]*```", "", text, flags=re.S | re.M)
        for span in re.findall(r"`(?:[A-Z_]+=\S+\s+)*(warlog [^`]*)`", prose):
            found.append((path.name, " ".join(span.split())))
    return [(name, re.sub(r"\s*(&|2>&1)\s*$", "", re.sub(r"\s+#.*$", "", line)).strip()) for name, line in found]


def _variants(line: str) -> set[str]:
    """The line without its optional [...] parts, and with all of them (the first of a|b)."""
    bare = line
    while re.search(r"\[[^\[\]]*\]", bare):
        bare = re.sub(r"\[[^\[\]]*\]", "", bare)
    full = line
    while re.search(r"\[[^\[\]]*\]", full):
        full = re.sub(r"\[([^\[\]]*)\]", lambda m: m.group(1).split("|")[0], full)
    return {bare, full}


def _parses(argv: list[str]) -> str | None:
    """None when the parser takes ``argv``, else its error."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(argv)
    except SystemExit as stop:
        return err.getvalue().strip().splitlines()[-1] if stop.code else None
    return None


def test_the_docs_show_command_lines():
    lines = _command_lines()
    assert len(lines) > 100 and ("README.md", "warlog order GAME_ID advance") in lines
    # a block inside a list item, its fence indented (docs/operations.md, "Moving a store to PostgreSQL")
    assert any(name == "operations.md" and line.startswith("warlog copy-store --to ") for name, line in lines)


def test_every_command_line_in_the_docs_parses():
    wrong = []
    for name, line in _command_lines():
        if "<" in line:  # the form of an error message, `warlog <command>: <detail>`
            continue
        words = line.split()
        if len(words) == 2 and not words[1].startswith("-"):  # a command named in prose: `warlog verify`
            if words[1] not in _subcommands():
                wrong.append((name, line, "no such command"))
            continue
        for variant in _variants(line):
            variant = re.split(r"\s(?:\||>|2>)\s", variant)[0]
            argv = [NUMBERS.get(word, word) for word in shlex.split(variant)[1:]]
            # `…` elides what is left out: a positional the line does not spell, or a value
            if _parses([w for w in argv if w != "…"]) and _parses([w if w != "…" else "x" for w in argv]):
                wrong.append((name, variant, _parses([w for w in argv if w != "…"])))
    assert not wrong, wrong


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_command_is_named_in_the_docs(command):
    assert re.search(rf"warlog {re.escape(command)}(?![\w-])", TEXT), f"`warlog {command}` is in no doc"


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_option_is_named_in_the_docs(command):
    parser = _subcommands()[command]
    missing = [action.option_strings for action in parser._actions
               if action.option_strings and action.help != argparse.SUPPRESS
               and not isinstance(action, argparse._HelpAction)
               and not set(action.option_strings) & CLIENT
               and not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", TEXT) for o in action.option_strings)]
    assert not missing, f"warlog {command}: options named in no doc: {missing}"


def test_the_client_options_are_described_once():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for option in CLIENT:
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", readme), option
    assert "`--timeout SECONDS` bounds each request (default 30)" in readme
    timeouts = {action.default for parser in _subcommands().values() for action in parser._actions
                if "--timeout" in action.option_strings}
    assert timeouts == {30.0}


def _default(command: str, option: str):
    return next(a.default for a in _subcommands()[command]._actions if option in a.option_strings)


@pytest.mark.parametrize(("command", "option", "said"), [
    ("replay", "--wait", "`--wait SECONDS` (default 600)"),
    ("stats", "--wait", "`--wait SECONDS` (default 600)"),
    ("status", "--stalled-after", "`--stalled-after` seconds ago (default 60"),
    ("serve", "--host", "`--host` (default `WARLOG_HOST`, else 127.0.0.1)"),
    ("serve", "--port", "`--port` (default `PORT`,\nelse 8000)"),
    ("serve", "--workers", "`--workers` gunicorn processes (default `WEB_CONCURRENCY`, else 2)"),
])
def test_a_documented_default_is_the_parsers(monkeypatch, command, option, said):
    for name in ("WARLOG_HOST", "PORT", "WEB_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)
    assert said in TEXT, said
    value = re.search(r"(?:else |default )([\d.]+)\)?$", said.rstrip(")")).group(1)
    assert str(_default(command, option)).removesuffix(".0") == value


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_argument_says_what_it_is_in_its_help(command):
    """`warlog COMMAND --help` explains each argument: a bare `game_id`, `--seat` or `--accept` left a
    new user guessing (that the start of an id will do; whose take-back `--accept` answers)."""
    bare = [action.option_strings[-1] if action.option_strings else action.dest
            for action in _subcommands()[command]._actions
            if action.help in (None, "") and not isinstance(action, argparse._HelpAction)]
    assert bare == [], f"warlog {command}: no help for {bare}"
