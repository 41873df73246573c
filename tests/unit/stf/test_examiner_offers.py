"""What the ruleset offers the Player against what it accepts (an examiner's probe: every offered
order accepted, every order the text allows offered, every malformed order refused naming a rule)."""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder
from domain.rulesets.stf import maps
from tests.unit.stf.helpers import FixedDice, R, play
from tests.unit.stf.test_air import SYS, add, built, ship


def lbna_state() -> dict:
    st = built(player="Soviet", phase="Patrol")
    st["campaign"]["system_side"] = "US"
    add(st, "TF1", "system", SYS, [ship("dd", "DD")], intel="precise", chit="Captain")
    return st


def test_stf_2_6_2_the_lbna_patrols_missiles_at_a_task_force_in_its_megahex_are_offered_and_accepted():
    """STF 2.6.2: "The unit may also fire anti-ship missiles at a single task force in that Megahex"
    (the order took a target but the offer never held one)."""
    st = lbna_state()
    mh = maps.megahex_number("giuk", SYS)
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "lbna_patrol" and o.get("target")]
    assert {(o["unit"], o["megahex"], o["target"]) for o in offered} == {("backfire", mh, "TF1"),
                                                                          ("badger", mh, "TF1")}
    for o in offered:
        out, _ = play(st, o, FixedDice(default=1))
        assert any(type(e) is tuple and e[0].__name__ == "PlayerAirAction" and e[1]["detail"].get("missiles")
                   for e in out)


@pytest.mark.parametrize("unit", [[], ["badger"], {"a": 1}, None, 7])
def test_stf_2_6_1_a_malformed_lbna_unit_is_refused_naming_2_6_1(unit):
    """STF 2.6.1: a Backfire or a Badger; a list or object as the unit crashed (TypeError: unhashable)."""
    st = lbna_state()
    mh = maps.megahex_number("giuk", SYS)
    with pytest.raises(InvalidOrder) as err:
        play(st, {"kind": "lbna_patrol", "unit": unit, "megahex": mh})
    assert err.value.rule == "STF 2.6.1"
