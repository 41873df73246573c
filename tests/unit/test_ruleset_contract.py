"""The ruleset contract carries what the four games need, shown with a toy ruleset.

- an interrupt inside the opponent's operation (FS Op #11 interception, leadership re-roll
  markers) is a pending decision with one owner: the game waits for that seat alone;
- simultaneous fire (FS 10.2, SSC 10.2): every die is rolled before any hit is applied;
- hidden information per side (SSC fog of war, face-down event markers): a view per viewer;
- an opponent driven by dice tables (STF): the system seat rolls inside the player's order;
- a turn ends and the next one rolls within one order: the roll lands in the new epoch.
"""

from __future__ import annotations

import hashlib

import pytest

from domain import events as ev
from domain.errors import NotYourMove, RuleViolation, RulesetBug
from domain.game import Game
from domain.rulesets import SYSTEM, Ruleset, Setup, core, register
from domain.verify import to_line, verify


class Toy(Ruleset):
    name = "toy"
    prefix = "TOY"
    sequence_rule = "TOY 1"
    take_back_rule = "TOY 9"
    end_rule = "TOY 8"

    def setup(self, scenario, options):
        state = core.base_state(["Attacker", "Defender"], ["Action"])
        state["active"] = ["Attacker"]
        state["units"] = {"a1": {"side": "Attacker", "steps": 2, "location": "x"},
                          "d1": {"side": "Defender", "steps": 2, "location": "x"}}
        state["plans"] = {"Attacker": "feint north", "Defender": "hold the ford"}
        return Setup(seats=["Attacker", "Defender", SYSTEM], state=state)

    def legal_orders(self, state, seat):
        if state["pending"]:
            return [{"kind": "decide", "decision": state["pending"][0]["id"], "options": state["pending"][0]["options"]}]
        return [{"kind": "attack"}, {"kind": "end_turn"}]

    def decide(self, state, seat, order, dice):
        if order["kind"] == "attack":
            return [(ev.DecisionPending, {"decision": {
                "id": "intercept-1", "seat": "Defender", "kind": "intercept", "rule": "TOY 4",
                "prompt": "intercept the attack?", "options": ["intercept", "pass"],
                "context": {"order": order}}})]
        if order["kind"] == "decide":
            # Simultaneous fire: roll both sides' dice first, then apply every hit.
            a = dice.roll(1, 6, seat="Attacker", purpose="a1 fires at d1", rule="TOY 5", units=["a1", "d1"])
            d = dice.roll(1, 6, seat="Defender", purpose="d1 fires at a1", rule="TOY 5", units=["d1", "a1"])
            a.resolve({"hit_number": 6}, "hit" if a.values[0] <= 6 else "miss")
            d.resolve({"hit_number": 6}, "hit" if d.values[0] <= 6 else "miss")
            out = [(ev.DecisionResolved, {"decision_id": order["decision"], "seat": seat, "choice": order["choice"]}), a, d]
            out += [(ev.UnitHit, {"unit": "d1", "steps_lost": 1, "steps_left": 1, "rule": "TOY 5", "roll": None}),
                    (ev.UnitHit, {"unit": "a1", "steps_lost": 1, "steps_left": 1, "rule": "TOY 5", "roll": None})]
            # The dice-table opponent reacts within the same order.
            table = dice.roll(1, 6, seat=SYSTEM, purpose="GameSystem reaction table", rule="TOY 7")
            return out + [table]
        if order["kind"] == "end_turn":
            out = [(ev.TurnAdvanced, {"turn": state["turn"] + 1, "phase": "Action", "rule": "TOY 1"})]
            dice.close_epoch()
            return out + [dice.roll(1, 6, seat=SYSTEM, purpose="initiative", rule="TOY 2")]
        if order["kind"] == "forget":
            dice.roll(1, 6, seat=seat, purpose="never recorded")
            return []
        raise RuleViolation("TOY 1", "unknown order")

    def view(self, state, viewer):
        if viewer == "umpire":
            return state
        return {**state, "plans": {k: v for k, v in state["plans"].items() if k == viewer}}


