"""Simultaneous sealed orders (FF 8, docs/dice.md "Sealed orders") on the aggregate alone."""

from __future__ import annotations

import hashlib
import json
import secrets

import pytest

from domain import chain, dice, sealed
from domain.errors import CommitmentMismatch, InvalidOrder, InvalidSetup, RuleViolation
from domain.game import Game
from domain.verify import to_line, verify


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"test-seed-{epoch}".encode()).digest()


def sealed_game(sides=("Blue", "Red"), **options) -> Game:
    game = Game.create("freeform", options={"sides": list(sides), "sealed_orders": True, **options}, seed_for=seed_for)
    for side in sides:
        game.join(side, f"{side.lower()}-player", "", seed_for)
    return game


def commit(game: Game, seat: str, orders: list) -> str:
    salt = secrets.token_hex(16)
    game.seal(seat, sealed.commitment(str(game.id), seat, game.sealed["round"], orders, salt))
    return salt


def types(game: Game, since: int = 0) -> list[str]:
    return [type(e).__name__ for e in game.pending_events if e.originator_version > since]


def test_the_commitment_is_sha256_of_the_canonical_json_of_game_seat_round_orders_and_salt():
    orders = [{"kind": "note", "text": "é"}]
    body = {"game": "g", "seat": "Blue", "round": 1, "orders": orders, "salt": "ab" * 16}
    want = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode()).hexdigest()
    assert sealed.commitment("g", "Blue", 1, orders, "ab" * 16) == want
    # The fixed vector of docs/dice.md
    assert sealed.commitment("00000000-0000-0000-0000-000000000001", "Blue", 1,
                             [{"kind": "advance"}], "00" * 16) == DOC_VECTOR


# docs/dice.md section 8: computed with sha256sum over the canonical JSON written out by hand.
DOC_VECTOR = "5a0c5476ce0be133eee71eeceec1a79ca9d2e2ae8288dafb4cb04faa6730580d"


def test_the_fixed_vector_is_the_one_docs_dice_md_gives():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "dice.md").read_text(encoding="utf-8")
    assert DOC_VECTOR in text


def test_FF_8_a_round_opens_once_every_side_has_joined_and_ordinary_orders_are_refused():
    game = sealed_game()
    assert game.sealed_status() == {"round": 1, "rule": "FF 8", "seats": ["Blue", "Red"], "committed": [],
                                    "revealed": [], "must_commit": ["Blue", "Red"], "must_reveal": []}
    assert game.whose_move() == ["Blue", "Red"]
    with pytest.raises(RuleViolation, match="FF 8: sealed-orders round 1 is open"):
        game.submit("Blue", "o1", {"kind": "advance"}, seed_for)
    with pytest.raises(RuleViolation, match="FF 8"):
        game.request_take_back("Blue")


def test_FF_8_the_option_is_true_or_false_and_games_without_it_have_no_round():
    with pytest.raises(InvalidSetup, match="FF 8"):
        Game.create("freeform", options={"sealed_orders": "yes"}, seed_for=seed_for)
    game = Game.create("freeform", options={"sides": ["A", "B"]}, seed_for=seed_for)
    assert "sealed_orders" not in game.options
    game.join("A", "a", "", seed_for)
    game.join("B", "b", "", seed_for)
    assert game.sealed_status() is None
    with pytest.raises(RuleViolation, match="no sealed-orders round is open"):
        game.seal("A", "0" * 64)


