"""Nothing a reader cannot take back is stored, whatever the entry point (domain/storable.py): the
aggregate refuses it before any event exists, the rules bound their numbers and texts (FF 1-6),
and a file that holds it is neither verified silently wrong nor imported."""

from __future__ import annotations

import hashlib
import json

import pytest

from domain import dice, storable
from domain import events as ev
from domain.errors import InvalidOrder, InvalidSetup, RuleViolation
from domain.game import Game
from domain.verify import verify_text


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"test-seed-{epoch}".encode()).digest()


def started(**options) -> Game:
    game = Game.create("freeform", options={"sides": ["Blue", "Red"], **options}, seed_for=seed_for)
    for side in ("Blue", "Red"):
        game.join(side, side.lower(), "", seed_for)
    game.collect_events()
    return game


def deep(levels: int):
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


# ---------------------------------------------------------------------- the strict check ----
@pytest.mark.parametrize("value, where", [
    ({"a": float("nan")}, "v.a: nan is not a JSON number"),
    ({"a": [1, float("-inf")]}, "v.a[1]: -inf is not a JSON number"),
    ({"a": 2**53}, "v.a: a whole number beyond"),
    ({"a": -(10**400)}, "v.a: a whole number beyond"),
    ({"a": "x\ud800"}, "v.a: text holding an unpaired surrogate"),
    ({"\udfff": 1}, "v: a key holding an unpaired surrogate"),
    ({1: 1}, "v: a key that is not text"),
    ({"a": deep(70)}, "nested deeper than 64"),
])
def test_what_no_reader_can_take_back_is_named_with_its_path(value, where):
    assert where in storable.problem(value, "v")


def test_json_every_reader_takes_is_storable():
    value = {"a": [2**53 - 1, -(2**53 - 1), 0.5, 1e300, True, None, "naïve 😀\n\t"], "b": {"c": deep(60)}}
    assert storable.problem(value) is None


# -------------------------------------------------------------- the aggregate, no door ----
# GameCreated, two DiceCommitted (open epoch 0, sealed), two SeatJoined, DiceEpochOpened, DiceCommitted
STARTED = 7


@pytest.mark.parametrize("order, path", [
    ({"kind": "note", "text": "x", "fields": {"range": float("nan")}}, "order.fields.range"),
    ({"kind": "note", "text": "x", "fields": {"range": float("-inf")}}, "order.fields.range"),
    ({"kind": "note", "text": "x", "fields": {"n": 10**400}}, "order.fields.n"),
    ({"kind": "vp", "side": "Blue", "delta": 2**63, "reason": "x"}, "order.delta"),
    ({"kind": "roll", "dice": "1d6", "purpose": "\ud800"}, "order.purpose"),
    ({"kind": "note", "text": "x", "fields": {"\ud800": 1}}, "order.fields"),
    ({"kind": "note", "text": "x", "fields": {"a": deep(10_000)}}, "nested deeper"),
])
def test_an_order_holding_an_unstorable_value_is_refused_before_any_event(order, path):
    game = started()
    with pytest.raises(InvalidOrder, match="cannot be stored") as refused:
        game.submit("Blue", "o1", order, seed_for)
    assert path in refused.value.message
    assert game.pending_events == [] and game.version == STARTED


def test_an_event_holding_an_unstorable_value_is_refused_before_it_exists():
    game = started()
    with pytest.raises(InvalidOrder, match="PhaseAdvanced.turn: a whole number beyond"):
        game.trigger_event(ev.PhaseAdvanced, turn=2**60, phase="Turn", rule="FF 2")
    assert game.pending_events == [] and game.version == STARTED


def test_a_game_whose_set_up_holds_an_unstorable_value_is_not_created():
    with pytest.raises(InvalidSetup, match="game.scenario: text holding an unpaired surrogate"):
        Game.create("freeform", "\ud800", {}, seed_for=seed_for)


def test_an_order_over_16_kib_of_json_is_refused():
    game = started()
    with pytest.raises(InvalidOrder, match="16384 bytes"):
        game.submit("Blue", "o1", {"kind": "note", "text": "x", "fields": {"a": "é" * 9000}}, seed_for)
    assert game.pending_events == []


# ---------------------------------------------------------------------------- the rules ----
@pytest.mark.parametrize("delta", [2**63, 10**400, 1_000_001, -1_000_001])
def test_ff_4_a_vp_delta_is_within_the_track(delta):
    game = started()
    with pytest.raises(InvalidOrder, match="FF 4: 'delta' is a whole number from -1,000,000 to 1,000,000"):
        game.rules.decide(game.state, "Blue", {"kind": "vp", "side": "Blue", "delta": delta, "reason": "x"}, None)


