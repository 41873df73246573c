"""5. Dice derived and verified per second ÷ raw HMAC-SHA256 per second, in the same process.

Raw: ``hmac.digest(seed, message, "sha256")`` (the standard library's one-shot C path) over
messages made beforehand, of the length a die's message has. Derived: ``domain.dice.face``, the
whole derivation of docs/dice.md (message, HMAC, rejection step). Verified: ``domain.verify.verify``
over a game's export whose epochs are all revealed, counting its dice; it also checks the hash
chain of every line, which is part of verifying a die's record.
"""

from __future__ import annotations

import hmac
import random
import secrets
import time

from bench import games as made
from bench.report import Figure, Result, fmt
from bench.sources import Source
from bench.stores import fresh, migrated
from domain import dice
from domain.verify import verify

GAME_ID = "6f1c2d4e-1111-2222-3333-444455556666"
ENTROPY = "client-seed-0|client-seed-1"


def _best(fn, n: int, repeat: int = 3) -> float:
    """Operations per second: the best of ``repeat`` timed runs of ``fn(n)``."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - started)
    return n / best


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


def run(quick: bool) -> Result:
    result = Result("dice", "5. Dice derived and verified per second")
    n = 20_000 if quick else 300_000
    seed = secrets.token_bytes(dice.SEED_BYTES)
    messages = [f"{GAME_ID}|3|{ENTROPY}|{i}|0".encode() for i in range(n)]

    def raw(count):
        for m in messages[:count]:
            hmac.digest(seed, m, "sha256")

    def derive(count):
        for i in range(count):
            dice.face(seed, GAME_ID, 3, ENTROPY, i, 6)

    lines = _dice_game(quick)
    report = verify(lines)
    assert report.ok, report.summary()
    dice_count = report.dice_verified

    def check(times):
        for _ in range(times):
            verify(lines)

    base = _best(raw, n)
    derived = _best(derive, n)
    repeats = 1 if quick else 5
    verified = _best(check, repeats) * dice_count
    result.figures.append(Figure("dice derived/s (domain.dice.face)", derived, "dice/s", base, "HMACs/s",
                                 "raw HMAC-SHA256", derived / base, ">= 0.5", derived / base >= 0.5))
    result.figures.append(Figure("dice verified/s (domain.verify.verify)", verified, "dice/s", base, "HMACs/s",
                                 "raw HMAC-SHA256", verified / base, ">= 0.5", verified / base >= 0.5))
    result.notes.append(f"{fmt(n)} HMACs and derivations (best of 3 runs); verification over a game of "
                        f"{len(lines):,} events holding {dice_count:,} dice in {report.epochs_revealed} revealed "
                        f"epochs, hash chain included (best of {repeats})")
    return result
