"""``evolve`` never mutates its input, and no command changes a state it was handed (the ruleset
contract, domain/rulesets/core.py): every state the game has held stays what it was. The Game
relies on it: the state before an order is kept for a take-back by reference, not copied."""

from __future__ import annotations

import copy
import hashlib
import json
import random

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.game import Game
from domain.rulesets.falklands import play as falklands_play
from domain.rulesets.falklands.hooks import asked_again

from bench.sources import freeform_order


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"states-{epoch}".encode()).digest()


def frozen(state) -> str:
    return json.dumps(state, sort_keys=True)


def orders_for(ruleset: str, game: Game, seat: str, rng: random.Random):
    if ruleset == "falklands":
        yield from falklands_play.candidates(game.rules, game.state, seat, rng)
    else:
        yield freeform_order(game.state, seat, rng)


def play_holding_states(ruleset: str, options: dict, rng: random.Random, orders: int,
                        held: list[tuple[object, str]]) -> int:
    """One game of up to ``orders`` random orders, some taken back; every state the game holds
    is added to ``held`` with what it was then. Returns the number of take-backs."""
    game = Game.create(ruleset, options=options, seed_for=seed_for)
    for n, seat in enumerate(game.human_seats()):
        game.join(seat, f"p{n}", f"c{n}", seed_for)
    take_backs = 0
    for k in range(orders):
        if game.is_ended:
            break
        held.append((game.state, frozen(game.state)))
        seat = rng.choice(game.whose_move())
        for order in orders_for(ruleset, game, seat, rng):
            try:
                game.submit(seat, f"o{k}", order, seed_for)
                break
            except (InvalidOrder, RuleViolation):
                continue
        held.append((game.state, frozen(game.state)))
        if rng.random() < 0.1 and game.last_order is not None and not game.is_ended:
            before = copy.deepcopy(game.last_order["state_before"])
            other = next(s for s in game.human_seats() if s != game.last_order["seat"])
            game.request_take_back(game.last_order["seat"])
            game.answer_take_back(other, True)
            # the take-back restored the state before the order (Falklands counts its take-backs
            # besides, and keeps the ids of the decisions they took back, so that a decision asked
            # again, or waiting again, gets an id of its own and an answer to one taken back is
            # refused saying so: docs/rulesets.md)
            counted = ("take_backs", "taken_back_decisions")
            restored = {k: v for k, v in game.state.items() if k not in counted}
            if ruleset == "falklands" and before.get("pending"):
                k = game.state["take_backs"]
                before["pending"] = [{**p, "id": asked_again(p["id"], k)} for p in before["pending"]]
                assert {p["id"] for p in before["pending"]}.isdisjoint(game.state["taken_back_decisions"])
            assert restored == {k: v for k, v in before.items() if k not in counted}
            assert game.state.get("take_backs", 0) == (before.get("take_backs", 0) + 1 if ruleset == "falklands" else 0)
            take_backs += 1
    return take_backs


@pytest.mark.parametrize("ruleset, options", [
    ("freeform", {"sides": ["Blue", "Red"], "phases": ["Move", "Fight"], "vp_track": True}),
    ("falklands", {"uk_operations": 30}),
])
def test_every_state_a_game_held_is_unchanged_at_the_end(ruleset, options):
    # The dice hang on each game's random id, so games differ from run to run: play until
    # enough states and take-backs were seen.
    rng = random.Random(1)
    held: list[tuple[object, str]] = []
    take_backs = games = 0
    while (len(held) < 400 or take_backs < 5) and games < 30:
        take_backs += play_holding_states(ruleset, options, rng, 200, held)
        games += 1
    assert len(held) >= 400 and take_backs >= 5, (len(held), take_backs)
    changed = [n for n, (state, then) in enumerate(held) if frozen(state) != then]
    assert not changed, f"{len(changed)} state(s) changed after the game held them, the first at #{changed[0]}"
