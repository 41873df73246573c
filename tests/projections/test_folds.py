"""Each fold of projections/folds.py against hand-built export lines (no store)."""

from __future__ import annotations

from domain import dice
from domain.events import DiceRolled
from projections import folds
from tests.played import played_events

GID = "3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b"
SEED = bytes(range(32))


def line(seq, kind, **data):
    return {"game_id": GID, "seq": seq, "type": kind, "timestamp": f"2026-01-01T00:00:{seq:02d}+00:00",
            "data": data, "prev_hash": "0" * 64, "hash": f"{seq:064x}"}


SETUP = {"turn": 1, "phase": "Move", "phases": ["Move", "Fight"], "sides": ["Blue", "Red"],
         "vp": {"Blue": 0, "Red": 0}, "pending": [], "markers": {"Blue": [], "Red": []}, "control": {},
         "units": {}, "last_roll": None, "ended": None, "vp_track": True, "last_turn": None}


def created():
    return line(1, "GameCreated", ruleset="freeform", scenario="freeform",
                options={"sides": ["Blue", "Red"]}, seats=["Blue", "Red"], setup=SETUP)


def order(seq, seat, order_id, **order):
    return line(seq, "OrderAccepted", order_id=order_id, seat=seat, order=order, digest="d", salt="s")


def face(nonce):
    return dice.face(SEED, GID, 0, "", nonce, 6)


def rolled(seq, nonce, value=None):
    # Only the fields the event class has (so the map fold can rebuild the event from the line).
    extra = {"notation": "1d6"} if "notation" in getattr(DiceRolled, "__annotations__", {}) else {}
    return line(seq, "DiceRolled", epoch=0, dice=[{"nonce": nonce, "sides": 6, "value": value or face(nonce)}],
                seat="Blue", purpose="fire", rule=None, units=[], target=None, outcome=None, replaces=None, **extra)


def game_lines():
    return [
        created(),
        line(2, "SeatJoined", seat="Blue", handle="b", client_seed=""),
        line(3, "SeatJoined", seat="Red", handle="r", client_seed=""),
        line(4, "DiceEpochOpened", epoch=0, commitment=dice.commitment(SEED), client_entropy=""),
        order(5, "Blue", "o1", kind="roll"),
        rolled(6, 0),
        order(7, "Red", "o2", kind="vp"),
        line(8, "VPScored", side="Red", delta=2, total=2, reason="bridge", rule="FF 4"),
        order(9, "Blue", "o3", kind="advance"),
        line(10, "PhaseAdvanced", turn=1, phase="Fight", rule="FF 2"),
        order(11, "Blue", "o4", kind="roll"),
        rolled(12, 1, value=7),  # a forged die: no d6 shows 7
        order(13, "Blue", "o5", kind="vp"),
        line(14, "VPScored", side="Blue", delta=3, total=3, reason="town", rule="FF 4"),
        line(15, "TakeBackRequested", seat="Blue", order_id="o5", reason="oops", rule="FF 6"),
        line(16, "TakeBackAccepted", seat="Red", order_id="o5", superseded_from=13, superseded_to=14,
             superseded_rolls=[], restored=SETUP, rule="FF 6"),
        order(17, "Blue", "o6", kind="advance"),
        line(18, "TurnAdvanced", turn=2, phase="Move", rule="FF 2"),
        line(19, "DiceEpochRevealed", epoch=0, seed=SEED.hex()),
    ]


def test_history_groups_lines_by_turn_phase_and_operation():
    view = folds.fold("history", game_lines())
    assert view["version"] == 19
    turns = folds.render_history(view)
    assert [t["turn"] for t in turns] == [1]
    move, fight = turns[0]["phases"]
    assert move["phase"] == "Move" and fight["phase"] == "Fight"
    assert [op["first_seq"] for op in move["operations"]] == [1, 2, 3, 5, 7, 9]
    assert [op["order_id"] for op in fight["operations"]] == ["o4", "o5", None, None, "o6"]
    assert fight["operations"][-1]["lines"][-1]["text"].startswith("Dice epoch 0 revealed")
    assert move["operations"][3]["seat"] == "Blue"


def test_vp_track_marks_a_taken_back_score_superseded():
    view = folds.fold("vp", game_lines())
    totals, track = folds.render_vp(view)
    assert totals == {"Blue": 0, "Red": 2}
    assert [(e["seq"], e["turn"], e["phase"], e["superseded"]) for e in track] == [
        (8, 1, "Move", False), (14, 1, "Fight", True)]


def test_dice_audit_settles_every_roll_of_an_epoch_when_it_is_revealed():
    lines = game_lines()
    before = folds.render_dice(folds.fold("dice", lines[:-1]))[0]
    assert [r["status"] for r in before] == ["unrevealed", "unrevealed"]
    rolls, epochs = folds.render_dice(folds.fold("dice", lines))
    assert [(r["seq"], r["status"], r["phase"]) for r in rolls] == [(6, "verified", "Move"), (12, "failed", "Fight")]
    assert epochs[0]["status"] == "revealed" and epochs[0]["seed"] == SEED.hex()


