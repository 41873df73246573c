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
    assert len(_moves_of(free, "P1")) == len(maps.sea_neighbours(M, base))
    play(free, {"kind": "move", "group": "P1", "path": [out_of_base]})
