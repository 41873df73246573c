"""``warlog import`` of a file whose chain verifies but whose line holds a value no reader can
take back (NaN, an infinity, a whole number beyond ±(2**53 − 1)): refused, naming the line, and
nothing is stored (domain/storable.py)."""

from __future__ import annotations

import json

import pytest

from domain import chain
from domain import game as game_module
from domain.errors import GameNotFound, IntegrityFailure
from domain.service import Warlog
from domain.storage import config_from_env
from domain.verify import verify_text
from tests.conftest import new_freeform_game
from tests.integration.test_cli import warlog


def rechained(lines: list[dict]) -> list[str]:
    """The lines with their chain made again, as a forger (or an old server) would write them."""
    prev, out = chain.GENESIS, []
    for line in lines:
        line = {**line, "prev_hash": prev}
        line["hash"] = prev = chain.line_hash(line, 1)
        out.append(json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    return out


@pytest.fixture
def exported(tmp_path, monkeypatch):
    """A format-1 game's export: RFC 8785 (format 2) has no encoding at all for these values."""
    monkeypatch.setattr(game_module, "FORMAT", 1)
    app = Warlog(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "a")}), create_tables=True)
    game_id = new_freeform_game(app)
    app.submit_order(game_id, "Blue", "o1", {"kind": "note", "text": "x", "fields": {"range": 1}})
    app.submit_order(game_id, "Blue", "o2", {"kind": "vp", "side": "Blue", "delta": 1, "reason": "x"})
    lines = [json.loads(text) for text in app.export(game_id)]
    app.close()
    return game_id, lines


@pytest.mark.parametrize("seq, path, value", [
    (5, ("order", "fields", "range"), float("nan")),
    (5, ("order", "fields", "range"), float("-inf")),
    (7, ("delta",), 10**400),
    (7, ("total",), 2**63),
], ids=["NaN", "-Infinity", "10**400", "2**63"])
def test_import_refuses_a_line_holding_an_unstorable_value_naming_it(exported, tmp_path, seq, path, value):
    game_id, lines = exported
    line = lines[seq - 1]
    assert line["type"] == ("OrderAccepted" if path[0] == "order" else "VPScored")
    holder = line["data"]
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    text = rechained(lines)
    report, _ = verify_text(text)
    assert report.ok  # the chain holds: only the value is wrong

    other = Warlog(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "b")}), create_tables=True)
    try:
        with pytest.raises(IntegrityFailure) as refused:
            other.import_lines(text)
        assert refused.value.seq == seq and "cannot be stored" in refused.value.message
        with pytest.raises(GameNotFound):
            other.lines(game_id)
    finally:
        other.close()

    # The command says it too, naming the line.
    out = tmp_path / "game.jsonl"
    out.write_text("\n".join(text) + "\n")
    assert warlog("migrate", data_dir=tmp_path / "c").returncode == 0
    result = warlog("import", str(out), data_dir=tmp_path / "c")
    assert result.returncode == 1 and f"line {seq}" in result.stderr and "cannot be stored" in result.stderr
