"""Sealed rolls (docs/dice.md, "Sealed rolls"; freeform FF 9): a second dice stream per game,
committed at creation and revealed when the game ends. Its faces are seen by the roller and the
umpire only until then, in every read, and ``verify`` checks the stream once its seed is out."""

from __future__ import annotations

import copy
import hashlib
import json
from uuid import UUID, uuid4

import pytest

from domain import dice
from domain import game as game_module
from domain.errors import IntegrityFailure, InvalidOrder, RuleViolation
from domain.game import Game
from domain.verify import to_line, verify, verify_text
from domain.visibility import SEALED_ROLL_FIELDS, filter_lines, view_state
from projections import folds
from projections.narrate import describe
from tests.conftest import new_freeform_game
from tests.unit.test_verify import index_of, rechain
from workers import notify, replay

UMPIRE = "umpire"


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"sealed-test-seed-{epoch}".encode()).digest()


SEALED_SEED = seed_for(-1)


def started(game_id: UUID | None = None, **options) -> Game:
    game = Game.create("freeform", options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"], **options},
                       game_id=game_id or uuid4(), seed_for=seed_for)
    for side in ("Blue", "Red"):
        game.join(side, side.lower(), f"cs-{side}", seed_for)
    return game


def lines_of(game: Game) -> list[dict]:
    """The game's log as export lines (a game made here is never saved: all its events are pending)."""
    return [to_line(e) for e in game.pending_events]


def sealed_roll(dice_: str = "2d6", purpose: str = "refit", **more) -> dict:
    return {"kind": "roll", "dice": dice_, "sealed": True, "purpose": purpose, **more}


def played(end: bool = False) -> Game:
    """Blue's sealed 2d6 against a target and Red's open d6 and sealed d20 in epoch 0; a turn
    later (epoch 1) Blue's sealed 3d6; with ``end``, the game ended by Red."""
    game = started()
    game.submit("Blue", "o1", sealed_roll(target={"compare": ">=", "value": 8}), seed_for)
    game.submit("Red", "o2", {"kind": "roll", "dice": "1d6", "purpose": "open fire"}, seed_for)
    game.submit("Red", "o3", sealed_roll("d20", "hidden reinforcements"), seed_for)
    game.submit("Blue", "o4", {"kind": "advance"}, seed_for)
    game.submit("Red", "o5", {"kind": "advance"}, seed_for)  # turn 2: epoch 0 revealed, epoch 1 opened
    game.submit("Blue", "o6", sealed_roll("3d6", "random event marker"), seed_for)
    if end:
        game.submit("Red", "o7", {"kind": "end", "winner": None, "reason": "time"}, seed_for)
    return game


def of_type(lines: list[dict], type_: str) -> list[dict]:
    return [line for line in lines if line["type"] == type_]


# ---------------------------------------------------------------------------- the stream ----
def test_FF_9_the_creation_commits_the_sealed_dice_after_where_the_game_starts_and_before_the_umpire():
    game = Game.create("proving", position="midgame", umpire="Ann", game_id=uuid4(), seed_for=seed_for)
    types = [line["type"] for line in lines_of(game)]
    sealed = max(i for i, line in enumerate(lines_of(game)) if line["type"] == "DiceCommitted")
    assert types[0] == "GameCreated" and types.index("PositionSet") < sealed < types.index("UmpireAppointed")
    assert set(types[1:sealed]) <= {"PositionSet", "DiceCommitted"}  # the open stream's commitment, when there
    assert lines_of(game)[sealed]["data"] == {"stream": "sealed", "epoch": 0, "commitment": dice.commitment(SEALED_SEED)}


