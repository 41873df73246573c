"""Random campaigns (issue 33): a random Player (domain/rulesets/stf/play.py) plays whole
campaigns from creation with the server's dice, never crashes, never stalls, each campaign ends
with a level (STF 12.4), and each log verifies and replays to the same state.

``STF_PLAY_GAMES`` (default 5) campaigns in the quick test; the slow one plays 50."""

from __future__ import annotations

import collections
import hashlib
import os
import random
from uuid import UUID

import pytest

from domain.game import Game
from domain.rulesets.stf import play
from domain.rulesets.stf.rules import KINDS, SEQUENCE, STEPS
from domain.verify import to_line, verify
from tests.unit.stf.helpers import R, at_phase, initial, run_step

GAMES = int(os.environ.get("STF_PLAY_GAMES", "5"))


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"stf-play-{epoch}".encode()).digest()


def missing_parts() -> list[str]:
    """What the campaign needs that is not registered on this branch: the set-up orders of each
    set-up phase (STF 1-6) and the GameSystem's steps of data/sequence.json."""
    missing = []
    for p in SEQUENCE["set_up"]:
        if not any(p["phase"] in k.phases for k in KINDS.values()):
            missing.append(f"an order of the {p['phase']} phase")
    missing += [f"step {s}" for p in SEQUENCE["turn"] for s in p["system"] if s not in STEPS]
    return missing


def play_one(n: int) -> tuple[Game, int]:
    """Campaign ``n``: its orders drawn from ``random.Random(n)``, its dice from ``seed_for`` and its
    id (fixed, as the dice depend on it), so campaign ``n`` is the same in every run."""
    g = Game.create("stf", game_id=UUID(int=0x57F000 + n), seed_for=seed_for)
    g.join("Player", "player", f"p{n}", seed_for)
    accepted = play.play_game(g, random.Random(n), seed_for)
    return g, accepted


def check_campaigns(games: int) -> collections.Counter:
    assert missing_parts() == []
    levels: collections.Counter = collections.Counter()
    for n in range(games):
        g, accepted = play_one(n)
        ended = g.state["ended"]
        assert ended and ended["rule"].startswith("STF "), (n, ended)
        assert ended["winner"] in ("Player", "system", None), ended
        levels[(ended["winner"], ended["level"])] += 1
        lines = [to_line(e) for e in g.pending_events]
        report = verify(lines)
        assert report.ok, (n, report.summary())
        replayed = None
        for e in g.pending_events:  # the fold is deterministic
            replayed = g.rules.evolve(replayed, e)
        assert replayed == g.state, n
        assert accepted > SEQUENCE["length"]["turns"], (n, accepted)  # every turn's phases were ended
    return levels


def test_random_campaigns_never_crash_never_stall_and_end_with_a_level():
    levels = check_campaigns(GAMES)
    assert sum(levels.values()) == GAMES


@pytest.mark.slow
def test_fifty_random_campaigns_end_verify_and_replay():
    """Issue 33: 50 campaigns to their end, each log verifying and replaying to the same state."""
    assert sum(check_campaigns(50).values()) == 50


def test_every_order_the_campaigns_offer_is_accepted():
    """STF: legal_orders offers only legal orders (the random Player's own variations aside)."""
    for n in range(3):
        g = Game.create("stf", game_id=UUID(int=0x57F200 + n), seed_for=seed_for)
        g.join("Player", "player", f"p{n}", seed_for)
        player, k = play.RandomPlayer(random.Random(n)), 0
        while not g.is_ended:
            offered = [play.order_of(t) for t in g.rules.legal_orders(g.state, "Player")]
            assert offered, (n, g.state["turn"], g.state["phase"])
            order = next(c for c in player.candidates(g.rules, g.state) if c in offered)  # as offered, not varied
            before = g.state
            g.submit("Player", f"o{k}", order, seed_for)  # a refusal fails the test, naming the rule
            player.accepted(before, order)
            k += 1