register(Toy())


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"toy-{epoch}".encode()).digest()


@pytest.fixture
def game() -> Game:
    g = Game.create("toy", seed_for=seed_for)
    g.join("Attacker", "ann", "", seed_for)
    g.join("Defender", "dan", "", seed_for)
    return g


def test_interrupt_is_a_pending_decision_the_game_waits_for(game):
    game.submit("Attacker", "o1", {"kind": "attack"}, seed_for)
    assert game.whose_move() == ["Defender"]
    assert game.legal_orders("Attacker") == []
    with pytest.raises(NotYourMove) as err:
        game.submit("Attacker", "o2", {"kind": "attack"}, seed_for)
    assert err.value.rule == "TOY 4" and "waits for Defender" in str(err.value)
    game.submit("Defender", "o3", {"kind": "decide", "decision": "intercept-1", "choice": "intercept"}, seed_for)
    assert game.state["pending"] == [] and game.whose_move() == ["Attacker"]


def test_simultaneous_fire_rolls_every_die_before_any_hit(game):
    game.submit("Attacker", "o1", {"kind": "attack"}, seed_for)
    first, last = game.submit("Defender", "o2", {"kind": "decide", "decision": "intercept-1", "choice": "pass"}, seed_for)
    types = [type(e).__name__ for e in game.pending_events[first - 1:last]]
    assert types == ["OrderAccepted", "DecisionResolved", "DiceRolled", "DiceRolled", "UnitHit", "UnitHit", "DiceRolled"]
    assert game.state["units"]["a1"]["steps"] == 1 and game.state["units"]["d1"]["steps"] == 1


def test_the_system_seat_rolls_inside_the_players_order(game):
    game.submit("Attacker", "o1", {"kind": "attack"}, seed_for)
    game.submit("Defender", "o2", {"kind": "decide", "decision": "intercept-1", "choice": "pass"}, seed_for)
    last_roll = game.pending_events[-1]
    assert last_roll.seat == SYSTEM and last_roll.rule == "TOY 7"
    assert game.human_seats() == ["Attacker", "Defender"]


def test_a_roll_after_the_turn_ends_lands_in_the_new_epoch(game):
    since = game.version
    game.submit("Attacker", "o1", {"kind": "end_turn"}, seed_for)
    types = [type(e).__name__ for e in game.pending_events if e.originator_version > since]
    assert types == ["OrderAccepted", "TurnAdvanced", "DiceEpochRevealed", "DiceEpochOpened", "DiceCommitted",
                     "DiceRolled"]
    assert game.pending_events[-1].epoch == 1
    assert verify([to_line(e) for e in game.pending_events]).ok


def test_every_roll_made_must_be_recorded(game):
    version = game.version
    with pytest.raises(RulesetBug, match="every roll must be recorded"):
        game.submit("Attacker", "o1", {"kind": "forget"}, seed_for)
    assert game.version == version


def test_hidden_information_is_filtered_per_viewer(game):
    assert game.view("Attacker")["plans"] == {"Attacker": "feint north"}
    assert game.view("Defender")["plans"] == {"Defender": "hold the ford"}
    assert game.view(None)["plans"] == {}
    assert game.view("umpire")["plans"] == {"Attacker": "feint north", "Defender": "hold the ford"}


class RollsAfterTheEnd(Toy):
    name = "toy-late-roll"

    def decide(self, state, seat, order, dice):
        ended = (ev.GameEnded, {"winner": None, "level": None, "reason": "x", "rule": "TOY 8"})
        return [ended, dice.roll(1, 6, seat=seat, purpose="after the end")]


register(RollsAfterTheEnd())


def test_no_roll_is_recorded_after_the_game_ended():
    g = Game.create("toy-late-roll", seed_for=seed_for)
    g.join("Attacker", "ann", "", seed_for)
    g.join("Defender", "dan", "", seed_for)
    version = g.version
    with pytest.raises(RulesetBug, match="no epoch is open"):
        g.submit("Attacker", "o1", {"kind": "any"}, seed_for)
    assert g.version == version