def test_FF_9_a_sealed_roll_has_faces_of_the_sealed_seed_and_the_sealed_streams_own_nonces():
    game = played()
    lines = lines_of(game)
    entropy = {line["data"]["epoch"]: line["data"]["client_entropy"] for line in of_type(lines, "DiceEpochOpened")}
    order_of = {}  # the order id of the latest OrderAccepted before each line: the roll's input
    latest = ""
    for line in lines:
        latest = line["data"]["order_id"] if line["type"] == "OrderAccepted" else latest
        order_of[line["seq"]] = latest
    rolls = of_type(lines, "SealedDiceRolled")
    assert [(r["data"]["seat"], r["data"]["epoch"], r["data"]["notation"]) for r in rolls] == [
        ("Blue", 0, "2d6"), ("Red", 0, "1d20"), ("Blue", 1, "3d6")]
    assert [d["nonce"] for r in rolls for d in r["data"]["dice"]] == [0, 1, 2, 3, 4, 5]  # across epochs
    assert [order_of[r["seq"]] for r in rolls] == ["o1", "o3", "o6"]
    for r in rolls:
        data = r["data"]
        for die in data["dice"]:
            assert die["value"] == dice.face2(SEALED_SEED, str(game.id), data["epoch"], entropy[data["epoch"]],
                                              order_of[r["seq"]], die["nonce"], die["sides"])
    (open_roll,) = of_type(lines, "DiceRolled")  # the open stream keeps its own nonces
    assert [d["nonce"] for d in open_roll["data"]["dice"]] == [0]
    blue = rolls[0]["data"]
    total = sum(d["value"] for d in blue["dice"])
    assert blue["target"]["result"] == total and blue["outcome"] == ("success" if total >= 8 else "failure")
    assert game.sealed_dice == {"commitment": dice.commitment(SEALED_SEED), "nonce": 6, "revealed": False}


@pytest.mark.parametrize("ending", ["end", "concession"])
def test_FF_9_the_sealed_seed_is_revealed_right_after_the_last_epoch_when_the_game_ends(ending):
    game = played()
    if ending == "end":
        game.submit("Red", "o7", {"kind": "end", "winner": "Blue", "reason": "Red gives up"}, seed_for)
    else:
        game.concede("Red", seed_for)
    lines = lines_of(game)
    assert [line["type"] for line in lines[-3:]] == ["GameEnded", "DiceEpochRevealed", "SealedDiceRevealed"]
    assert lines[-1]["data"] == {"seed": SEALED_SEED.hex()}
    assert game.sealed_revealed


def test_FF_9_a_game_ended_without_a_sealed_roll_reveals_its_sealed_seed_too():
    game = started()
    game.concede("Blue", seed_for)
    assert [line["type"] for line in lines_of(game)[-2:]] == ["DiceEpochRevealed", "SealedDiceRevealed"]


def test_FF_9_sealed_is_true_or_false():
    game = started()
    version = game.version
    with pytest.raises(InvalidOrder) as refused:
        game.submit("Blue", "o1", sealed_roll(sealed="yes"), seed_for)
    assert refused.value.rule == "FF 9" and refused.value.field == "sealed"
    assert game.version == version


def test_FF_9_a_game_without_a_sealed_stream_refuses_a_sealed_roll(monkeypatch):
    monkeypatch.setattr(game_module, "FORMAT", 1)  # a format-1 game never has a sealed stream
    format_1 = Game.create("freeform", options={"sides": ["Blue", "Red"]}, game_id=uuid4(), seed_for=seed_for)
    assert "DiceCommitted" not in [line["type"] for line in lines_of(format_1)]
    for game in (format_1,):
        for side in ("Blue", "Red"):
            game.join(side, side.lower(), "", seed_for)
        version = game.version
        with pytest.raises(RuleViolation, match="FF 9: this game has no sealed dice stream"):
            game.submit("Blue", "o1", sealed_roll(), seed_for)
        assert game.version == version
        game.submit("Blue", "o2", {"kind": "roll", "dice": "2d6", "purpose": "open"}, seed_for)  # open dice roll on


def test_a_server_without_the_committed_sealed_seed_refuses_a_sealed_roll():
    """An imported game's seeds are not on this server: it can be read and verified, not rolled on."""
    game = started()
    version = game.version
    with pytest.raises(IntegrityFailure, match="sealed dice"):
        game.submit("Blue", "o1", sealed_roll(), lambda epoch: seed_for(epoch if epoch >= 0 else -2))
    assert game.version == version