def test_the_same_seed_plays_the_same_campaign():
    a, _ = play_one(3)
    b, _ = play_one(3)
    assert [to_line(e)["type"] for e in a.pending_events] == [to_line(e)["type"] for e in b.pending_events]
    assert a.state == b.state


# ---- the player's choices, on built states (these need no other part) ----------------------------
def test_the_player_answers_a_pending_declaration_with_an_offered_value():
    _, st = run_step(at_phase(initial(), "Random Events", turn=2), "random_events")
    d = st["pending"][0]
    player = play.RandomPlayer(random.Random(1))
    seen = set()
    for _ in range(40):
        order = next(player.candidates(R, st))
        assert order["kind"] == "declare" and order["decision"] == d["id"]
        seen.add(order["value"])
    assert seen == set(d["options"]["choices"])  # every event comes up


def test_the_player_declares_a_whole_number_anywhere_in_its_range():
    d = {"id": "declare-3", "seat": "Player", "kind": "declare", "rule": "STF 8.3",
         "options": {"type": "integer", "min": 1, "max": 4, "stands_for": "x", "what": "search_value"}}
    rng = random.Random(2)
    values = {next(play.answers(d, [], rng))["value"] for _ in range(60)}
    assert values == {1, 2, 3, 4}


def test_the_player_ends_a_phase_with_nothing_else_to_order():
    st = at_phase(initial(), "Terminal", turn=2)
    player = play.RandomPlayer(random.Random(3))
    assert list(player.candidates(R, st)) == [{"kind": "end_phase"}]


def test_the_player_ends_the_phase_after_its_most_orders_in_it():
    """With the phase's own orders offered, the player gives at most ``most`` of them, then ends it:
    a template of any kind the offer holds (here a stand-in offer of three moves)."""
    class Offer:
        def legal_orders(self, state, seat):
            return [{"kind": "move", "group": g} for g in ("P1", "P2", "P3")] + [{"kind": "end_phase"}]

    st = at_phase(initial(), "Movement", turn=1)
    player = play.RandomPlayer(random.Random(4), end_chance=0.0, most=2)
    first = next(player.candidates(Offer(), st))
    assert first["kind"] == "move"
    player.accepted(st, first)
    player.accepted(st, next(player.candidates(Offer(), st)))
    assert list(player.candidates(Offer(), st)) == [{"kind": "end_phase"}]
    assert next(player.candidates(Offer(), at_phase(st, "Movement", turn=2)))["kind"] == "move"


def test_a_game_that_waits_for_someone_else_is_reported_as_stalled():
    """play_game stops with a reason instead of looping: here a built state whose pending
    decision is owed by the system seat, which never orders (STF 6.7)."""
    g = Game.create("stf", game_id=UUID(int=0x57F0FF), seed_for=seed_for)
    g.join("Player", "player", "p", seed_for)
    g.state = {**g.state, "pending": [{"id": "x-1", "seat": "system", "kind": "x", "rule": "STF 6.7",
                                        "prompt": "?", "options": {}, "context": {"stack": []}}]}
    with pytest.raises(play.Stalled) as stalled:
        play.play_game(g, random.Random(0), seed_for)
    assert "the Player may not act (system to move)" in str(stalled.value)


def test_the_player_varies_a_zero_the_offer_gives_and_falls_back_to_the_template():
    class Offer:
        def legal_orders(self, state, seat):
            return [{"kind": "search", "group": "SR1", "search_value": 0}]

    st = at_phase(initial(), "Patrol", turn=1)
    player = play.RandomPlayer(random.Random(5), end_chance=0.0)
    values = set()
    for _ in range(300):
        tries = list(player.candidates(Offer(), st))
        assert tries[-1] == {"kind": "search", "group": "SR1", "search_value": 0}  # the offer itself, last
        assert all(t["kind"] == "search" and t["group"] == "SR1" for t in tries)
        values.update(t["search_value"] for t in tries)
    assert values == set(range(7))
