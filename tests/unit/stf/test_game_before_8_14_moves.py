"""Solitaire Task Force campaigns recorded before the Movement phase lost its ``proximity_reveals``
step (STF 8.14, 8.15 now reveal on the GameSystem group's own move) fold and play on with today's
code. tests/data/stf_before_8_14_moves.jsonl.gz holds two campaigns written by the code of commit
def1d8f with the random Player (domain/rulesets/stf/play.py), stopped mid-turn: one in turn 2's
Movement phase after a Player move (its ``end_phase`` once ran ``proximity_reveals``), one waiting
on a combat result in the Combat phase (a recorded step stack)."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from pathlib import Path

from domain.rulesets.stf import play
from domain.rulesets.stf.rules import STEPS
from domain.verify import to_line, verify
from projections.folds import to_event

EXPORT = Path(__file__).resolve().parents[2] / "data" / "stf_before_8_14_moves.jsonl.gz"


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"stf-play-{epoch}".encode()).digest()


def old_games() -> dict[str, list[dict]]:
    games: dict[str, list[dict]] = {}
    with gzip.open(EXPORT, "rt", encoding="utf-8") as f:
        for line in f:
            data = json.loads(line)
            games.setdefault(data["game_id"], []).append(data)
    return games


def test_stf_8_14_campaigns_recorded_with_proximity_reveals_fold_and_play_to_their_end():
    games = old_games()
    stopped = set()
    for n, lines in enumerate(games.values()):
        events = [to_event(line, "stf") for line in lines]
        game = None
        for e in events:
            game = e.mutate(game)
        state = None
        for e in events:
            state = game.rules.evolve(state, e)
        assert state == game.state and not game.is_ended
        stopped.add((game.state["phase"], bool(game.state["pending"])))
        # a recorded stack names only steps registered today (proximity_reveals never waited in one)
        for line in lines:
            if line["type"] == "DecisionPending":
                assert all(f["step"] in STEPS for f in line["data"]["decision"]["context"]["stack"]), line["seq"]
        play.play_game(game, random.Random(n), seed_for, prefix="today-")
        ended = game.state["ended"]
        assert ended and ended["rule"].startswith("STF "), ended
        report = verify(lines + [to_line(e) for e in game.pending_events])
        assert report.ok, report.summary()
    assert stopped == {("Movement", False), ("Combat", True)}