# ------------------------------------------------------------------------------ who sees --
def test_FF_9_a_sealed_rolls_faces_are_seen_by_the_roller_and_the_umpire_only_until_the_end():
    game = played()
    full = lines_of(game)
    at = index_of(full, "SealedDiceRolled", 0)  # Blue's, with a target
    assert full[at]["data"]["seat"] == "Blue" and full[at]["data"]["outcome"] in ("success", "failure")
    for viewer in ("Blue", UMPIRE):
        assert filter_lines(game.rules, full, viewer)[at] == full[at]
    for viewer in ("Red", None):
        seen = next(line for line in filter_lines(game.rules, full, viewer) if line["seq"] == full[at]["seq"])
        # Concealed: a commitment in each field's place, its salt withheld (docs/dice.md, "Concealed fields").
        assert "redacted" not in seen and {k: seen["data"]["concealed"][k] for k in SEALED_ROLL_FIELDS} == \
            dict.fromkeys(SEALED_ROLL_FIELDS)
        assert all(seen["data"][k] != full[at]["data"][k] for k in SEALED_ROLL_FIELDS)
        kept = {k: v for k, v in full[at]["data"].items() if k not in (*SEALED_ROLL_FIELDS, "concealed")}
        assert {k: v for k, v in seen["data"].items() if k not in (*SEALED_ROLL_FIELDS, "concealed")} == kept
        assert describe(seen, game.rules) == "Blue rolled 2d6 sealed for refit: the dice are hidden until the game ends"
    assert describe(full[at], game.rules).startswith("Sealed: Blue rolled 2d6 for refit: ")

    game.submit("Red", "o7", {"kind": "end", "winner": None, "reason": "time"}, seed_for)
    ended = lines_of(game)
    for viewer in ("Red", None):
        assert filter_lines(game.rules, ended, viewer)[at] == full[at]  # the seed is out: all see it
    # A page read after the end that does not hold the reveal: shown when told, hidden by default.
    page = ended[at:at + 1]
    assert filter_lines(game.rules, page, "Red", sealed_revealed=True) == page
    assert filter_lines(game.rules, page, "Red")[0]["data"]["concealed"]["dice"] is None  # salt withheld


def test_FF_9_the_state_shows_that_a_sealed_roll_was_made_not_its_faces():
    game = played()
    last = view_state(game.rules, game.state, "Red")["last_roll"]
    assert last == {"seq": of_type(lines_of(game), "SealedDiceRolled")[-1]["seq"], "seat": "Blue", "epoch": 1}


# --------------------------------------------------------------------------------- verify --
def test_verify_reports_sealed_rolls_not_yet_revealed_in_a_game_in_progress():
    report = verify(lines_of(played()))
    assert report.ok, report.summary()
    assert (report.sealed_rolls_verified, report.sealed_rolls_unrevealed, report.sealed_rolls_unopened) == (0, 3, 0)
    assert "0 sealed roll(s) (0 dice) verified, 3 not yet revealed, 0 not opened in this copy" in report.summary()


def test_verify_checks_every_sealed_die_once_the_game_has_ended():
    report = verify(lines_of(played(end=True)))
    assert report.ok, report.summary()
    assert (report.sealed_rolls_verified, report.sealed_dice_verified, report.sealed_rolls_unrevealed) == (3, 6, 0)


def test_a_seats_copy_counts_the_sealed_rolls_it_is_not_shown_as_sealed_not_opened():
    """Red's copy in progress: Blue's two sealed rolls hide their dice (and so their nonces);
    Red's own sealed roll after the first of them is shown, its nonce checked as far as can be."""
    game = played()
    report = verify(filter_lines(game.rules, lines_of(game), "Red"))
    assert (report.sealed_rolls_unopened, report.sealed_rolls_unrevealed) == (2, 1)
    # The hidden fields are commitments: the copy verifies as a chain all the same.
    assert report.ok, report.summary()


