"""A sealed roll shown before the end (docs/dice.md, "Sealed rolls"; freeform FF 9 "show"): a
SealedRollShown opens the roll's concealed fields for everyone, and ``verify`` checks the opening
against the roll — the values themselves in a full copy, their commitments in a seat's copy made
before the show."""

from __future__ import annotations

import copy

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.verify import verify, verify_text
from domain.visibility import SEALED_ROLL_FIELDS, filter_lines
from projections import folds
from projections.narrate import describe
from tests.unit.test_sealed_rolls import lines_of, of_type, played, seed_for
from tests.unit.test_verify import index_of, rechain


def shown() -> tuple:
    """``played()`` (Blue's sealed 2d6, Red's sealed d20, Blue's sealed 3d6) with Blue's first
    sealed roll shown: (game, the full log, the seq of the roll shown)."""
    game = played()
    roll = of_type(lines_of(game), "SealedDiceRolled")[0]
    game.submit("Blue", "o7", {"kind": "show", "roll": roll["seq"]}, seed_for)
    return game, lines_of(game), roll["seq"]


def test_FF_9_the_roller_shows_a_sealed_roll_and_everyone_reads_it_in_full_from_then_on():
    game, lines, seq = shown()
    roll = next(line for line in lines if line["seq"] == seq)
    show = lines[-1]
    assert show["type"] == "SealedRollShown" and lines[-2]["type"] == "OrderAccepted"
    salts = roll["data"]["concealed"]
    assert show["data"] == {"roll": seq, "seat": "Blue", "rule": "FF 9",
                            "fields": {k: {"value": roll["data"][k], "salt": salts[k]} for k in SEALED_ROLL_FIELDS}}
    assert game.shown_rolls == {seq}
    others = [line["seq"] for line in of_type(lines, "SealedDiceRolled") if line["seq"] != seq]
    for viewer in ("Red", None):
        seen = {line["seq"]: line for line in filter_lines(game.rules, lines, viewer)}
        assert seen[seq] == roll and seen[show["seq"]] == show  # shown: the roll as recorded, salts and all
        assert all(seen[s]["data"]["concealed"]["dice"] is None for s in others if seen[s]["data"]["seat"] != viewer)
        # A page holding the roll but not the show: hidden unless the reader says it was shown.
        page = [roll]
        assert filter_lines(game.rules, page, viewer)[0]["data"]["concealed"]["dice"] is None
        assert filter_lines(game.rules, page, viewer, shown_rolls=game.shown_rolls) == page
    text = describe(show, game.rules)
    faces = ", ".join(str(d["value"]) for d in roll["data"]["dice"])
    assert text == f"Blue shows sealed roll #{seq}: {faces} — {roll['data']['outcome']} (FF 9)"


@pytest.mark.parametrize("who, what, message", [
    ("Red", "blue", "FF 9: only the seat that made a sealed roll shows it"),
    ("Blue", "open", "is not a sealed roll of this game"),
    ("Blue", "nothing", "is not a sealed roll of this game"),
    ("Blue", "again", "FF 9: the sealed roll at seq"),
])
def test_FF_9_only_the_roller_shows_its_own_sealed_roll_once(who, what, message):
    game, lines, seq = shown()
    target = {"blue": of_type(lines, "SealedDiceRolled")[2]["seq"], "open": of_type(lines, "DiceRolled")[0]["seq"],
              "nothing": 10_000, "again": seq}[what]
    version = game.version
    with pytest.raises(RuleViolation, match=message):
        game.submit(who, "o8", {"kind": "show", "roll": target}, seed_for)
    assert game.version == version
    with pytest.raises(InvalidOrder) as refused:
        game.submit("Blue", "o9", {"kind": "show", "roll": "3"}, seed_for)
    assert refused.value.rule == "FF 9" and refused.value.field == "roll"


def test_FF_9_a_roll_cannot_be_shown_after_the_end_every_sealed_roll_is_public_then():
    game = played(end=True)
    with pytest.raises(RuleViolation):
        game.submit("Blue", "o8", {"kind": "show", "roll": of_type(lines_of(game), "SealedDiceRolled")[0]["seq"]},
                    seed_for)


