"""Round 13 read as an umpire: a game in progress at the upgrade. FS 11.3 4-1/4-3 is now offered
after each die as it is rolled (combat.offer_reroll); a game recorded before, waiting on a battle's
one Decisive Leader question about all of its dice, goes on under today's code with the answer its
players would have sent then, and is played to its end.

The export tests/data/falklands_leader_pending_round12.jsonl.gz was written by the code of commit
ae786a28 (before this round): a seeded random game (30 UK operations) whose UK player kept every
die until Salta's Op #14 attack on the UK carrier group in Sea Area 4, 17 dice, Hermes and
Invincible among the defenders (a battle with ``shots_as_fired``), where it waits on
``leadership-5.2.12-2``, the question offering any one of the 17."""

from __future__ import annotations

import copy
import gzip
import json
import random
from pathlib import Path

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import play as random_play
from projections.folds import to_event

from .helpers import R, UK, FixedDice, empty, events_of, fold_all, op, pending, place, play, rolls_of

EXPORT = Path(__file__).resolve().parents[2] / "data" / "falklands_leader_pending_round12.jsonl.gz"


def recorded() -> tuple[dict, list[dict]]:
    """The state the recorded events fold to, and the lines."""
    with gzip.open(EXPORT, "rt", encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    state = None
    for line in lines:
        if line["type"] == "GameCreated":  # an export sorts keys: start from today's set-up, in its order
            state = R.setup(line["data"]["scenario"], line["data"]["options"]).state
        else:
            state = R.evolve(state, to_event(line, "falklands"))
    return state, lines


def play_to_the_end(state: dict, rng: random.Random, most: int = 3000) -> dict:
    """Random orders the server takes, with random dice, until the game ends."""
    for _ in range(most):
        if state.get("ended"):
            return state
        seat = R.actors(state)[0]
        for order in random_play.candidates(R, state, seat, rng):
            dice = FixedDice(*[rng.randint(1, 6) for _ in range(400)])
            try:
                out = R.decide(copy.deepcopy(state), seat, order, dice)
            except (RuleViolation, InvalidOrder):
                continue
            state = fold_all(state, out)
            break
        else:
            raise AssertionError(f"no order taken for {seat} in {state['phase']}")
    raise AssertionError("the game does not end")


@pytest.mark.parametrize("die", [None, 1, 16])
def test_fs_11_3_4_1_a_battle_waiting_on_the_leader_question_recorded_before_round_13_goes_on(die):
    """The recorded question offers every die of the battle (its frame has no ``leader_each_die``);
    its answer ``{"reroll": i}`` for any of them, Hermes' die (1) too, which a question asked today
    would refuse (not the die just rolled), or null, is taken: the marker is played, that die alone
    is rolled again (``replaces`` its recorded seq), nothing more is asked of the marker, the hits
    take effect and the game plays on to its end."""
    state, lines = recorded()
    d = pending(state)
    assert (d["id"], d["kind"], d["seat"]) == ("leadership-5.2.12-2", "leadership", UK)
    battle = d["context"]["stack"][-1]
    assert battle["stage"] == "leader" and "leader_each_die" not in battle and battle.get("shots_as_fired")
    assert len(d["options"]["reroll"]) == 17
    seq_of = {i: line["seq"] for i, line in enumerate(l for l in lines if l["type"] == "DiceRolled"
                                                      and l["data"]["rule"] == "FS 7.1 Op #14")}
    out = R.decide(copy.deepcopy(state), UK, {"kind": "decide", "decision": d["id"], "choice": {"reroll": die}},
                   FixedDice(6))
    rolled = rolls_of(out)
    if die is None:
        assert not rolled and not events_of(out, "MarkerPlayed")
    else:
        assert events_of(out, "MarkerPlayed") == [{"side": UK, "marker": "uk_decisive_leader", "rule": "FS 11.3 4-1"}]
        assert [(r.replaces, r.purpose) for r in rolled] == [
            (seq_of[die], "re-roll (UK decisive leadership): " + battle["shots"][die]["purpose"])]
    assert not [e for e in events_of(out, "DecisionPending") if e["decision"]["kind"] == "leadership"]
    assert events_of(out, "OperationCompleted")  # the battle's hits took effect and the operation ended
    after = fold_all(state, out)
    assert "uk_decisive_leader" in after["markers"][UK] if die is None else not after["markers"][UK]
    assert play_to_the_end(after, random.Random(13 if die is None else die))["ended"]["winner"] in ("UK", "AR")


def test_fs_11_3_4_1_the_one_die_of_a_raid_is_offered_as_this_die_with_its_face():
    """A frame of one die (Op #7's withdrawal die, 6-4's Exocet, 2-4's die) offers it after it is
    rolled as a battle's die is: the question asked "to have one of these dice rolled again?" of a
    single die, and did not say which die or what it showed; it now reads as a battle die's does."""
    st = empty()
    place(st, "sas_d", aboard="hermes")
    place(st, "hermes", "sa4")
    place(st, "pucara_1", "port_stanley")
    st["markers"]["AR"] = ["ar_decisive_leader"]
    out, after = play(st, UK, op(7, sf="sas_d", target="pucara_1"), FixedDice(5))
    d = pending(after)
    assert (d["kind"], d["seat"], [o["die"] for o in d["options"]["reroll"]]) == ("leadership", "AR", [0])
    assert d["prompt"] == ("AR: play your Decisive Leader marker to have this die rolled again? "
                           "(SF raid: 5)")
