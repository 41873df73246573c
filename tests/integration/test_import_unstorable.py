"""``warlog import`` of a file whose chain verifies but whose line holds a value no reader can
take back (NaN, an infinity, a whole number beyond ±(2**53 − 1)), or whose line names a key twice
(read otherwise by another reader): refused, naming the line, and nothing is stored
(domain/storable.py, domain/verify.py)."""

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


def refused_here(tmp_path, text: list[str], game_id: str, check=None) -> IntegrityFailure:
    """Import ``text`` into a fresh store: the IntegrityFailure that refuses it, once it is seen
    that nothing of the game was stored."""
    other = Warlog(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "b")}), create_tables=True)
    try:
        with pytest.raises(IntegrityFailure) as refused:
            other.import_lines(text, check=check)
        with pytest.raises(GameNotFound):
            other.lines(game_id)
    finally:
        other.close()
    return refused.value


def imported_by_the_command(tmp_path, text: list[str]):
    """``warlog import`` of ``text`` written to a file, into a fresh, migrated store: the process."""
    out = tmp_path / "game.jsonl"
    out.write_text("\n".join(text) + "\n")
    assert warlog("migrate", data_dir=tmp_path / "c").returncode == 0
    return warlog("import", str(out), data_dir=tmp_path / "c")


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

    refused = refused_here(tmp_path, text, game_id)
    assert refused.seq == seq and "cannot be stored" in refused.message

    # The command says it too, naming the line.
    result = imported_by_the_command(tmp_path, text)
    assert result.returncode == 1 and f"line {seq}" in result.stderr and "cannot be stored" in result.stderr


def _line_of(lines: list[dict], type_: str) -> dict:
    return next(line for line in lines if line["type"] == type_)


@pytest.mark.parametrize("type_, field, value, says", [
    ("SeatJoined", "handle", ["blue"], "SeatJoined's handle is a list, not text"),
    ("OrderAccepted", "order", None, "OrderAccepted's order is null, not an object"),
    ("VPScored", "delta", "1", "VPScored's delta is text, not a whole number"),
], ids=["handle-list", "order-null", "delta-text"])
def test_import_refuses_a_field_not_of_its_events_type_naming_it(exported, tmp_path, type_, field, value, says):
    """A file whose chain verifies and whose rules fold, but whose field is not of the type its
    event declares (a handle that is a list), was stored: the projector then failed on every batch
    holding it (an SQL parameter of type list), so no game's views moved on, and the game's summary
    and the games list answered 500. Refused now, naming the line and the field."""
    game_id, lines = exported
    line = _line_of(lines, type_)
    line["data"][field] = value
    text = rechained(lines)
    assert verify_text(text)[0].ok  # the chain holds: only the type is wrong

    refused = refused_here(tmp_path, text, game_id)
    assert refused.seq == line["seq"] and says in refused.message, refused.message


@pytest.mark.parametrize("timestamp", ["yesterday", 5, "2026-11-29T06:52:07"], ids=["words", "number", "no-offset"])
def test_import_refuses_a_timestamp_that_is_not_an_iso_time_with_its_offset_without_a_traceback(
        exported, tmp_path, timestamp):
    """A line's timestamp that is not ISO 8601 made 'warlog import' end in a ValueError or
    TypeError traceback; one without its UTC offset was stored as a time no clock compares with."""
    _, lines = exported
    lines[2]["timestamp"] = timestamp
    result = imported_by_the_command(tmp_path, rechained(lines))
    assert result.returncode == 1 and "line 3" in result.stderr and "UTC offset" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("setup_field, value", [("phase", ["Turn"]), ("turn", {})], ids=["phase-list", "turn-object"])
def test_import_refuses_a_file_the_read_models_cannot_fold_naming_the_line(exported, tmp_path, setup_field, value):
    """README: 'warlog import' refuses a file that does not verify, naming the line. A file that
    verifies and that the aggregate folds, but whose set-up the readers cannot take (a phase that is
    a list), was stored, and the history of the game could not be shown (a 500 to its reads). The
    import now folds the read models and shows them as the reads do before it stores anything."""
    from projections.runner import check_foldable

    game_id, lines = exported
    lines[0]["data"]["setup"][setup_field] = value
    text = rechained(lines)
    assert verify_text(text)[0].ok

    refused = refused_here(tmp_path, text, game_id, check=check_foldable)
    assert refused.seq == 1 and "views" in refused.message, refused.message

    result = imported_by_the_command(tmp_path, text)
    assert result.returncode == 1 and "line 1" in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_import_refuses_a_ruleset_that_is_not_text_without_a_traceback(exported, tmp_path):
    """A GameCreated whose ruleset is an object made the event lookup fail (unhashable dict):
    'warlog import' ended in a TypeError traceback."""
    _, lines = exported
    lines[0]["data"]["ruleset"] = {"name": "freeform"}
    result = imported_by_the_command(tmp_path, rechained(lines))
    assert result.returncode == 1 and "line 1" in result.stderr and "ruleset is an object" in result.stderr, \
        result.stderr


def test_import_refuses_a_set_up_that_leaves_no_seat_to_move_naming_the_line(exported, tmp_path):
    """A file whose set-up names a side as an object ({"name": "Blue"}) verified, folded and was
    shown; but the dispatcher asks each game whose move it is for its turn mails, got the object
    and failed on every batch holding the game (unhashable dict), so no game's mails went out.
    Refused now: every line must leave seats of the game to move."""
    game_id, lines = exported
    lines[0]["data"]["setup"]["sides"][0] = {"name": "Blue"}
    text = rechained(lines)
    assert verify_text(text)[0].ok

    refused = refused_here(tmp_path, text, game_id)
    assert "to move, not seats of the game" in refused.message and refused.seq is not None, refused.message


def test_import_refuses_a_line_that_names_a_key_twice(exported, tmp_path):
    """json.loads keeps a repeated key's last value, which the hash covers; a reader keeping the
    first would see an order of another purpose than the one verified and stored (docs/dice.md, 6)."""
    game_id, lines = exported
    text = rechained(lines)
    text[4] = text[4].replace('"order":{', '"order":{"kind":"vp",', 1)  # o1's note, a VP order to a first-key reader
    assert text[4] != rechained(lines)[4]
    refused = refused_here(tmp_path, text, game_id)
    assert refused.seq == 5 and "the key 'kind' is written twice in one object" in refused.message, refused.message

    result = imported_by_the_command(tmp_path, text)
    assert result.returncode == 1 and "line 5" in result.stderr and "written twice" in result.stderr, result.stderr
