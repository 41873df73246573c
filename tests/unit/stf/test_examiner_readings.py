"""STF's open readings settled against the text (../shared/rules/003_74ca0e4e298164eb.txt): each test
quotes the sentences that decide the case and sets up the case where the two readings part."""

from __future__ import annotations

from domain.rulesets.stf import maps
from tests.unit.stf.helpers import NoDice, add_group, combat_state, events_of, run_step, ship


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 11.4: "in the objective Megahex or adjacent to it" -------------------------------------
def test_stf_11_4_adjacent_to_the_objective_megahex_is_a_megahex_next_to_it_not_only_a_hex():
    """11.4: "If the GameSystem task force is defending against a player invasion, and is in the
    objective Megahex or adjacent to it, it will ignore Rule 11.3 and continue with as many rounds
    of gunnery and torpedo combat as possible." The sentence places the task force by megahexes
    ("it" is the Megahex); the text says "hex" where it means one ("a hex or adjacent hex", 7.10;
    "the same or adjacent hex", 9.8). 0912 is in megahex 22, next to megahex 30, but 2 hexes from
    every hex of megahex 30: 11.4 applies (one C gun fires at an A-gunned BB). Three megahexes off,
    11.3 holds it back."""
    player = {"iowa": ship("BB", 10, nation="US", gun="A"), "fr": ship("FR", 5, nation="US", role="invasion")}
    system = {"s1": ship("CG", 5, gun="C"), "s2": ship("DD", 4, gun="C")}
    assert maps.megahex_distance("giuk", "1212", "0912") == 1 and maps.megahex_number("giuk", "0912") == 22
    assert min(maps.distance("giuk", "0912", h) for h in maps.megahex_hexes("giuk", 30)) == 2
    for where, fires, rule in (("0912", True, "STF 11.4"), ("2010", False, "STF 11.3")):
        st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
        add_group(st, "P1", "Player", where, player)
        add_group(st, "TF1", "system", where, system)
        out, _ = run_step(st, "surface_combat", NoDice())
        g = acts(out, "gunnery")[0]
        assert (g["rule"], g["detail"]["fire"]) == (rule, fires)


# ---- STF 2.6.2: "identified L and M aircraft" ----------------------------------------------------
def test_stf_2_6_2_identified_aircraft_include_an_accurate_task_forces_revealed_air_strength():
    """2.6.2: "Reduce the number of waves of ASMs able to be launched by 1 for every 4 strength
    points (or part thereof) of identified L and M aircraft within 6 Megahexes that were not on air
    strikes the previous turn or on CAP in this turn." "Identified", not "Precisely identified"
    (the text says "Precisely" where it means it: 2.6.5, 8.11, 10.7, 10.13): an Accurate task force
    whose air strength is revealed (10.7 "is Accurate and has a previously revealed air strength";
    8.11 "Accurate units with a known air strength") has identified aircraft. Its carrier (set
    aside by 10.8) with L 4 and M 5 fresh: CAP 5, 4 counted, one of the Backfire's two waves lost.
    The same task force Accurate with no revealed air strength has no identified aircraft."""
    from tests.unit.stf.helpers import play
    from tests.unit.stf.test_air import SYS, add, built, cv, far, ship as air_ship
    st = built(player="Soviet", phase="Patrol")
    st["campaign"]["system_side"] = "US"
    add(st, "TF2", "system", SYS, [air_ship("dd", "DD")], intel="precise", chit="Captain")  # the target
    add(st, "TF1", "system", "1705", [{**cv("vinson", "US", L=4, M=[3, 2], H=4), "set_aside": True}],
        intel="accurate", chit="Rear Admiral", size="large", air_known=True)
    assert far(SYS, "1705") == 2
    order = {"kind": "lbna_patrol", "unit": "backfire", "megahex": int(maps.megahex_number("giuk", SYS)),
             "target": "TF2"}
    out, _ = play(st, order)
    missiles = events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]
    assert (missiles["waves"], missiles["waves_lost"]) == (1, 1)
    assert [c["origin"] for c in missiles["identified_air"]["by"]] == ["TF1"]
    st["groups"]["TF1"]["air_known"] = False
    out, _ = play(st, order)
    assert events_of(out, "PlayerAirAction")[0]["detail"]["missiles"]["waves"] == 2