def test_a_forged_sealed_die_is_caught_by_the_revealed_sealed_seed_though_the_chain_is_rewritten():
    lines = lines_of(played(end=True))
    i = index_of(lines, "SealedDiceRolled", 1)  # Red's d20
    die = lines[i]["data"]["dice"][0]
    die["value"] = die["value"] % 20 + 1
    report, _ = verify_text(rechain(lines))
    assert [n for n, _ in report.failures] == [i + 1], report.summary()
    assert "but the revealed sealed seed gives" in report.failures[0][1]


def test_a_wrong_sealed_seed_does_not_match_the_sealed_commitment():
    lines = lines_of(played(end=True))
    i = index_of(lines, "SealedDiceRevealed")
    lines[i]["data"]["seed"] = seed_for(99).hex()
    report, _ = verify_text(rechain(lines))
    assert [n for n, _ in report.failures] == [i + 1], report.summary()
    assert "the sealed dice's seed does not match their commitment" in report.failures[0][1]


def test_a_sealed_roll_left_out_leaves_a_gap_in_the_sealed_nonces():
    lines = lines_of(played(end=True))
    del lines[index_of(lines, "SealedDiceRolled", 1)]  # Red's d20, nonce 2
    report, _ = verify_text(rechain(lines))
    nxt = index_of(lines, "SealedDiceRolled", 1)
    assert report.failures[0] == (nxt + 1, "sealed die nonce 3 where 2 was expected "
                                           "(a sealed roll is missing or was repeated)"), report.summary()


def test_a_sealed_roll_after_the_reveal_or_without_a_commitment_fails():
    lines = lines_of(played(end=True))
    late = copy.deepcopy(lines[index_of(lines, "SealedDiceRolled", 0)])
    lines.append(late)
    report, _ = verify_text(rechain(lines))
    assert (len(lines), "sealed roll after the sealed dice were revealed (its faces were known in advance)") \
        in report.failures, report.summary()
    lines = lines_of(played())
    del lines[index_of(lines, "DiceCommitted", 0, stream="sealed")]
    report, _ = verify_text(rechain(lines))
    first = index_of(lines, "SealedDiceRolled", 0) + 1
    assert report.failures[0] == (first, "sealed roll without a commitment to the sealed dice before it")


