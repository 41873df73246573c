"""The Game aggregate on its own: commands assert the events they emit (no store)."""

from __future__ import annotations

import hashlib

import pytest

from domain import dice, events as ev
from domain.errors import (
    IdempotencyConflict,
    InvalidOrder,
    InvalidSetup,
    NotYourMove,
    RuleViolation,
    UnknownRuleset,
    UnknownSeat,
)
from domain.game import Game
from domain.chain import digest as chain_digest
from domain.verify import to_line, verify


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"test-seed-{epoch}".encode()).digest()


def started(sides=("Blue", "Red"), phases=("Move", "Fight"), **options) -> Game:
    game = Game.create("freeform", options={"sides": list(sides), "phases": list(phases), **options}, seed_for=seed_for)
    for side in sides:
        game.join(side, f"{side.lower()}-player", f"cs-{side}", seed_for)
    return game


def emitted(game: Game, since: int) -> list[str]:
    return [type(e).__name__ for e in game.pending_events if e.originator_version > since]


def all_events(game: Game) -> list:
    return list(game.pending_events)


def test_created_game_records_setup_and_seats_and_commits_to_the_first_dice_seed():
    game = Game.create("freeform", options={"sides": ["AR", "UK"]}, seed_for=seed_for)
    created, committed, sealed = game.pending_events
    assert isinstance(created, ev.GameCreated)
    assert (sealed.stream, sealed.epoch) == ("sealed", 0)  # the sealed dice's one seed (docs/dice.md)
    assert created.seats == ["AR", "UK"]
    assert created.setup["vp"] == {"AR": 0, "UK": 0}
    assert created.prev_hash == "0" * 64
    # Scheme 2: epoch 0's seed is committed before any seat has joined with its client seed.
    assert isinstance(committed, ev.DiceCommitted)
    assert (committed.stream, committed.epoch, committed.commitment) == ("open", 0, dice.commitment(seed_for(0)))


def test_unknown_ruleset_names_the_known_ones():
    with pytest.raises(UnknownRuleset, match="freeform"):
        Game.create("chess", seed_for=seed_for)


@pytest.mark.parametrize("options, rule", [
    ({"sides": []}, "FF 1"),
    ({"sides": ["A", "A"]}, "FF 1"),
    ({"sides": ["system"]}, "FF 1"),
    ({"phases": "Move"}, "FF 2"),
    ({"vp_track": "yes"}, "FF 4"),
])
def test_FF_1_2_4_bad_setup_names_the_rule(options, rule):
    with pytest.raises(InvalidSetup, match=rule):
        Game.create("freeform", options=options, seed_for=seed_for)


def test_seats_orders_refused_until_every_seat_joined():
    game = Game.create("freeform", options={"sides": ["Blue", "Red"]}, seed_for=seed_for)
    game.join("Blue", "alice", "", seed_for)
    version = game.version
    with pytest.raises(RuleViolation, match="waiting for Red"):
        game.submit("Blue", "o1", {"kind": "note", "text": "hello"}, seed_for)
    assert game.version == version


def test_seats_a_seat_is_taken_once_and_unknown_seats_are_named():
    game = started()
    with pytest.raises(RuleViolation, match="already taken"):
        game.join("Blue", "mallory", "", seed_for)
    with pytest.raises(UnknownSeat, match="Blue, Red"):
        game.join("Green", "x", "", seed_for)


def test_dice_epoch_0_opens_when_the_last_seat_joins_with_the_client_entropy():
    game = started()
    opened, committed = game.pending_events[-2:]
    assert isinstance(opened, ev.DiceEpochOpened)
    assert opened.epoch == 0
    assert opened.commitment == dice.commitment(seed_for(0)) == game.pending_events[1].commitment
    # sha256 of the RFC 8785 text of no orders yet and the seats' client seeds
    text = '{"orders":[],"seeds":{"Blue":"cs-Blue","Red":"cs-Red"}}'
    assert opened.client_entropy == hashlib.sha256(text.encode()).hexdigest()
    # ...and at once the commitment to the next epoch's seed, before any order of this one
    assert isinstance(committed, ev.DiceCommitted)
    assert (committed.stream, committed.epoch, committed.commitment) == ("open", 1, dice.commitment(seed_for(1)))


def test_illegal_order_records_nothing_and_names_the_rule():
    game = started(vp_track=False)
    version = game.version
    with pytest.raises(RuleViolation) as err:
        game.submit("Blue", "o1", {"kind": "vp", "side": "Blue", "delta": 1, "reason": "x"}, seed_for)
    assert err.value.rule == "FF 4"
    assert str(err.value).startswith("FF 4: ")
    assert game.version == version
    assert "o1" not in game.orders


