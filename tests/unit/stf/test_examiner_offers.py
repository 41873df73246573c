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


def _offered(st: dict, **match) -> list[dict]:
    return [o for o in R.legal_orders(st, "Player")
            if o["kind"] == "air_strike" and all(o.get(k) == v for k, v in match.items())]


def test_stf_9_7_a_tomahawk_attack_on_the_gamesystems_airbase_is_offered_and_accepted():
    """STF 9.7: "Tomahawk missiles can be used to attack land air bases" (the order took
    "tomahawk": true; the offer never held one, and only from a carrier's task force)."""
    from tests.unit.stf.helpers import at_phase
    from tests.unit.stf.test_air import player_strike_state
    st = at_phase(player_strike_state(), "Combat", turn=3)  # SSM combat: the Combat phase (round 11)
    offered = _offered(st, tomahawk=True)
    assert {(o["from"], o["target"]) for o in offered} >= {("P2", "Latakia")}
    for o in offered:
        out, _ = play(st, o)
        assert any(type(e) is tuple and e[1].get("what") == "Tomahawk attack" for e in out)
    st["units"]["p4"]["sunk"] = True  # P2's only ship that may carry them (13.9: never an FF)
    assert ("P2", "Latakia") not in {(o["from"], o["target"]) for o in _offered(st, tomahawk=True)}


def test_stf_13_11_harpoons_of_a_carriers_a6_or_buccaneer_are_offered_and_accepted():
    """STF 13.11: A-6 Intruders and Buccaneers fire 3 waves of 8 Harpoons (the order took "asm";
    the offer never held it)."""
    from tests.unit.stf.test_air import player_strike_state
    st = player_strike_state("precise")
    st["units"]["nimitz"]["aircraft"] = {"L": "F-14 Tomcat", "H": "A-6 Intruder"}
    offered = [o for o in _offered(st, target="TF1") if o.get("asm")]
    assert [(o["from"], o["asm"]) for o in offered] == [("P1", [{"aircraft": "A-6 Intruder", "damage": 0}])]
    out, _ = play(st, offered[0])
    assert any(type(e) is tuple and (e[1].get("detail") or {}).get("asm") for e in out)
