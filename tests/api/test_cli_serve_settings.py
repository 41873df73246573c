"""`warlog serve`'s settings (docs/configuration.md): WARLOG_HOST, PORT and WEB_CONCURRENCY give its
--host, --port and --workers; empty is unset, and a malformed one is an error of `warlog serve`
only, not of every other command (the parser is built for each)."""

from __future__ import annotations

import pytest

from api.cli import build_parser, main


@pytest.mark.parametrize("name", ["WARLOG_HOST", "PORT", "WEB_CONCURRENCY"])
def test_an_empty_setting_is_the_documented_default(monkeypatch, name):
    monkeypatch.setenv(name, " ")
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.workers) == ("127.0.0.1", 8000, 2)


def test_the_settings_give_serves_options(monkeypatch):
    monkeypatch.setenv("WARLOG_HOST", "0.0.0.0")
    monkeypatch.setenv("PORT", "9001")
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.workers) == ("0.0.0.0", 9001, 3)


@pytest.mark.parametrize("name", ["PORT", "WEB_CONCURRENCY"])
def test_a_malformed_number_stops_serve_only_as_a_usage_error(monkeypatch, capsys, name):
    monkeypatch.setenv(name, "eighty")
    assert build_parser().parse_args(["verify", "game.jsonl"]).file == "game.jsonl"
    with pytest.raises(SystemExit) as stopped:
        main(["serve"])
    assert stopped.value.code == 2 and "invalid int value: 'eighty'" in capsys.readouterr().err