def test_malformed_order_is_invalid_not_illegal():
    game = started()
    with pytest.raises(InvalidOrder) as err:
        game.submit("Blue", "o1", {"kind": "roll", "dice": "3x6", "purpose": "x"}, seed_for)
    assert err.value.field == "dice" and err.value.rule == "FF 3"
    with pytest.raises(InvalidOrder, match="kind"):
        game.submit("Blue", "o2", {"kind": "castle"}, seed_for)


def test_FF_3_roll_records_faces_from_the_seed_with_consecutive_nonces():
    game = started()
    first, last = game.submit("Blue", "o1", {"kind": "roll", "dice": "3d6", "purpose": "barrage",
                                             "target": {"compare": ">=", "value": 11,
                                                        "modifiers": [{"value": 1, "reason": "elite"}]}},
                              seed_for)
    accepted, rolled = game.pending_events[first - 1:last]
    assert isinstance(accepted, ev.OrderAccepted) and isinstance(rolled, ev.DiceRolled)
    entropy = dice.client_entropy_v2([], {"Blue": "cs-Blue", "Red": "cs-Red"})
    want = [dice.face2(seed_for(0), str(game.id), 0, entropy, "o1", n, 6) for n in range(3)]
    assert [d["value"] for d in rolled.dice] == want
    assert [d["nonce"] for d in rolled.dice] == [0, 1, 2]
    assert rolled.target["result"] == sum(want) + 1
    assert rolled.outcome == ("success" if sum(want) + 1 >= 11 else "failure")
    game.submit("Red", "o2", {"kind": "roll", "dice": "d10", "purpose": "morale"}, seed_for)
    assert game.pending_events[-1].dice[0]["nonce"] == 3


def test_FF_3_d66_is_two_ordered_d6_read_as_tens_and_units():
    game = started()
    game.submit("Blue", "o1", {"kind": "roll", "dice": "d66", "purpose": "event",
                               "target": {"compare": ">=", "value": 11}}, seed_for)
    rolled = game.pending_events[-1]
    a, b = (d["value"] for d in rolled.dice)
    assert rolled.target["result"] == a * 10 + b


def test_FF_3_a_reroll_names_the_roll_it_replaces_and_only_the_last():
    game = started()
    game.submit("Blue", "o1", {"kind": "roll", "dice": "d6", "purpose": "a"}, seed_for)
    first_roll = game.version
    game.submit("Blue", "o2", {"kind": "roll", "dice": "d6", "purpose": "b"}, seed_for)
    with pytest.raises(RuleViolation, match="FF 3"):
        game.submit("Blue", "o3", {"kind": "roll", "dice": "d6", "purpose": "c", "replaces": first_roll}, seed_for)
    game.submit("Blue", "o4", {"kind": "roll", "dice": "d6", "purpose": "c", "replaces": game.version}, seed_for)
    assert game.pending_events[-1].replaces == game.version - 2


def test_FF_2_turn_advance_reveals_the_seed_and_opens_the_next_epoch():
    game = started()
    game.submit("Blue", "o1", {"kind": "advance"}, seed_for)
    assert isinstance(game.pending_events[-1], ev.PhaseAdvanced)
    since = game.version
    game.submit("Blue", "o2", {"kind": "advance"}, seed_for)
    assert emitted(game, since) == ["OrderAccepted", "TurnAdvanced", "DiceEpochRevealed", "DiceEpochOpened",
                                    "DiceCommitted"]
    revealed, opened, committed = game.pending_events[-3:]
    assert revealed.seed == seed_for(0).hex()
    assert opened.epoch == 1 and opened.commitment == dice.commitment(seed_for(1))
    assert opened.client_entropy == dice.client_entropy_v2(["o1", "o2"], {"Blue": "cs-Blue", "Red": "cs-Red"})
    assert (committed.epoch, committed.commitment) == (2, dice.commitment(seed_for(2)))
    assert game.state["turn"] == 2 and game.state["phase"] == "Move"


