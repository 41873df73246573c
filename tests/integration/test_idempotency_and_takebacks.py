"""Order ids (idempotency) and take-backs (FF 6), through the application service, on SQLite and
on PostgreSQL. Whatever happens, the log only grows: every export is a prefix of the next one.
"""

from __future__ import annotations

import copy

import pytest

from domain.errors import Conflict, IdempotencyConflict, RuleViolation, UnknownSeat
from domain.service import Warlog
from tests.conftest import new_freeform_game

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "bombardment", "target": {"compare": ">=", "value": 7}}


class Log:
    """Watches one game's export: it may only ever grow, never change what it already holds."""

    def __init__(self, app: Warlog, game_id: str):
        self.app, self.game_id = app, game_id
        self.lines = list(app.export(game_id))

    def step(self, grew_by: int) -> list[dict]:
        """Check the export kept every earlier line and grew by ``grew_by``; the new lines."""
        now = list(self.app.export(self.game_id))
        assert now[:len(self.lines)] == self.lines, "an earlier line was changed or deleted"
        assert len(now) == len(self.lines) + grew_by, f"expected {grew_by} new lines, got {len(now) - len(self.lines)}"
        added = self.app.lines(self.game_id, after=len(self.lines)) if grew_by else []
        self.lines = now
        return added

    def unchanged(self) -> None:
        self.step(0)


@pytest.fixture
def game(app):
    return new_freeform_game(app)


# ------------------------------------------------------------------------------ idempotency --
def test_the_same_order_id_and_body_returns_the_first_result_and_records_nothing(app, store_config, game):
    first = app.submit_order(game, "Blue", "o1", ROLL)
    assert not first.replayed
    log = Log(app, game)

    again = app.submit_order(game, "Blue", "o1", copy.deepcopy(ROLL))
    log.unchanged()
    assert again.replayed
    assert again.events == first.events  # the same dice, not a new roll
    assert (again.version, again.chain_head, again.order_id) == (first.version, first.chain_head, "o1")

    fresh = Warlog(store_config)  # another process would know nothing but the store
    try:
        third = fresh.submit_order(game, "Blue", "o1", dict(reversed(list(ROLL.items()))))
    finally:
        fresh.close()
    log.unchanged()
    assert third.replayed and third.events == first.events


def test_a_repeated_order_id_after_later_orders_returns_its_original_events(app, game):
    first = app.submit_order(game, "Blue", "o1", ROLL)
    app.submit_order(game, "Red", "o2", {"kind": "vp", "side": "Red", "delta": 1, "reason": "x"})
    app.submit_order(game, "Blue", "o3", {"kind": "advance"})
    log = Log(app, game)
    again = app.submit_order(game, "Blue", "o1", ROLL)
    log.unchanged()
    assert again.replayed and again.events == first.events
    assert (again.version, again.chain_head) == (first.version, first.chain_head)  # the first result


def test_a_repeated_order_id_wins_over_a_stale_expected_version(app, game):
    first = app.submit_order(game, "Blue", "o1", ROLL, expected_version=app.get_game(game).version)
    app.submit_order(game, "Red", "o2", {"kind": "note", "text": "moves on"})
    log = Log(app, game)
    again = app.submit_order(game, "Blue", "o1", ROLL, expected_version=first.version - 2)
    log.unchanged()
    assert again.replayed and again.events == first.events


def test_a_stale_expected_version_is_a_conflict_and_records_nothing(app, game):
    seen = app.get_game(game).version
    app.submit_order(game, "Red", "o1", {"kind": "note", "text": "first"})
    log = Log(app, game)
    with pytest.raises(Conflict) as conflict:
        app.submit_order(game, "Blue", "o2", ROLL, expected_version=seen)
    assert conflict.value.current_version == seen + 1
    log.unchanged()


@pytest.mark.parametrize("seat, order", [
    ("Blue", {**ROLL, "dice": "3d6"}),
    ("Blue", {"kind": "note", "text": "something else"}),
    ("Red", ROLL),  # the same body from another seat is another order
], ids=["other_dice", "other_kind", "other_seat"])
def test_the_same_order_id_with_a_different_body_is_an_idempotency_conflict(app, game, seat, order):
    app.submit_order(game, "Blue", "o1", ROLL)
    log = Log(app, game)
    with pytest.raises(IdempotencyConflict):
        app.submit_order(game, seat, "o1", order)
    log.unchanged()


# ------------------------------------------------------------------------------- take-backs --
def take_back(app: Warlog, game: str, seat: str, opponent: str, log: Log) -> dict:
    """Request and accept; check both are new events appended; the TakeBackAccepted line."""
    requested = app.request_take_back(game, seat, reason="wrong die")
    assert [e["type"] for e in requested.events] == ["TakeBackRequested"]
    accepted = app.answer_take_back(game, opponent, accept=True)
    assert [e["type"] for e in accepted.events] == ["TakeBackAccepted"]
    added = log.step(2)
    assert [e["type"] for e in added] == ["TakeBackRequested", "TakeBackAccepted"]
    return added[1]


