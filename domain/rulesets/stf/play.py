"""A random Player, for the fuzzer (tests/unit/stf/test_play.py), the API test of a whole
campaign (tests/api/test_stf_campaign.py) and the benchmarks.

It plays only what ``legal_orders`` offers (each template is a filled-in legal order), drawn with
a seeded ``random.Random``: the same seed and the same dice give the same campaign. A pending
decision is answered from its options (a declared value anywhere in its range, a listed choice);
otherwise it gives a few of the phase's orders and then ends the phase (STF 6.7), so every turn
moves on. The dice are the server's (the ``Game`` aggregate's Roller, or any dice object with
``roll`` and ``close_epoch``): the player never chooses a face.

    player = RandomPlayer(random.Random(7))
    while not game.is_ended:
        for order in player.candidates(game.rules, game.state, "Player"):
            try: game.submit("Player", next_id(), order, seed_for); break
            except (RuleViolation, InvalidOrder): continue   # refused: try the next candidate
"""

from __future__ import annotations

import random
from typing import Any, Iterator

from domain.errors import InvalidOrder, RuleViolation

SEAT = "Player"
# The chance, at each order, that the Player ends a phase in which it could still order more.
END_CHANCE = 0.35
# At most this many of the Player's own orders in one phase, then the phase is ended.
MOST_PER_PHASE = 6
# A template's words for the pages and the CLI, not fields of the order (turn.py's templates).
SHOWN_ONLY = ("title", "rule")


class Stalled(AssertionError):
    """The game waits for the Player, and nothing the Player may order is accepted."""


class RandomPlayer:
    def __init__(self, rng: random.Random, *, end_chance: float = END_CHANCE, most: int = MOST_PER_PHASE):
        self.rng = rng
        self.end_chance = end_chance
        self.most = most
        self.given: dict[tuple, int] = {}  # (turn, phase) -> orders accepted in it

    def accepted(self, state: dict, order: dict) -> None:
        """Count an order of the phase (call it with the state the order was given in)."""
        if order.get("kind") not in ("declare", "decide", "end_phase"):
            key = (state.get("turn"), state.get("phase"))
            self.given[key] = self.given.get(key, 0) + 1

    def candidates(self, rules: Any, state: dict, seat: str = SEAT) -> Iterator[dict]:
        """Orders to try in turn, the likeliest first; the last is always one the offer holds."""
        offer = rules.legal_orders(state, seat)
        if state.get("pending"):
            yield from answers(state["pending"][0], offer, self.rng)
            return
        ends = [o for o in offer if o.get("kind") == "end_phase"]
        others = [o for o in offer if o.get("kind") != "end_phase"]
        self.rng.shuffle(others)
        done = self.given.get((state.get("turn"), state.get("phase")), 0)
        if ends and (not others or done >= self.most or self.rng.random() < self.end_chance):
            yield order_of(ends[0])
            return
        for o in others[:8]:
            varied = self.vary(o)
            if varied is not None:
                yield varied
            yield order_of(o)
        yield from (order_of(o) for o in ends)

    def vary(self, template: dict) -> dict | None:
        """Half the time, the template with each whole number it gives as 0 drawn from 0-6
        instead: a 0 in an offered order is the least of a range the offer does not spell out
        (a declared search value, hits reported), so random campaigns reach the other results.
        A variant the rules refuse is followed by the template itself."""
        zeros = [k for k, v in template.items() if type(v) is int and v == 0 and k not in SHOWN_ONLY]
        if not zeros or self.rng.random() < 0.5:
            return None
        return {**order_of(template), **{k: self.rng.randint(0, 6) for k in zeros}}


def answers(decision: dict, offer: list[dict], rng: random.Random) -> Iterator[dict]:
    """Answers to a pending decision: for a declared whole number, a value drawn from its range;
    else the offered answers in a random order."""
    opts = decision.get("options") if isinstance(decision.get("options"), dict) else {}
    if decision.get("kind") == "declare" and opts.get("type") == "integer":
        yield {"kind": "declare", "decision": decision["id"], "value": rng.randint(opts["min"], opts["max"])}
    offer = list(offer)
    rng.shuffle(offer)
    yield from (order_of(o) for o in offer)


def order_of(template: dict) -> dict:
    """The order a legal-order template stands for: the template less its words for readers."""
    return {k: v for k, v in template.items() if k not in SHOWN_ONLY}


def play_game(game: Any, rng: random.Random, seed_for: Any, *, player: RandomPlayer | None = None,
              limit: int = 5000, prefix: str = "o") -> int:
    """Play ``game`` (a ``domain.game.Game`` with the Player joined) to its end with random legal
    orders; returns the number of orders accepted. Raises ``Stalled`` when the Player may not
    act or no candidate is accepted, and AssertionError past ``limit`` orders."""
    player = player or RandomPlayer(rng)
    accepted = 0
    while not game.is_ended:
        if SEAT not in game.whose_move():
            raise Stalled(f"the Player may not act ({', '.join(game.whose_move()) or 'nobody'} to move) in turn "
                          f"{game.state.get('turn')}, {game.state.get('phase')}")
        refused: list[str] = []
        for order in player.candidates(game.rules, game.state, SEAT):
            before = game.state
            try:
                game.submit(SEAT, f"{prefix}{accepted}", order, seed_for)
            except (RuleViolation, InvalidOrder) as no:
                refused.append(f"{order.get('kind')}: {no}")
                continue
            player.accepted(before, order)
            accepted += 1
            break
        else:
            raise Stalled(f"turn {game.state.get('turn')}, {game.state.get('phase')}: no order accepted"
                          + (f" (refused: {'; '.join(refused)})" if refused else " (none offered)"))
        if accepted >= limit:
            raise AssertionError(f"the campaign does not end within {limit} orders")
    return accepted