def test_client_seed_change_applies_from_the_next_epoch():
    game = started()
    game.change_client_seed("Red", "new-red")
    game.submit("Blue", "o1", {"kind": "roll", "dice": "d6", "purpose": "a"}, seed_for)
    assert game.dice["entropy"] == dice.client_entropy_v2([], {"Blue": "cs-Blue", "Red": "cs-Red"})
    game.submit("Blue", "o2", {"kind": "advance"}, seed_for)
    game.submit("Blue", "o3", {"kind": "advance"}, seed_for)
    assert game.pending_events[-2].client_entropy == dice.client_entropy_v2(["o1", "o2", "o3"],
                                                                            {"Blue": "cs-Blue", "Red": "new-red"})


def test_FF_2_last_turn_cannot_be_advanced_past():
    game = started(phases=["Turn"], last_turn=1)
    with pytest.raises(RuleViolation, match="FF 2: turn 1 is the last turn"):
        game.submit("Blue", "o1", {"kind": "advance"}, seed_for)
    assert all(o["kind"] != "advance" for o in game.legal_orders("Blue"))


def test_FF_5_ending_the_game_reveals_the_seed_and_refuses_later_orders():
    game = started()
    since = game.version
    game.submit("Red", "o1", {"kind": "end", "winner": "Red", "level": "decisive", "reason": "took the bridge"}, seed_for)
    assert emitted(game, since) == ["OrderAccepted", "GameEnded", "DiceEpochRevealed", "SealedDiceRevealed"]
    with pytest.raises(RuleViolation, match="FF 5: the game has ended"):
        game.submit("Blue", "o2", {"kind": "note", "text": "wait"}, seed_for)
    assert game.whose_move() == [] and game.legal_orders("Blue") == []


def test_same_order_id_returns_the_first_range_and_a_different_body_conflicts():
    game = started()
    order = {"kind": "roll", "dice": "2d6", "purpose": "x"}
    rng = game.submit("Blue", "o1", order, seed_for)
    version = game.version
    assert game.submit("Blue", "o1", dict(order), seed_for) == rng
    assert game.version == version
    with pytest.raises(IdempotencyConflict):
        game.submit("Blue", "o1", {**order, "dice": "3d6"}, seed_for)


def test_concede_ends_the_game_for_the_other_side():
    game = started()
    game.concede("Blue", seed_for)
    assert game.ended["winner"] == "Red"
    assert [type(e) for e in game.pending_events[-2:]] == [ev.DiceEpochRevealed, ev.SealedDiceRevealed]


def test_every_event_chains_to_the_one_before_and_verifies():
    game = started()
    game.submit("Blue", "o1", {"kind": "roll", "dice": "2d6", "purpose": "x"}, seed_for)
    game.submit("Blue", "o2", {"kind": "advance"}, seed_for)
    game.submit("Blue", "o3", {"kind": "advance"}, seed_for)
    lines = [to_line(e) for e in game.pending_events]
    report = verify(lines)
    assert report.ok, report.summary()
    assert report.rolls_verified == 1 and report.chain_head == game.chain_head


def test_replaying_the_events_rebuilds_the_same_aggregate():
    game = started()
    game.submit("Blue", "o1", {"kind": "roll", "dice": "2d6", "purpose": "x"}, seed_for)
    game.submit("Red", "o2", {"kind": "vp", "side": "Red", "delta": 2, "reason": "y"}, seed_for)
    rebuilt = None
    for event in game.pending_events:
        rebuilt = event.mutate(rebuilt)
    for attr in ("state", "dice", "orders", "seats", "chain_head", "version", "last_order"):
        assert getattr(rebuilt, attr) == getattr(game, attr), attr


def test_a_client_seed_is_text_and_the_system_seat_has_none():
    game = Game.create("freeform", options={"sides": ["Blue", "Red"]}, seed_for=seed_for)
    with pytest.raises(InvalidOrder, match="client seed") as err:
        game.join("Blue", "alice", 12345, seed_for)
    assert err.value.field == "client_seed" and game.version == 3  # GameCreated, two DiceCommitted
    with pytest.raises(InvalidOrder, match="client seed"):
        game.join("Blue", "alice", "x" * 201, seed_for)
    game.join("Blue", "alice", None, seed_for)
    assert game.seats["Blue"]["client_seed"] == ""
    with pytest.raises(InvalidOrder, match="client seed"):
        game.change_client_seed("Blue", ["not", "text"])


def test_an_order_digest_is_salted_so_a_hidden_order_cannot_be_guessed():
    game = started()
    order = {"kind": "note", "text": "attack north", "private": True}
    game.submit("Blue", "o1", order, seed_for)
    accepted = game.pending_events[-1]
    assert len(accepted.salt) == 32
    assert accepted.digest != chain_digest({"seat": "Blue", "order": order})
    game.submit("Red", "o2", dict(order), seed_for)
    assert game.pending_events[-1].salt != accepted.salt
    assert game.submit("Blue", "o1", dict(order), seed_for) == (accepted.originator_version,) * 2