def test_an_accepted_take_back_of_a_vp_order_restores_the_vp(app, game):
    app.submit_order(game, "Blue", "v1", {"kind": "vp", "side": "Blue", "delta": 2, "reason": "a"})
    before = copy.deepcopy(app.get_game(game).state)
    taken = app.submit_order(game, "Blue", "v2", {"kind": "vp", "side": "Blue", "delta": 5, "reason": "b"})
    assert app.get_game(game).state["vp"]["Blue"] == 7
    log = Log(app, game)

    line = take_back(app, game, "Blue", "Red", log)

    state = app.get_game(game).state
    assert state["vp"] == {"Blue": 2, "Red": 0}
    assert state == before
    assert line["data"]["order_id"] == "v2"
    assert (line["data"]["superseded_from"], line["data"]["superseded_to"]) == \
        (taken.events[0]["seq"], taken.events[-1]["seq"])
    assert line["data"]["superseded_rolls"] == []
    assert [e["type"] for e in app.lines(game, after=taken.events[0]["seq"] - 1, limit=2)] == \
        [e["type"] for e in taken.events]  # the taken-back events are still there


@pytest.mark.parametrize("phases, expected", [
    (("Move", "Fight"), {"turn": 1, "phase": "Move"}),        # PhaseAdvanced taken back
    (("Move",), {"turn": 1, "phase": "Move"}),                # TurnAdvanced (new dice epoch) taken back
], ids=["phase", "turn"])
def test_an_accepted_take_back_of_an_advance_restores_the_phase(app, phases, expected):
    game = new_freeform_game(app, phases=phases)
    app.submit_order(game, "Red", "vp", {"kind": "vp", "side": "Red", "delta": 4, "reason": "held"})
    before = copy.deepcopy(app.get_game(game).state)
    app.submit_order(game, "Red", "adv", {"kind": "advance"})
    assert app.get_game(game).state["phase"] != expected["phase"] or app.get_game(game).state["turn"] != 1
    log = Log(app, game)

    take_back(app, game, "Red", "Blue", log)

    state = app.get_game(game).state
    assert {"turn": state["turn"], "phase": state["phase"]} == expected
    assert state["vp"] == {"Blue": 0, "Red": 4}
    assert state == before
    assert app.check_integrity(game).ok
    # and play goes on from the restored phase
    again = app.submit_order(game, "Blue", "adv-again", {"kind": "advance"})
    log.step(len(again.events))
    assert app.check_integrity(game).ok


def test_a_taken_back_roll_stays_in_the_export_listed_as_superseded(app, game):
    app.submit_order(game, "Blue", "v1", {"kind": "vp", "side": "Blue", "delta": 1, "reason": "a"})
    before = copy.deepcopy(app.get_game(game).state)
    taken = app.submit_order(game, "Blue", "r1", ROLL)
    roll_line = taken.events[1]
    assert roll_line["type"] == "DiceRolled"
    log = Log(app, game)

    line = take_back(app, game, "Blue", "Red", log)

    assert line["data"]["superseded_rolls"] == [roll_line["seq"]]
    assert app.lines(game, after=roll_line["seq"] - 1, limit=1) == [roll_line]
    game_now = app.get_game(game)
    assert game_now.state == before and game_now.state["last_roll"] is None
    # the die's nonces stay used: the next roll does not roll the same dice again
    again = app.submit_order(game, "Blue", "r2", ROLL)
    log.step(2)
    used = [d["nonce"] for d in roll_line["data"]["dice"]]
    assert again.events[1]["data"]["dice"][0]["nonce"] == used[-1] + 1
    assert app.check_integrity(game).ok


def test_a_declined_take_back_leaves_the_state(app, game):
    app.submit_order(game, "Blue", "v1", {"kind": "vp", "side": "Blue", "delta": 3, "reason": "a"})
    app.submit_order(game, "Blue", "adv", {"kind": "advance"})
    before = copy.deepcopy(app.get_game(game).state)
    log = Log(app, game)

    app.request_take_back(game, "Blue")
    declined = app.answer_take_back(game, "Red", accept=False)

    assert [e["type"] for e in declined.events] == ["TakeBackDeclined"]
    assert [e["type"] for e in log.step(2)] == ["TakeBackRequested", "TakeBackDeclined"]
    game_now = app.get_game(game)
    assert game_now.state == before and game_now.take_back is None
    app.submit_order(game, "Red", "after", {"kind": "note", "text": "play on"})  # no longer blocked
    log.step(1)