def test_verify_checks_a_show_in_the_full_log_and_in_a_seats_copy_made_before_it():
    game, lines, seq = shown()
    report = verify(lines)
    assert report.ok and report.sealed_rolls_shown == 1, report.summary()
    assert "1 sealed roll(s) shown before the end" in report.summary()
    # Red's copy of the log before the show (Blue's roll as commitments), then the show as read later.
    at = len(lines) - 1
    red = filter_lines(game.rules, lines[:at], "Red") + lines[at:]
    assert red[index_of(red, "SealedDiceRolled", 0)]["data"]["concealed"]["dice"] is None
    report = verify(red)
    assert report.ok and report.sealed_rolls_shown == 1 and report.sealed_rolls_unopened == 1, report.summary()
    # Once the game ends, the dice the show opened are checked against the sealed seed in that copy too.
    game.submit("Red", "o8", {"kind": "end", "winner": None, "reason": "time"}, seed_for)
    later = lines_of(game)[len(lines):]
    report = verify(red + later)
    assert report.ok, report.summary()
    assert (report.sealed_rolls_verified, report.sealed_rolls_unopened) == (2, 1), report.summary()


def _forge(lines: list[dict], change) -> tuple[int, str]:
    lines = copy.deepcopy(lines)
    at = index_of(lines, "SealedRollShown")
    change(lines[at]["data"], lines)
    report, _ = verify_text(rechain(lines))
    assert not report.ok, "the forgery went unnoticed"
    return report.failures[0][0] - 1 - at, report.failures[0][1]


def test_verify_refuses_a_show_that_does_not_open_its_roll():
    game, lines, seq = shown()
    red = filter_lines(game.rules, lines[:-1], "Red") + lines[-1:]

    def other_face(data, _):
        die = data["fields"]["dice"]["value"][0]
        die["value"] = die["value"] % 6 + 1

    assert _forge(lines, other_face) == (0, f"the dice shown differ from those of the sealed roll at seq {seq}")
    assert _forge(red, other_face) == (0, f"the dice shown do not open the commitment of the sealed roll at seq {seq}")
    red_roll = of_type(lines, "SealedDiceRolled")[1]["seq"]
    assert _forge(lines, lambda d, _: d.update(roll=red_roll))[1] == \
        f"shows Red's sealed roll at seq {red_roll} as Blue's"
    assert _forge(lines, lambda d, _: d.update(roll=2))[1] == "shows seq 2, which is not a sealed roll before it"
    assert _forge(lines, lambda d, _: d["fields"].pop("outcome"))[1].startswith("shows fields ['dice', 'target']")
    assert _forge(lines, lambda d, _: d["fields"]["target"].update(salt="00"))[1] == \
        "the salt shown for field 'target' is not 64 lowercase hex characters"

    def twice(data, lines_):
        lines_.append(copy.deepcopy(lines_[-1]))

    assert _forge(lines, twice) == (1, f"the sealed roll at seq {seq} is shown twice")


def test_the_dice_audit_shows_a_shown_sealed_roll_to_everyone():
    game, lines, seq = shown()
    view = folds.fold("dice", lines)
    for viewer in ("Red", None):
        rolls = {r["seq"]: r for r in folds.render_dice(view, game.rules, viewer, str(game.id))[0]}
        roll = next(line for line in lines if line["seq"] == seq)
        assert rolls[seq]["dice"] == roll["data"]["dice"] and rolls[seq]["status"] == "sealed"
        hidden = of_type(lines, "SealedDiceRolled")[2]["seq"]  # Blue's later sealed roll, not shown
        assert rolls[hidden]["dice"] is None
    assert folds.dice_reach(folds.fold("dice", lines[:-1]), lines[-1:]) == seq


def test_the_dice_audit_keeps_a_sealed_roll_sealed_when_its_open_epoch_is_revealed():
    """The open stream's reveal of epoch 0 says nothing of the sealed dice rolled in it: their status
    waits for the sealed seed (it read "failed", checked against the open seed, before this)."""
    game = played()
    view = folds.fold("dice", lines_of(game))
    for viewer in ("Blue", "umpire"):
        rolls = folds.render_dice(view, game.rules, viewer, str(game.id))[0]
        assert [(r["status"], r["sealed"]) for r in rolls] == [
            ("sealed", True), ("verified", False), ("sealed", True), ("sealed", True)]


def test_FF_9_show_is_a_legal_order_of_a_seat_with_a_sealed_roll_not_yet_shown():
    game = played()
    blue = [line["seq"] for line in of_type(lines_of(game), "SealedDiceRolled") if line["data"]["seat"] == "Blue"]

    def shows(seat):
        return [o["fields"]["roll"] for o in game.legal_orders(seat) if o["kind"] == "show"]

    assert shows("Blue") == [blue]
    game.submit("Blue", "o7", {"kind": "show", "roll": blue[0]}, seed_for)
    assert shows("Blue") == [blue[1:]]
    assert game.state["sealed_rolls"] == {str(blue[1]): "Blue", str(of_type(lines_of(game), "SealedDiceRolled")[1]["seq"]): "Red"}
    game.submit("Blue", "o8", {"kind": "show", "roll": blue[1]}, seed_for)
    assert shows("Blue") == [] and len(shows("Red")) == 1
