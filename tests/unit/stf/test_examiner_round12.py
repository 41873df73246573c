"""Examiner round 12, STF: every table row by row and every qualifier clause of the decision rules.

Each test is a scenario written from the v1.2 text (../shared/rules/003_74ca0e4e298164eb.txt): a
built position, the GameSystem's step or the Player's order, and what the text says."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import maps, movement
from tests.unit.stf.helpers import R, play
from tests.unit.stf.test_movement import M, short_carrier, state


def _moves_of(st: dict, gid: str) -> list[dict]:
    return [o for o in R.legal_orders(st, "Player") if o["kind"] == "move" and o["group"] == gid]


def withdrawing_tf(st: dict, why: str, hex_: str) -> dict:
    """GameSystem task force TF1 at ``hex_`` that must withdraw toward its base: by STF 1.12 (a
    carrier with two ASW escorts left) or by STF 7.6 (no offensive firepower)."""
    from tests.unit.stf.test_movement import add, cv_tf, ship
    if why == "STF 1.12":
        cv_tf(st, "TF1", hex_)
        st["units"]["TF1-1"]["sunk"] = True  # two ASW escorts left for one carrier
    else:
        add(st, "TF1", "system", "tf", hex_, [ship("t1", "DD", ssm=0, gun=None)], intel="precise")
    return st


# ---- STF 1.12: a carrier short of its escorts withdraws to its base, and stays there -----------------
@pytest.mark.parametrize("base", ["1615", "0303"])  # Sumburgh's hex; an outer hex of Megahex 1 (STF 12.11)
def test_stf_1_12_the_players_carrier_short_of_escorts_that_has_reached_its_base_stays_there(base):
    """1.12: "it and its remaining escorts must withdraw as quickly as possible toward the nearest
    friendly 'Base', however it may continue to conduct air operations". A task force that has
    withdrawn to its base does not sail out again (leaving it is no withdrawal toward it), as the
    GameSystem's withdrawing task force stops at its base. P1, a US carrier with two of its three
    ASW escorts, is at a G-I-UK Gap US base (Sumburgh, or Megahex 1): no move is offered for it, a
    move out of the base is refused naming STF 1.12, and the Movement phase may end. Before, once
    at the base it moved freely (out to sea, and back the next turn)."""
    st = short_carrier(state(), hex_=base)
    assert base in movement.player_bases(st)
    assert _moves_of(st, "P1") == []
    out_of_base = next(n for n in maps.sea_neighbours(M, base) if n not in movement.player_bases(st))
    with pytest.raises(RuleViolation) as no:
        play(st, {"kind": "move", "group": "P1", "path": [out_of_base]})
    assert no.value.rule == "STF 1.12" and "base" in str(no.value)
    assert [o for o in R.legal_orders(st, "Player") if o["kind"] == "end_phase"]
    # with its three escorts the same task force moves freely from its base
    free = short_carrier(state(), hex_=base, escorts=3)
    one_hex = [m["path"][0] for m in _moves_of(free, "P1") if len(m["path"]) == 1]
    assert sorted(one_hex) == sorted(maps.sea_neighbours(M, base))
    play(free, {"kind": "move", "group": "P1", "path": [out_of_base]})


@pytest.mark.parametrize("why", ["STF 1.12", "STF 7.6"])
def test_stf_1_12_and_7_6_the_gamesystems_withdrawing_task_force_stays_at_its_base(why):
    """1.12: a carrier short of its escorts "must withdraw as quickly as possible toward the nearest
    friendly 'Base'"; 7.6: a group with no offensive firepower "will attempt to withdraw towards the
    nearest friendly base". Neither is retiring (12.9 removes only retiring units), so at the base
    the task force stays: TF1 in 2212, an outer hex of Megahex 63 (a Soviet base, STF 12.11), with a
    Player task force four hexes off (7.8 would send a carrier one hex away; 7.5 would close), does
    not move and stays on the map."""
    from tests.unit.stf.helpers import FixedDice, events_of, run_step
    from tests.unit.stf.test_movement import player_tf
    st = state()
    assert "2212" in movement.bases(st) and maps.megahex_number(M, "2212") == 63
    player_tf(st, "P1", "1812")
    assert maps.distance(M, "1812", "2212") == 4
    withdrawing_tf(st, why, "2212")
    out, after = run_step(st, "system_movement", FixedDice(default=1))
    assert [e for e in events_of(out, "GroupMoved") if e["group"] == "TF1"] == []
    assert after["groups"]["TF1"]["hex"] == "2212" and after["groups"]["TF1"]["status"] == "on map"
    # away from its base it withdraws toward it
    st["groups"]["TF1"]["hex"] = "2012"
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert [e["rule"] for e in events_of(out, "GroupMoved") if e["group"] == "TF1"] == [why]