def test_only_the_opponent_may_answer_a_take_back(app, game):
    app.submit_order(game, "Blue", "v1", {"kind": "vp", "side": "Blue", "delta": 3, "reason": "a"})
    log = Log(app, game)
    with pytest.raises(RuleViolation) as nothing_waits:
        app.answer_take_back(game, "Red", accept=True)
    assert nothing_waits.value.rule == "FF 6"
    app.request_take_back(game, "Blue")
    log.step(1)
    for accept in (True, False):
        with pytest.raises(RuleViolation) as own:
            app.answer_take_back(game, "Blue", accept=accept)
        assert own.value.rule == "FF 6"
    with pytest.raises(UnknownSeat):
        app.answer_take_back(game, "Green", accept=True)
    log.unchanged()
    assert app.get_game(game).take_back == {"seat": "Blue", "order_id": "v1"}
    app.answer_take_back(game, "Red", accept=True)
    log.step(1)


def test_only_the_owner_of_the_last_order_may_ask_to_take_it_back(app, game):
    log = Log(app, game)
    with pytest.raises(RuleViolation) as no_order_yet:
        app.request_take_back(game, "Blue")
    assert no_order_yet.value.rule == "FF 6"

    app.submit_order(game, "Blue", "b1", {"kind": "note", "text": "blue"})
    app.submit_order(game, "Red", "r1", {"kind": "note", "text": "red"})
    log.step(2)
    with pytest.raises(RuleViolation) as not_last:
        app.request_take_back(game, "Blue")  # Blue's order is no longer the last one
    assert not_last.value.rule == "FF 6"
    log.unchanged()

    app.request_take_back(game, "Red")
    with pytest.raises(RuleViolation) as twice:
        app.request_take_back(game, "Red")
    assert twice.value.rule == "FF 6"
    app.answer_take_back(game, "Blue", accept=True)
    log.step(2)
    with pytest.raises(RuleViolation) as gone:  # the taken-back order cannot be taken back again
        app.request_take_back(game, "Red")
    assert gone.value.rule == "FF 6"
    with pytest.raises(RuleViolation):  # nor Blue's older one, now that Red's is gone
        app.request_take_back(game, "Blue")
    log.unchanged()


def test_orders_are_refused_while_a_take_back_request_waits(app, game):
    first = app.submit_order(game, "Blue", "b1", ROLL)
    app.request_take_back(game, "Blue")
    log = Log(app, game)
    for seat in ("Blue", "Red"):
        for order in (ROLL, {"kind": "advance"}, {"kind": "note", "text": "n"}):
            with pytest.raises(RuleViolation) as refused:
                app.submit_order(game, seat, f"{seat}-{order['kind']}", order)
            assert refused.value.rule == "FF 6"
    log.unchanged()
    # a repeated order id records nothing, so it is still answered
    assert app.submit_order(game, "Blue", "b1", ROLL).events == first.events
    log.unchanged()
    app.answer_take_back(game, "Red", accept=False)
    app.submit_order(game, "Red", "Red-note", {"kind": "note", "text": "n"})
    log.step(2)


def test_the_log_only_grows_through_a_whole_game_of_take_backs(app, game):
    """Event counts after each command never go down; every earlier line stays as it was."""
    log = Log(app, game)
    counts = [len(log.lines)]

    def did(n):
        log.step(n)
        counts.append(len(log.lines))

    app.submit_order(game, "Blue", "r1", ROLL); did(2)
    app.request_take_back(game, "Blue"); did(1)
    app.answer_take_back(game, "Red", accept=True); did(1)
    app.submit_order(game, "Blue", "r1b", ROLL); did(2)
    app.submit_order(game, "Red", "v1", {"kind": "vp", "side": "Red", "delta": 2, "reason": "x"}); did(2)
    app.request_take_back(game, "Red"); did(1)
    app.answer_take_back(game, "Blue", accept=False); did(1)
    app.submit_order(game, "Blue", "r1", ROLL); did(0)  # replay of the taken-back order id
    app.request_take_back(game, "Red"); did(1)
    app.answer_take_back(game, "Blue", accept=True); did(1)
    assert counts == sorted(counts) and counts[-1] == counts[0] + 12
    assert app.check_integrity(game).ok


@pytest.mark.parametrize("ending", ["end_order", "concession"])
def test_FF_6_no_take_back_after_the_game_ended(app, game, ending):
    """The ending closed the last dice epoch and settled the result: a take-back is refused."""
    app.submit_order(game, "Blue", "v1", {"kind": "vp", "side": "Blue", "delta": 2, "reason": "x"})
    if ending == "end_order":
        app.submit_order(game, "Blue", "end", {"kind": "end", "winner": "Blue", "reason": "won"})
    else:
        app.concede(game, "Blue")
    version = app.get_game(game).version
    with pytest.raises(RuleViolation, match="FF 6: the game has ended") as refused:
        app.request_take_back(game, "Blue")
    assert refused.value.rule == "FF 6"
    ended = app.get_game(game)
    assert ended.version == version and ended.is_ended and ended.state["ended"] is not None