def test_FF_8_reveals_wait_for_every_commitment_and_then_orders_are_carried_out_in_side_order_with_dice():
    game = sealed_game()
    red_orders = [{"kind": "roll", "dice": "2d6", "purpose": "red fire"}, {"kind": "note", "text": "red"}]
    blue_orders = [{"kind": "roll", "dice": "1d6", "purpose": "blue fire"}]
    red_salt = commit(game, "Red", red_orders)
    assert game.sealed_status()["committed"] == ["Red"]
    assert game.whose_move() == ["Blue"]
    with pytest.raises(RuleViolation, match="waiting for Blue"):
        game.reveal("Red", red_orders, red_salt, seed_for)
    blue_salt = commit(game, "Blue", blue_orders)
    assert game.sealed_status()["must_reveal"] == ["Blue", "Red"]
    before = game.version
    game.reveal("Red", red_orders, red_salt, seed_for)  # Red first: its orders wait for Blue's
    assert types(game, before) == ["OrderRevealed"]
    assert game.whose_move() == ["Blue"]
    before = game.version
    game.reveal("Blue", blue_orders, blue_salt, seed_for)
    assert types(game, before) == ["OrderRevealed", "SealedOrdersCarriedOut",
                                   "OrderAccepted", "DiceRolled",  # Blue first: side order
                                   "OrderAccepted", "DiceRolled", "OrderAccepted",
                                   "SealedRoundOpened"]
    events = [e for e in game.pending_events if e.originator_version > before]
    assert events[1].sequence == [{"seat": "Blue", "index": 0, "order_id": "sealed:1:Blue:0"},
                                  {"seat": "Red", "index": 0, "order_id": "sealed:1:Red:0"},
                                  {"seat": "Red", "index": 1, "order_id": "sealed:1:Red:1"}]
    assert [e.purpose for e in events if type(e).__name__ == "DiceRolled"] == ["blue fire", "red fire"]
    assert game.sealed_status()["round"] == 2
    assert verify([to_line(e) for e in game.pending_events]).reveals_verified == 2


def test_FF_8_a_reveal_that_does_not_match_is_refused_and_records_nothing():
    game = sealed_game()
    orders = [{"kind": "vp", "side": "Blue", "delta": 1, "reason": "r"}]
    salt = commit(game, "Blue", orders)
    commit(game, "Red", [])
    before = game.version
    with pytest.raises(CommitmentMismatch, match="do not hash to Blue's commitment"):
        game.reveal("Blue", [{**orders[0], "delta": 5}], salt, seed_for)
    with pytest.raises(CommitmentMismatch):
        game.reveal("Blue", orders, secrets.token_hex(16), seed_for)
    assert game.version == before
    with pytest.raises(InvalidOrder, match="salt"):
        game.reveal("Blue", orders, "abc", seed_for)
    with pytest.raises(InvalidOrder, match="list of at most 20"):
        game.reveal("Blue", [{"kind": "note"}] * 21, salt, seed_for)
    game.reveal("Blue", orders, salt, seed_for)
    assert game.reveal("Blue", orders, salt, seed_for) is not None  # the same reveal again: nothing new


def test_FF_8_a_second_different_commitment_is_refused_the_same_again_records_nothing():
    game = sealed_game()
    commitment = sealed.commitment(str(game.id), "Blue", 1, [], "11" * 16)
    game.seal("Blue", commitment)
    version = game.version
    assert game.seal("Blue", commitment) == version
    with pytest.raises(RuleViolation, match="cannot be changed"):
        game.seal("Blue", "f" * 64)
    with pytest.raises(InvalidOrder, match="64 lowercase hex"):
        game.seal("Red", "F" * 64)
    with pytest.raises(RuleViolation, match="has not sealed"):
        game.reveal("Red", [], "11" * 16, seed_for)
    assert game.version == version


def test_FF_8_an_order_refused_when_carried_out_is_recorded_with_its_rule_and_the_rest_go_on():
    game = sealed_game(last_turn=1)
    blue = [{"kind": "end", "winner": "Blue", "reason": "over"}]
    red = [{"kind": "advance"}, {"kind": "note", "text": "late"}]
    salts = {"Blue": commit(game, "Blue", blue), "Red": commit(game, "Red", red)}
    game.reveal("Red", red, salts["Red"], seed_for)
    before = game.version
    game.reveal("Blue", blue, salts["Blue"], seed_for)
    events = [e for e in game.pending_events if e.originator_version > before]
    refused = [e for e in events if type(e).__name__ == "SealedOrderRefused"]
    assert [(e.seat, e.index, e.rule) for e in refused] == [("Red", 0, "FF 5"), ("Red", 1, "FF 5")]
    assert game.is_ended and game.sealed_status() is None


