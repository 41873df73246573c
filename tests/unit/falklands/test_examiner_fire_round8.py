"""Eighth round, FS 10.2 "Units participate in combat ... by 'firing'" read one way everywhere: the
random events' free attacks take no aircraft that cannot fire there, what an operation's template
offers is what it accepts, and an attacker that cannot fire is not fired at. Dice are fixed."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.helpers import (
    AR, UK, UK_INFANTRY, FixedDice, R, answer, ar, empty, op, pending, place, play,
)
from tests.unit.falklands.test_rules_random_events import draw, drawn

SEA = "sa7"       # a TEZ sea area
SHIP_IN_TEZ = "broadsword"  # keeps FS 4.4(1) quiet at the end of a UK operation
AIRCRAFT = sorted(u for u, d in DATA.units.items() if d["class"] == "aircraft")


# ------------------------------------------------------------------- FS 10.2 with 11.3 6-5 ---
def test_fs_10_2_an_aircraft_may_not_join_a_6_5_attack_on_submarines_it_cannot_fire_at():
    """6-5 "The AR player may conduct an attack on UK submarine(s) in any one presently contested
    sea area", with in-range aircraft: every aircraft's anti-submarine factor is 0, and 10.2 "it may
    not fire at that type of unit". No aircraft is offered; one named is refused under FS 10.2 (it
    was accepted, fired at in return and fired nothing)."""
    st = empty()
    place(st, "spartan", SEA)
    place(st, "drummond", SEA)
    place(st, "dagger_1", S.ARGENTINA)
    assert DATA.units["dagger_1"]["factors"]["sub"] == 0
    assert "dagger_1" in S.aircraft_in_range(st, SEA)
    out, st = draw(st, 6, 5)
    assert drawn(out) == "6-5"
    d = pending(st)
    assert d["kind"] == "free_attack" and d["options"]["areas"][SEA]["aircraft"] == []
    with pytest.raises(RuleViolation) as e:
        answer(st, AR, {"area": SEA, "units": ["drummond"], "aircraft": ["dagger_1"]}, FixedDice(default=6))
    assert e.value.rule == "FS 10.2"
    answer(st, AR, {"area": SEA, "units": ["drummond"]}, FixedDice(default=6))


# ------------------------------------------------------------ FS 10.2, template and order ---
@pytest.mark.parametrize("number", [15, 18, 19])
def test_fs_10_2_every_aircraft_offered_for_an_attack_is_accepted_and_no_other(number):
    """What Op #15, #18 and #19 offer is what they accept (one test of 10.2, combat.fires_at_any):
    each aircraft in range, flown alone, is accepted when offered and refused under FS 10.2 when
    not (the stealth aircraft's anti-ground 0 and anti-surface 5 tell the two apart)."""
    st = ar()
    area = "san_carlos"
    target = "glamorgan" if number == 18 else UK_INFANTRY[0]
    where = S.TACTICAL if number == 18 else area
    if number == 15:
        place(st, "ri_3", area)
    place(st, target, where)
    place(st, SHIP_IN_TEZ, SEA)
    for u in AIRCRAFT:
        place(st, u, S.ARGENTINA)
    c = R.operation_template(st, AR, number)["choices"]
    offer = c["area"][where]
    seen = set()
    for u in S.aircraft_in_range(st, where, refuelled=True):
        order = op(number, area=where, aircraft=[u], fire="auto", **({"refuel": [u]} if u in c["refuel"] else {}))
        if number == 15:
            order["units"] = ["ri_3"]
        try:
            play(st, AR, order, FixedDice(default=6))
            accepted = True
        except RuleViolation as e:
            assert e.rule == "FS 10.2", (u, e.rule, str(e))
            accepted = False
        assert accepted == (u in offer["aircraft"]), u
        seen.add(accepted)
    assert seen == {True, False} if number != 18 else seen == {True}


# --------------------------------------------------------------------- FS 10.2 return fire ---
def test_fs_10_2_a_uk_transport_that_cannot_fire_in_a_2_1_attack_is_not_fired_at():
    """10.2 "Units participate in combat ... by 'firing'" and "each of your firing units may be
    fired at": the Norland (no combat factors) in the attacked sea area is no firing unit, so the AR
    ships' return fire may not take it; the destroyer that fires may be."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "norland", SEA)
    place(st, "drummond", SEA)
    assert not any(DATA.units["norland"]["factors"].values())
    out, st = draw(st, 2, 1)
    assert drawn(out) == "2-1"
    _, st = answer(st, UK, {"area": SEA, "units": ["glamorgan"], "fire": "auto"}, FixedDice(default=6))
    d = pending(st)
    assert d["kind"] == "defensive_fire" and d["seat"] == AR
    assert "glamorgan" in d["options"]["fire"]["drummond"] and "norland" not in d["options"]["fire"]["drummond"]


def test_fs_10_2_a_uk_transport_that_cannot_fire_in_an_op_14_is_not_fired_at():
    """The same in Op #14: the whole force in the sea area joins (no unit withheld), but the Norland
    fires at nothing, so it is no firing unit the AR's return fire may take."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "norland", SEA)
    place(st, "drummond", SEA)
    _, st = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire="auto"), FixedDice(default=6))
    d = pending(st)
    assert d["kind"] == "defensive_fire" and d["seat"] == AR
    assert "glamorgan" in d["options"]["fire"]["drummond"] and "norland" not in d["options"]["fire"]["drummond"]
