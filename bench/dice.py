"""8. Dice derived and verified per second ÷ raw HMAC-SHA256 per second, in the same process.

Raw: ``hmac.digest(seed, message, "sha256")`` (the standard library's one-shot C path) over
messages made beforehand, of the length a die's message has. Derived: ``domain.dice.face``, the
whole derivation of docs/dice.md (message, HMAC, rejection step). Verified: ``domain.verify.verify``
over a game's export whose epochs are all revealed, counting its dice; it also checks the hash
chain of every line, which is part of verifying a die's record.

The three are timed in interleaved rounds (raw, derived, verified, then again), each run over as
many dice as the game holds, and each figure is the best of its rounds: on a shared machine a
load that comes and goes then weighs on the figure and its baseline alike.
"""

from __future__ import annotations

import hmac
import random
import secrets
import time

from bench import games as made
from bench.report import Figure, Result
from bench.sources import Source
from bench.stores import fresh, migrated
from domain import dice
from domain.verify import verify

GAME_ID = "6f1c2d4e-1111-2222-3333-444455556666"
ENTROPY = "client-seed-0|client-seed-1"


def _dice_game(quick: bool) -> list[dict]:
    """The export lines of a game of many rolls of 10d6, each turn's epoch revealed."""
    def order(state, seat, rng):
        if rng.random() < 0.05:
            return {"kind": "advance"}
        return {"kind": "roll", "dice": "10d6", "purpose": "barrage"}

    source = Source("freeform", order, options={"sides": ["Blue", "Red"], "phases": ["Fire"]},
                    needs_state=False, end_order=lambda s, seat, rng: {"kind": "end", "winner": None, "reason": "done"})
    with fresh("sqlite") as store:
        app = migrated(store)
        try:
            gid = made.play_to_events(app, source, random.Random(5), 600 if quick else 6000)
            return app.lines(gid)
        finally:
            app.close()


def _timed(fn, *args) -> float:
    started = time.perf_counter()
    fn(*args)
    return time.perf_counter() - started


def run(quick: bool) -> Result:
    result = Result("dice", "8. Dice derived and verified per second")
    seed = secrets.token_bytes(dice.SEED_BYTES)
    lines = _dice_game(quick)
    report = verify(lines)
    assert report.ok, report.summary()
    n = report.dice_verified  # every round times each way over this many dice
    messages = [f"{GAME_ID}|3|{ENTROPY}|{i}|0".encode() for i in range(n)]

    def raw():
        for m in messages:
            hmac.digest(seed, m, "sha256")

    def derive():
        for i in range(n):
            dice.face(seed, GAME_ID, 3, ENTROPY, i, 6)

    rounds = 3 if quick else 15
    best = {raw: float("inf"), derive: float("inf"), verify: float("inf")}
    for _ in range(rounds):
        for fn in best:
            best[fn] = min(best[fn], _timed(fn, lines) if fn is verify else _timed(fn))
    base, derived, verified = n / best[raw], n / best[derive], n / best[verify]
    result.figures.append(Figure("dice derived/s (domain.dice.face)", derived, "dice/s", base, "HMACs/s",
                                 "raw HMAC-SHA256", derived / base, ">= 0.5", derived / base >= 0.5))
    result.figures.append(Figure("dice verified/s (domain.verify.verify)", verified, "dice/s", base, "HMACs/s",
                                 "raw HMAC-SHA256", verified / base, ">= 0.5", verified / base >= 0.5))
    result.notes.append(f"{rounds} interleaved rounds, the best of each: {n:,} HMACs, {n:,} derivations, "
                        f"and one verification of a game of {len(lines):,} events holding {n:,} dice in "
                        f"{report.epochs_revealed} revealed epochs, hash chain included")
    return result