def test_ff_4_a_vp_total_stays_on_the_track():
    game = started()
    game.submit("Blue", "o1", {"kind": "vp", "side": "Blue", "delta": -1_000_000, "reason": "x"}, seed_for)
    with pytest.raises(RuleViolation, match="FF 4: the VP track runs from -1,000,000 to 1,000,000"):
        game.submit("Blue", "o2", {"kind": "vp", "side": "Blue", "delta": -1, "reason": "x"}, seed_for)


@pytest.mark.parametrize("options, rule", [
    ({"last_turn": 10**20}, "FF 2"), ({"last_turn": 10_000}, "FF 2"),
    ({"phases": ["Move", "x" * 41]}, "FF 2"), ({"phases": ["Move\nFight"]}, "FF 2"),
    ({"phases": ["\u202eevoM"]}, "FF 2"), ({"sides": ["Blue", "Red\x1b[2J"]}, "FF 1"),
    ({"sides": ["Blue", "Red\r"]}, "FF 1"),
])
def test_ff_1_and_2_names_and_the_last_turn_are_bounded(options, rule):
    with pytest.raises(InvalidSetup, match=f"^{rule}: "):
        Game.create("freeform", options=options, seed_for=seed_for)


def test_ff_1_and_2_accept_names_up_to_40_characters_and_a_last_turn_of_9999():
    game = Game.create("freeform", options={"sides": ["Blue", "R" * 40], "phases": ["M" * 40], "last_turn": 9999}, seed_for=seed_for)
    assert game.state["phases"] == ["M" * 40] and game.state["last_turn"] == 9999


@pytest.mark.parametrize("order, field", [
    ({"kind": "note", "text": "x" * 4001}, "text"),
    ({"kind": "roll", "dice": "1d6", "purpose": "p" * 201}, "purpose"),
    ({"kind": "vp", "side": "Blue", "delta": 1, "reason": "r" * 1001}, "reason"),
    ({"kind": "end", "reason": "r" * 1001}, "reason"),
    ({"kind": "end", "reason": "r", "level": "l" * 101}, "level"),
])
def test_ff_free_texts_have_a_length_each(order, field):
    game = started()
    with pytest.raises(InvalidOrder) as refused:
        game.submit("Blue", "o1", order, seed_for)
    assert refused.value.field == field and game.pending_events == []


def test_ff_6_a_take_back_reason_is_text_of_at_most_1000_characters():
    game = started()
    game.submit("Blue", "o1", {"kind": "note", "text": "x"}, seed_for)
    game.collect_events()
    with pytest.raises(InvalidOrder, match="FF 6: a take-back's reason is text of at most 1000"):
        game.request_take_back("Blue", "r" * 1001)
    assert game.pending_events == []


@pytest.mark.parametrize("handle", ["al\x1bice", "bob\n", "\u202eeve", "mal\x00"])
def test_a_handle_is_printable_text_on_one_line(handle):
    game = Game.create("freeform", options={"sides": ["Blue", "Red"]}, seed_for=seed_for)
    with pytest.raises(InvalidOrder, match="printable"):
        game.join("Blue", handle, "", seed_for)


# ----------------------------------------------------------------------------- the dice ----
@pytest.mark.parametrize("text", ["1d6\n", "d66\n", "2d6\t", "\n2d6", "2\td6", "2d6\r", "1d6\x0b"])
def test_ff_3_a_dice_expression_holds_spaces_and_no_other_whitespace(text):
    with pytest.raises(ValueError):
        dice.parse(text)


@pytest.mark.parametrize("text", ["9" * 5000 + "d6", "d" + "9" * 5000, "1d" + "9" * 4400])
def test_ff_3_a_dice_number_of_thousands_of_digits_is_refused_in_plain_words(text):
    with pytest.raises(ValueError) as refused:
        dice.parse(text)
    message = str(refused.value)
    assert "sys." not in message and "Exceeds the limit" not in message and len(message) < 120


# ---------------------------------------------------------------------- files: verify ----
@pytest.mark.parametrize("raw, why", [
    ('{"a": ' + "[" * 10_000 + "]" * 10_000 + "}", "nested too deep"),
    ('{"a": ' + "9" * 5000 + "}", "a number of more than 4300 digits"),
])
def test_verify_names_a_line_it_cannot_read_without_python_s_words(raw, why):
    report, _ = verify_text([raw])
    assert report.failures == [(1, f"not JSON this reader can take: {why}")]
    json.dumps(report.failures)  # and says it in plain text