def test_dice_audit_marks_the_rolls_of_a_taken_back_order():
    lines = game_lines()[:12] + [
        line(13, "TakeBackRequested", seat="Blue", order_id="o4", reason="", rule="FF 6"),
        line(14, "TakeBackAccepted", seat="Red", order_id="o4", superseded_from=11, superseded_to=12,
             superseded_rolls=[12], restored=SETUP, rule="FF 6")]
    rolls, _ = folds.render_dice(folds.fold("dice", lines))
    assert [r["superseded"] for r in rolls] == [False, True]


def test_map_state_follows_the_ruleset_and_the_seats():
    lines = game_lines()
    waiting = folds.fold("map", lines[:2])
    assert folds.status(waiting) == "waiting" and waiting["whose_move"] == []
    asking = folds.fold("map", lines[:15])
    assert asking["whose_move"] == ["Red"]  # a take-back request waits for the opponent
    assert asking["state"]["vp"] == {"Blue": 3, "Red": 2}
    view = folds.fold("map", lines)
    assert (view["state"]["turn"], view["state"]["phase"]) == (2, "Move")
    assert view["state"]["vp"] == {"Blue": 0, "Red": 0}  # the take-back restored the set-up state
    assert view["whose_move"] == ["Blue", "Red"] and view["chain_head"] == lines[-1]["hash"]
    row = folds.index_row(view)
    assert row["status"] == "active" and [s["handle"] for s in row["seats"]] == ["b", "r"]


def test_a_line_at_or_below_the_version_is_not_applied_twice():
    lines = game_lines()
    for name in folds.FOLDS:
        once = folds.fold(name, lines)
        assert folds.fold(name, lines[5:], once) == once
        assert folds.fold(name, lines, folds.fold(name, lines[:7])) == once


def test_a_fold_never_mutates_the_view_it_is_given():
    import copy

    lines = game_lines()
    for name in folds.FOLDS:
        view = folds.fold(name, lines[:12])
        kept = copy.deepcopy(view)
        folds.fold(name, lines[12:], view)
        assert view == kept


def test_private_notes_are_filtered_when_read_not_when_folded():
    from domain.rulesets import find_ruleset

    rules = find_ruleset("freeform")
    lines = game_lines()[:4] + [order(5, "Blue", "n1", kind="note", text="secret plan", private=True)]
    view = folds.fold("history", lines)
    assert view["items"][-1]["data"]["order"]["text"] == "secret plan"
    text = lambda viewer: folds.render_history(view, rules, viewer, GID)[0]["phases"][0]["operations"][-1]["lines"][0]["text"]  # noqa: E731
    assert "secret plan" in text("Blue") and "secret plan" in text("umpire")
    assert "secret plan" not in text("Red") and "secret plan" not in text(None)


def test_an_event_rebuilt_from_its_line_is_the_event_field_for_field_in_order():
    """``to_event`` of every line of real games (each kind of event freeform and Falklands orders
    make, the game's creation included) gives back the event the aggregate made, the same class
    and the same fields in the same order (a ruleset's fold reads them in order), through JSON as
    a client gets them."""
    import json

    from domain.verify import to_line

    kinds = set()
    for ruleset, orders in (("freeform", 60), ("falklands", 120)):
        for event in played_events(ruleset, orders, seed=4):
            line = json.loads(json.dumps(to_line(event)))
            made = folds.to_event(line)
            kinds.add(type(made).__name__)
            assert type(made) is type(event)
            assert list(vars(made).items()) == list(vars(event).items()), line["type"]
    assert {"GameCreated", "SeatJoined", "OrderAccepted", "DiceRolled", "DiceEpochRevealed"} <= kinds


def test_a_line_whose_fields_are_not_the_events_is_ordered_or_refused_by_its_class():
    """A line not as stored lines are: its data in another order is put in the class's order,
    a data field naming an envelope field loses to the envelope, and a missing or an unknown
    field is refused by the class."""
    import dataclasses

    import pytest

    order = [f.name for f in dataclasses.fields(DiceRolled)]
    made = rolled(6, 0)
    kept = dict(made, data={k: made["data"][k] for k in order if k in made["data"]})  # as stored lines are
    reordered = dict(kept, data=dict(reversed(list(kept["data"].items()))))
    assert list(vars(folds.to_event(reordered))) == order
    assert vars(folds.to_event(reordered)) == vars(folds.to_event(kept))

    named = dict(kept, data={**kept["data"], "hash": "forged"})
    assert folds.to_event(named).hash == kept["hash"]

    missing = dict(kept, data={k: v for k, v in kept["data"].items() if k != "seat"})
    with pytest.raises(TypeError):
        folds.to_event(missing)
    unknown = dict(kept, data={**kept["data"], "colour": "red"})
    with pytest.raises(TypeError):
        folds.to_event(unknown)
