"""The umpire is a role the seats agree to (docs/api.md): the events the Game emits for it.

Named at creation, or proposed and appointed once every seat has accepted; ended by a revocation.
Each refusal names the rule ``umpire`` (or ``seats``).
"""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder, InvalidSetup, RuleViolation, UnknownSeat
from domain.game import APPOINTED_AT_CREATION, APPOINTED_BY_EVERY_SEAT, UMPIRE_RULE, Game
from domain.verify import to_line, verify
from projections.narrate import describe


def seed_for(epoch: int) -> bytes:
    return bytes([epoch % 256]) * 32  # the sealed dice are epoch -1


def joined(*sides: str, umpire: str | None = None) -> Game:
    game = Game.create("freeform", None, {"sides": list(sides or ("Blue", "Red"))}, umpire=umpire, seed_for=seed_for)
    for seat in sides or ("Blue", "Red"):
        game.join(seat, seat.lower(), "", seed_for)
    return game


def types_after(game: Game, version: int) -> list[str]:
    return [type(e).__name__ for e in game.pending_events if e.originator_version > version]


def replayed(game: Game) -> Game:
    """The game rebuilt from its events, as a load from the store rebuilds it."""
    again = None
    for event in game.pending_events:
        again = event.mutate(again)
    return again


def test_an_umpire_named_at_creation_is_appointed_in_the_log_before_any_seat_joins():
    game = Game.create("freeform", None, {"sides": ["Blue", "Red"]}, umpire=" Ann ", seed_for=seed_for)
    created, committed, sealed, appointed = game.pending_events
    assert [type(e).__name__ for e in (committed, sealed)] == ["DiceCommitted"] * 2  # the dice seeds come first
    assert type(appointed).__name__ == "UmpireAppointed" and appointed.originator_version == 4
    assert (appointed.umpire, appointed.agreement, appointed.seats) == ("Ann", APPOINTED_AT_CREATION, [])
    assert game.umpire == {"name": "Ann", "appointed": 4}
    assert replayed(game).umpire == game.umpire
    assert describe(to_line(appointed)) == "Ann is the umpire (named at creation), and sees hidden information"


@pytest.mark.parametrize("name", ["", "   ", "x" * 81, 7])
def test_an_umpire_named_at_creation_needs_a_name(name):
    with pytest.raises(InvalidSetup):
        Game.create("freeform", None, {"sides": ["Blue", "Red"]}, umpire=name, seed_for=seed_for)


def test_a_proposed_umpire_is_appointed_only_once_every_seat_has_accepted():
    game = joined("Blue", "Red", "Green")
    start = game.version
    game.propose_umpire("Ann", "admin")
    game.answer_umpire("Blue", True)
    game.answer_umpire("Red", True)
    assert game.umpire is None and game.umpire_proposal == {"umpire": "Ann", "accepted": ["Blue", "Red"]}
    game.answer_umpire("Green", True)
    assert types_after(game, start) == ["UmpireProposed", "UmpireAccepted", "UmpireAccepted", "UmpireAccepted",
                                        "UmpireAppointed"]
    appointed = game.pending_events[-1]
    assert (appointed.agreement, appointed.seats) == (APPOINTED_BY_EVERY_SEAT, ["Blue", "Red", "Green"])
    assert game.umpire == {"name": "Ann", "appointed": game.version} and game.umpire_proposal is None
    assert replayed(game).umpire == game.umpire
    # Plain events of the chain: the log with them verifies as any other.
    assert verify([to_line(e) for e in game.pending_events]).ok


def test_a_declined_proposal_appoints_nobody():
    game = joined()
    game.propose_umpire("Ann", "admin")
    game.answer_umpire("Blue", True)
    game.answer_umpire("Red", False)
    assert types_after(game, game.version - 3) == ["UmpireProposed", "UmpireAccepted", "UmpireDeclined"]
    assert game.umpire is None and game.umpire_proposal is None
    with pytest.raises(RuleViolation) as refused:
        game.answer_umpire("Red", True)
    assert refused.value.rule == UMPIRE_RULE