def test_FF_7_a_private_note_is_hidden_from_everyone_but_its_author_and_umpires():
    from domain.visibility import filter_lines

    game = started()
    game.submit("Blue", "o1", {"kind": "note", "text": "attack north", "private": True}, seed_for)
    game.submit("Blue", "o2", {"kind": "note", "text": "public remark"}, seed_for)
    lines = [to_line(e) for e in game.pending_events]
    for viewer in ("Red", None):
        shown = filter_lines(game.rules, lines, viewer)
        hidden = next(line for line in shown if line["data"].get("order_id") == "o1")
        # Format 2: the order, its digest and salt are commitments, their salts withheld; the line
        # keeps its hash, which still matches.
        assert "redacted" not in hidden and "attack north" not in str(shown)
        assert hidden["data"]["concealed"] == {"order": None, "digest": None, "salt": None}
        assert all(len(hidden["data"][f]) == 64 for f in ("order", "digest", "salt"))
        assert "public remark" in str(shown)
    for viewer in ("Blue", "umpire"):
        assert "attack north" in str(filter_lines(game.rules, lines, viewer))
    with pytest.raises(InvalidOrder, match="FF 7"):
        game.submit("Blue", "o3", {"kind": "note", "text": "x", "private": "yes"}, seed_for)


def test_FF_7_in_a_format_1_game_a_private_note_is_removed_and_its_line_marked_redacted(monkeypatch):
    from domain import game as game_module
    from domain.visibility import filter_lines

    monkeypatch.setattr(game_module, "FORMAT", 1)
    game = started()
    game.submit("Blue", "o1", {"kind": "note", "text": "attack north", "private": True}, seed_for)
    lines = [to_line(e) for e in game.pending_events]
    assert all("concealed" not in line["data"] for line in lines)
    shown = filter_lines(game.rules, lines, "Red")
    hidden = next(line for line in shown if line["data"].get("order_id") == "o1")
    assert hidden["redacted"] is True and "attack north" not in str(shown)
    assert hidden["data"]["order"] is None and hidden["data"]["salt"] is None and hidden["data"]["digest"] is None


def test_no_client_seed_change_after_the_game_ended():
    game = started()
    game.concede("Blue", seed_for)
    with pytest.raises(RuleViolation, match="FF 5"):
        game.change_client_seed("Red", "late")


def test_no_seat_is_joined_after_the_game_ended():
    game = Game.create("freeform", options={"sides": ["Blue", "Red"]}, seed_for=seed_for)
    game.join("Blue", "ann", "", seed_for)
    game.concede("Blue", seed_for)
    with pytest.raises(RuleViolation, match="FF 5: the game has ended"):
        game.join("Red", "bob", "", seed_for)


def test_FF_3_a_d66_roll_records_its_notation():
    from projections.narrate import describe

    game = started()
    game.submit("Blue", "o1", {"kind": "roll", "dice": "d66", "purpose": "weather"}, seed_for)
    game.submit("Blue", "o2", {"kind": "roll", "dice": "2d6", "purpose": "fire"}, seed_for)
    d66, two_d6 = (e for e in game.pending_events if isinstance(e, ev.DiceRolled))
    assert (d66.notation, two_d6.notation) == ("d66", "2d6")
    assert describe(to_line(d66)).startswith("Blue rolled d66 for weather: ")


def test_fields_given_in_another_order_are_ordered_and_unknown_or_forged_ones_refused():
    game = started()
    game.trigger_event(ev.ClientSeedChanged, client_seed="again", seat="Blue")  # the class: seat, client_seed
    event = game.pending_events[-1]
    assert list(vars(event))[-2:] == ["seat", "client_seed"] and event.client_seed == "again"
    assert game.version == event.originator_version
    with pytest.raises(TypeError):
        game.trigger_event(ev.ClientSeedChanged, seat="Blue")
    with pytest.raises(TypeError):
        game.trigger_event(ev.ClientSeedChanged, seat="Blue", client_seed="x", colour="red")
    with pytest.raises(TypeError):
        game.trigger_event(ev.ClientSeedChanged, seat="Blue", client_seed="x", hash="forged")
    assert game.pending_events[-1] is event  # nothing refused was recorded