# ---------------------------------------------------------------- every read of a seat ----
def test_a_sealed_face_is_not_computable_before_the_reveal_from_anything_a_seat_reads(sqlite_app):
    """On a store: the export of a game in progress holds no S* (not even the umpire's), and Red's
    every read (lines, export, history, dice audit, state, replay, turn mail) holds no face of
    Blue's sealed roll; once the game ends, Red sees it, and Red's export verifies it against the
    revealed seed."""
    app = sqlite_app
    gid = new_freeform_game(app)
    rolled = app.submit_order(gid, "Blue", "o1", sealed_roll(target={"compare": ">=", "value": 7}))
    app.submit_order(gid, "Red", "o2", sealed_roll("d66", "Red's own draw"))
    secret = app.seeds.seed_for(gid, -1)
    blue_seq = rolled.events[-1]["seq"]
    export = list(app.export(gid))
    assert secret.hex() not in "\n".join(export) and dice.commitment(secret) in "\n".join(export)
    rules = app.get_game(gid).rules

    def blue_roll_as_red(lines):
        return next(line for line in filter_lines(rules, lines, "Red") if line["seq"] == blue_seq)

    hidden = blue_roll_as_red([json.loads(t) for t in export])
    # Each hidden field holds its commitment, its salt withheld (docs/dice.md, "Concealed fields").
    assert all(hidden["data"]["concealed"][k] is None and len(hidden["data"][k]) == 64 for k in SEALED_ROLL_FIELDS)
    history = folds.render_history(folds.fold("history", app.lines(gid)), rules, "Red", gid)
    texts = {line["seq"]: line["text"] for turn in history for phase in turn["phases"]
             for op in phase["operations"] for line in op["lines"]}
    assert texts[blue_seq] == "Blue rolled 2d6 sealed for refit: the dice are hidden until the game ends"
    rolls, _ = folds.render_dice(folds.fold("dice", app.lines(gid)), rules, "Red", gid)
    blue, red = rolls
    assert (blue["dice"], blue["target"], blue["outcome"], blue["status"], blue["sealed"]) == (None, None, None,
                                                                                               "sealed", True)
    assert red["dice"] is not None and red["status"] == "sealed"  # Red's own: shown, not checkable yet
    state = view_state(rules, folds.fold("map", app.lines(gid))["state"], "Red")
    assert "dice" not in json.dumps(state["last_roll"])
    frames = replay.frames(app.lines(gid), "Red")
    frame = next(f for f in frames["frames"] if f["seq"] == blue_seq)
    assert frame["dice"]["faces"] == [] and frame["dice"]["status"] == "sealed" and frame["dice"]["outcome"] is None
    assert frame["text"] == texts[blue_seq] and secret.hex() not in json.dumps(frames)
    mail = notify.build_summary(rules, gid, app.lines(gid), viewer="Red", reason="your_move", to_move=["Red"],
                                chain_head="", seq=blue_seq + 2, public_url="http://warlog.test")
    assert {"seq": blue_seq, "text": texts[blue_seq]} in mail.dice

    app.submit_order(gid, "Blue", "o3", {"kind": "end", "winner": None, "reason": "time"})
    export = list(app.export(gid))
    assert secret.hex() in export[-1]
    shown = blue_roll_as_red([json.loads(t) for t in export])
    assert shown["data"]["dice"] == rolled.events[-1]["data"]["dice"] and "redacted" not in shown
    rolls, _ = folds.render_dice(folds.fold("dice", app.lines(gid)), rules, "Red", gid)
    assert [(r["status"], r["sealed"]) for r in rolls] == [("verified", True), ("verified", True)]
    report = verify(filter_lines(rules, [json.loads(t) for t in export], "Red"))
    assert report.ok and report.sealed_rolls_verified == 2, report.summary()


def test_the_dice_audit_reaches_back_to_the_first_sealed_roll_when_the_sealed_seed_is_revealed():
    lines = lines_of(played(end=True))
    reveal = index_of(lines, "SealedDiceRevealed")
    view = folds.fold("dice", lines[:reveal])
    assert folds.dice_reach(view, lines[reveal:]) == of_type(lines, "SealedDiceRolled")[0]["seq"]
    assert folds.render_sealed(folds.fold("dice", lines))["status"] == "revealed"


def test_FF_6_a_taken_back_sealed_roll_is_superseded_and_its_nonces_stay_used():
    game = started()
    game.submit("Blue", "o1", sealed_roll(), seed_for)
    game.request_take_back("Blue", "wrong purpose")
    game.answer_take_back("Red", True)
    game.submit("Blue", "o2", sealed_roll("1d6"), seed_for)
    lines = lines_of(game)
    first, second = of_type(lines, "SealedDiceRolled")
    assert of_type(lines, "TakeBackAccepted")[0]["data"]["superseded_rolls"] == [first["seq"]]
    assert [d["nonce"] for d in second["data"]["dice"]] == [2]
    rolls, _ = folds.render_dice(folds.fold("dice", lines), game.rules, "Blue", str(game.id))
    assert [r["superseded"] for r in rolls] == [True, False]


def test_FF_3_a_sealed_roll_is_the_last_roll_a_re_roll_replaces():
    game = started()
    game.submit("Blue", "o1", sealed_roll(), seed_for)
    first = of_type(lines_of(game), "SealedDiceRolled")[0]["seq"]
    game.submit("Blue", "o2", sealed_roll(replaces=first), seed_for)
    again = of_type(lines_of(game), "SealedDiceRolled")[1]["data"]
    assert again["replaces"] == first and [d["nonce"] for d in again["dice"]] == [2, 3]