def test_FF_8_an_illegal_revealed_order_is_refused_naming_its_rule_and_the_next_is_carried_out():
    game = sealed_game()
    blue = [{"kind": "vp", "side": "Nobody", "delta": 1, "reason": "x"}, {"kind": "note", "text": "ok"}]
    salt = commit(game, "Blue", blue)
    commit_red = commit(game, "Red", [])
    game.reveal("Red", [], commit_red, seed_for)
    before = game.version
    game.reveal("Blue", blue, salt, seed_for)
    assert types(game, before) == ["OrderRevealed", "SealedOrdersCarriedOut", "SealedOrderRefused",
                                   "OrderAccepted", "SealedRoundOpened"]
    refused = next(e for e in game.pending_events if type(e).__name__ == "SealedOrderRefused")
    assert refused.rule == "FF 4" and "'side' is one of" in refused.reason


def test_order_ids_of_revealed_sealed_orders_are_the_servers():
    game = Game.create("freeform", options={"sides": ["A", "B"]}, seed_for=seed_for)
    game.join("A", "a", "", seed_for)
    game.join("B", "b", "", seed_for)
    with pytest.raises(InvalidOrder, match="server's"):
        game.submit("A", "sealed:1:A:0", {"kind": "advance"}, seed_for)


def test_verify_names_the_line_of_a_reveal_that_does_not_match_its_commitment_even_rehashed():
    game = sealed_game()
    orders = [{"kind": "note", "text": "hold"}]
    salt = commit(game, "Blue", orders)
    red_salt = commit(game, "Red", [])
    game.reveal("Blue", orders, salt, seed_for)
    game.reveal("Red", [], red_salt, seed_for)
    lines = [to_line(e) for e in game.pending_events]
    at = next(i for i, line in enumerate(lines) if line["type"] == "OrderRevealed")
    lines[at]["data"]["orders"] = [{"kind": "note", "text": "attack"}]
    prev = chain.GENESIS
    for line in lines:  # a forger who recomputes every hash after the change
        line["prev_hash"] = prev
        line["hash"] = chain.line_hash(line)
        prev = line["hash"]
    report = verify(lines)
    # and the order carried out, the one Blue committed to, is not the forged reveal's (docs/dice.md section 8)
    carried = next(i for i, line in enumerate(lines) if line["data"].get("order_id") == "sealed:1:Blue:0")
    assert report.failures == [(at + 1, "the orders Blue revealed for round 1 do not match its commitment"),
                               (carried + 1, f"order 'sealed:1:Blue:0' is not order 0 of the orders Blue revealed for "
                                             f"round 1 on line {at + 1}, as Blue's: the reveal binds the orders carried "
                                             "out under it")]


def test_the_log_replays_to_the_same_round_and_the_map_view_shows_what_the_aggregate_does():
    from projections import folds

    game = sealed_game()
    orders = [{"kind": "roll", "dice": "1d6", "purpose": "p"}]
    salt = commit(game, "Blue", orders)
    red_salt = commit(game, "Red", [])
    game.reveal("Blue", orders, salt, seed_for)
    game.reveal("Red", [], red_salt, seed_for)
    commit(game, "Red", [{"kind": "note", "text": "n"}])
    lines = [to_line(e) for e in game.pending_events]
    replayed = None
    for line in lines:  # as warlog import folds a file
        replayed = folds.to_event(line, "freeform").mutate(replayed)
    assert replayed.sealed == game.sealed and replayed.sealed_rounds == 2
    view = folds.fold("map", lines)
    assert folds.sealed_of(view) == game.sealed_status() and view["whose_move"] == game.whose_move() == ["Blue"]


