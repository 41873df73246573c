"""A whole freeform game through the application service, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest

from domain import chain, dice
from domain.errors import GameNotFound, NotYourMove, RuleViolation
from domain.verify import verify_text


def test_a_whole_freeform_game_is_played_recorded_and_verified(app):
    created = app.create_game("freeform", options={"sides": ["Axis", "Allies"], "phases": ["Move", "Combat"],
                                                   "last_turn": 3})
    gid = created.game_id
    assert created.version == len(created.events) and created.events[0]["type"] == "GameCreated"
    sealed = created.events[-1]  # the creation commits the sealed dice last (docs/dice.md, "Sealed rolls")
    assert sealed["type"] == "DiceCommitted" and sealed["data"]["stream"] == "sealed"
    app.join(gid, "Axis", "heinz", client_seed="panzer")
    opened, committed = app.join(gid, "Allies", "monty", client_seed="desert").events[-2:]
    assert opened["type"] == "DiceEpochOpened" and committed["type"] == "DiceCommitted"
    assert opened["data"]["client_entropy"] == dice.client_entropy_v2([], {"Axis": "panzer", "Allies": "desert"})
    assert opened["data"]["commitment"] == created.events[1]["data"]["commitment"]

    n = 0
    for turn in range(1, 4):
        for side in ("Axis", "Allies"):
            n += 1
            r = app.submit_order(gid, side, f"t{turn}-{side}-fire",
                                 {"kind": "roll", "dice": "2d6", "purpose": f"{side} barrage turn {turn}",
                                  "units": ["1st Arty"], "target": {"compare": ">=", "value": 8}})
            rolled = r.events[-1]
            assert rolled["type"] == "DiceRolled" and rolled["data"]["epoch"] == turn - 1
            if rolled["data"]["outcome"] == "success":
                app.submit_order(gid, side, f"t{turn}-{side}-vp",
                                 {"kind": "vp", "side": side, "delta": 1, "reason": "barrage hit"})
        app.submit_order(gid, "Axis", f"t{turn}-phase", {"kind": "advance"})
        if turn < 3:
            closed = app.submit_order(gid, "Allies", f"t{turn}-turn", {"kind": "advance"})
            assert [e["type"] for e in closed.events] == [
                "OrderAccepted", "TurnAdvanced", "DiceEpochRevealed", "DiceEpochOpened", "DiceCommitted"]
    with pytest.raises(RuleViolation, match="FF 2: turn 3 is the last turn"):
        app.submit_order(gid, "Allies", "too-far", {"kind": "advance"})

    game = app.get_game(gid)
    vp = game.state["vp"]
    winner = max(vp, key=vp.get) if vp["Axis"] != vp["Allies"] else None
    end = app.submit_order(gid, "Axis", "end", {"kind": "end", "winner": winner, "level": "marginal",
                                                "reason": "turn 3 completed"})
    assert [e["type"] for e in end.events] == ["OrderAccepted", "GameEnded", "DiceEpochRevealed", "SealedDiceRevealed"]
    with pytest.raises(RuleViolation, match="FF 5"):
        app.submit_order(gid, "Allies", "late", {"kind": "note", "text": "one more"})

    report, lines = verify_text(app.export(gid))
    assert report.ok, report.summary()
    assert report.epochs_revealed == 3 and report.epochs_unrevealed == 0 and report.rolls_verified == n
    assert report.chain_head == end.chain_head == app.get_game(gid).chain_head
    assert [line["seq"] for line in lines] == list(range(1, end.version + 1))


def test_a_seat_acts_only_for_itself(app):
    gid = app.create_game("freeform", options={"sides": ["Blue", "Red"]}).game_id
    app.join(gid, "Blue", "a")
    with pytest.raises(RuleViolation, match="seats: the game starts when every seat has joined"):
        app.submit_order(gid, "Blue", "o1", {"kind": "note", "text": "early"})
    app.join(gid, "Red", "b")
    with pytest.raises(Exception, match="no seat 'Green'"):
        app.submit_order(gid, "Green", "o1", {"kind": "note", "text": "hi"})


def test_an_unknown_game_is_not_found(app):
    with pytest.raises(GameNotFound):
        app.get_game("00000000-0000-0000-0000-000000000000")
    with pytest.raises(GameNotFound):
        app.submit_order("not-a-uuid", "Blue", "o1", {"kind": "note", "text": "x"})


def test_the_result_of_an_order_is_its_recorded_lines_and_chain_head(app):
    gid = app.create_game("freeform").game_id
    app.join(gid, "A", "a")
    app.join(gid, "B", "b")
    r = app.submit_order(gid, "A", "o1", {"kind": "roll", "dice": "d20", "purpose": "saving throw"})
    assert r.events == app.lines(gid, after=r.version - 2)
    assert r.chain_head == r.events[-1]["hash"]
    assert json.loads(list(app.export(gid))[-1]) == r.events[-1]


def test_an_event_holding_a_value_json_cannot_write_is_refused_and_nothing_is_stored(sqlite_app):
    """An event is hashed with the canonical JSON encoder (domain/chain.py), which refuses a
    value JSON cannot write (here a plain Enum member): the event is not made, nothing is
    pending, and the store is left as it was."""
    import enum

    from domain.events import UnitMoved

    class Where(enum.Enum):
        HILL = "hill 112"

    gid = sqlite_app.create_game("freeform", options={"sides": ["Blue", "Red"]}).game_id
    game = sqlite_app.get_game(gid)
    version, head = game.version, game.chain_head
    with pytest.raises((TypeError, chain.Unhashable)):  # format 1's json, format 2's RFC 8785
        game.trigger_event(UnitMoved, unit="1st Arty", origin=None, destination=Where.HILL, rule=None)
    assert not game.pending_events
    stored = sqlite_app.get_game(gid)
    assert (stored.version, stored.chain_head) == (version, head)