def test_a_seat_that_has_not_joined_cannot_answer_and_the_proposal_waits_for_it():
    game = Game.create("freeform", None, {"sides": ["Blue", "Red"]}, seed_for=seed_for)
    game.join("Blue", "blue", "", seed_for)
    game.propose_umpire("Ann", "admin")
    game.answer_umpire("Blue", True)
    with pytest.raises(RuleViolation) as refused:
        game.answer_umpire("Red", True)
    assert refused.value.rule == "seats"
    assert game.umpire is None
    game.join("Red", "red", "", seed_for)
    game.answer_umpire("Red", True)
    assert game.umpire["name"] == "Ann"


def test_a_seat_answers_once_and_only_a_waiting_proposal():
    game = joined()
    with pytest.raises(RuleViolation, match="no umpire proposal"):
        game.answer_umpire("Blue", True)
    with pytest.raises(RuleViolation, match="no umpire proposal"):
        game.answer_umpire("Blue", False)
    game.propose_umpire("Ann", "admin")
    game.answer_umpire("Blue", True)
    with pytest.raises(RuleViolation, match="accepted Ann already"):
        game.answer_umpire("Blue", True)
    game.answer_umpire("Blue", False)  # a seat may change its mind before the appointment
    assert type(game.pending_events[-1]).__name__ == "UmpireDeclined" and game.umpire_proposal is None
    with pytest.raises(UnknownSeat):
        game.answer_umpire("Green", True)


def test_one_proposal_at_a_time_and_none_while_an_umpire_is_appointed():
    game = joined()
    with pytest.raises(InvalidOrder) as bad:
        game.propose_umpire("  ", "admin")
    assert (bad.value.rule, bad.value.field) == (UMPIRE_RULE, "umpire")
    game.propose_umpire("Ann", "admin")
    with pytest.raises(RuleViolation, match="waiting for the seats"):
        game.propose_umpire("Bob", "admin")
    game.answer_umpire("Blue", True)
    game.answer_umpire("Red", True)
    with pytest.raises(RuleViolation, match="Ann is the umpire already") as refused:
        game.propose_umpire("Bob", "admin")
    assert refused.value.rule == UMPIRE_RULE


def test_revoking_ends_the_role_and_a_new_proposal_may_follow():
    game = joined(umpire="Ann")
    game.revoke_umpire("admin", "the game is over")
    revoked = game.pending_events[-1]
    assert (type(revoked).__name__, revoked.umpire, revoked.by) == ("UmpireRevoked", "Ann", "admin")
    assert describe(to_line(revoked)) == "admin ended Ann's role as umpire: the game is over"
    assert game.umpire is None and replayed(game).umpire is None
    with pytest.raises(RuleViolation, match="no umpire is appointed"):
        game.revoke_umpire("admin")
    game.propose_umpire("Bob", "admin")
    assert game.umpire_proposal["umpire"] == "Bob"


def test_a_seat_withdrawing_its_agreement_ends_the_role_even_one_named_at_creation():
    game = joined(umpire="Ann")
    with pytest.raises(RuleViolation, match="Ann is the umpire already"):
        game.answer_umpire("Red", True)
    game.answer_umpire("Red", False)
    revoked = game.pending_events[-1]
    assert (type(revoked).__name__, revoked.umpire, revoked.by) == ("UmpireRevoked", "Ann", "Red")
    assert revoked.reason == "the seat withdrew its agreement" and game.umpire is None
    assert describe(to_line(revoked)) == "Red ended Ann's role as umpire: the seat withdrew its agreement"


def test_umpire_events_do_not_join_the_order_before_them_so_a_take_back_still_names_only_that_order():
    game = joined()
    first, last = game.submit("Blue", "o1", {"kind": "note", "text": "hello"}, seed_for)
    game.propose_umpire("Ann", "admin")
    game.answer_umpire("Blue", True)
    game.answer_umpire("Red", True)
    assert game.order_range("o1") == (first, last)
    game.request_take_back("Blue")
    game.answer_take_back("Red", True)
    accepted = game.pending_events[-1]
    assert (accepted.superseded_from, accepted.superseded_to) == (first, last)
    assert game.umpire["name"] == "Ann"  # a take-back restores the ruleset's state, not the role