def test_a_revealed_private_note_is_concealed_from_the_other_seats_with_its_salt():
    from domain.visibility import filter_lines

    game = sealed_game()
    orders = [{"kind": "note", "text": "SECRET-FORD", "private": True}, {"kind": "note", "text": "open"}]
    salt, red_salt = commit(game, "Blue", orders), commit(game, "Red", [])
    game.reveal("Blue", orders, salt, seed_for)
    game.reveal("Red", [], red_salt, seed_for)
    lines = [to_line(e) for e in game.pending_events]
    revealed = next(line for line in lines if line["type"] == "OrderRevealed" and line["data"]["seat"] == "Blue")
    assert set(revealed["data"]["concealed"]) == {"orders", "salt"}
    reds = filter_lines(game.rules, lines, "Red")
    seen = next(line for line in reds if line["seq"] == revealed["seq"])["data"]
    assert "SECRET-FORD" not in json.dumps(reds) and seen["concealed"] == {"orders": None, "salt": None}
    assert '"text": "open"' in json.dumps(reds)  # the public order, carried out as an OrderAccepted
    assert filter_lines(game.rules, lines, "Blue") == lines
    # Red's copy verifies, its reveal not checked (Red holds only the commitments); the full log checks it.
    report = verify(reds)
    assert report.ok and report.reveals_verified == 1 and report.fields_concealed >= 2, report.summary()
    assert verify(lines).reveals_verified == 2


def test_FF_8_a_seat_with_a_key_signs_its_seal_and_reveal_and_its_revealed_orders_carry_no_order_signatures():
    """Issue 34: a keyed seat signs its seal and its reveal (SealedOrdersSigned after each); the
    orders revealed are bound by them, not by an OrderSigned each (docs/dice.md, "Signed orders
    and heads"); verify accepts the log."""
    from domain import signatures

    key = signatures.new_private_key()
    game = Game.create("freeform", options={"sides": ["Blue", "Red"], "sealed_orders": True}, seed_for=seed_for)
    game.join("Blue", "blue-player", "", seed_for, public_key=signatures.public_key_of(key))
    game.join("Red", "red-player", "", seed_for)
    in_log = {e.hash for e in game.pending_events}.__contains__
    orders = {"Blue": [{"kind": "roll", "dice": "d6", "purpose": "blue"}], "Red": []}
    salts = {seat: secrets.token_hex(16) for seat in orders}
    gid, head = str(game.id), game.chain_head
    for seat in ("Blue", "Red"):
        commitment = sealed.commitment(gid, seat, 1, orders[seat], salts[seat])
        signed = (signatures.sign_seal(key, gid, seat, 1, commitment, head), head, in_log) if seat == "Blue" else None
        game.seal(seat, commitment, signed)
    for seat in ("Blue", "Red"):
        signed = (signatures.sign_reveal(key, gid, seat, 1, orders[seat], salts[seat], head), head, in_log)
        game.reveal(seat, orders[seat], salts[seat], seed_for, signed if seat == "Blue" else None)
    assert types(game).count("SealedOrdersSigned") == 2 and "OrderSigned" not in types(game)
    assert "OrderAccepted" in types(game)
    report = verify([to_line(e) for e in game.pending_events])
    assert report.ok and report.sealed_signatures_verified == 2, report.summary()


def test_the_seats_commitments_enter_the_next_client_entropy_since_the_orders_ids_are_the_servers():
    """A game of sealed rounds only: its accepted orders' ids (sealed:R:S:I) are the server's and
    predictable, so each OrderSealed's commitment (with its seat's secret salt) counts as that
    seat's input to the next epoch's client entropy (docs/dice.md, scheme 2), and verify checks it."""
    game = sealed_game()
    orders = {"Blue": [{"kind": "roll", "dice": "d6", "purpose": "x"}], "Red": [{"kind": "advance"}]}
    salts = {seat: commit(game, seat, orders[seat]) for seat in ("Blue", "Red")}
    for seat in ("Blue", "Red"):
        game.reveal(seat, orders[seat], salts[seat], seed_for)
    lines = [to_line(e) for e in game.pending_events]
    opened = [line for line in lines if line["type"] == "DiceEpochOpened"][1]
    inputs = [line["data"]["commitment"] if line["type"] == "OrderSealed" else line["data"]["order_id"]
              for line in lines if line["type"] in ("OrderSealed", "OrderAccepted")]
    assert any(i.startswith("sealed:") for i in inputs) and len(inputs) == 4
    assert opened["data"]["client_entropy"] == dice.client_entropy_v2(inputs, {"Blue": "", "Red": ""})
    assert verify(lines).ok
