"""Examiner round 11, STF rules 9-13: the air war, combat, retirement and the tables they use.

Each test is a scenario written from the v1.2 text (../shared/rules/003_74ca0e4e298164eb.txt):
a built position, the GameSystem's step or the Player's order, and what the text says."""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import maps, retirement
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, events_of, names, play, run_step
from tests.unit.stf.helpers import ship as cship


def _acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 12.9-12.12: a megahex base is reached on entering the megahex ------------------------------
def _retiring(phase: str, hex_: str) -> dict:
    """A Soviet GameSystem (G-I-UK Gap, bases Megahex 63 or 64: STF 12.11) whose destroyer task force
    TF1 retires toward Megahex 63's centre (2313), the Player far off."""
    st = combat_state(phase)
    add_group(st, "P1", "Player", "0505", {"pd": cship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", hex_, {"d": cship("DD", 4, speed=2)}, retiring=True, destination="2313")
    return st


def test_stf_12_9_a_retiring_group_in_an_outer_hex_of_its_megahex_base_has_reached_its_base():
    """12.11: "Soviet: Megahex 63 or 64"; 12.9: "On reaching the 'Base' hex, retiring units are
    removed from the map". The base is the megahex, so a group in any of its hexes has reached it
    (the text says "hex" for a megahex where it means one: 7.8's "objective hex", as 1.11 scores a
    freighter anywhere in the target megahex). TF1 retiring in 2212, an outer hex of Megahex 63,
    leaves the map in the Terminal phase. Before, only the megahex's centre was the base."""
    assert maps.megahex_number("giuk", "2212") == 63 and maps.place_hex("giuk", 63) == "2313"
    out, after = run_step(_retiring("Terminal", "2212"), "retirement", FixedDice(default=6))
    removed = events_of(out, "GroupRemoved")
    assert removed == [{"group": "TF1", "status": "retired", "rule": "STF 12.9",
                        "why": "TF1 reached the base 2212: removed, not destroyed (no VP)"}]
    assert after["groups"]["TF1"]["status"] == "retired" and after["units"]["d"]["retired"] is True
    assert retirement.net_vp(after) == 0


def test_stf_12_9_a_retiring_group_entering_its_megahex_base_stops_there_and_leaves_the_map():
    """The same in the Movement phase: TF1 two hexes west of Megahex 63 moves 2112, 2212 and is in
    the base megahex: it leaves the map there, without sailing on to the centre a turn later."""
    out, after = run_step(_retiring("Movement", "2012"), "system_movement", FixedDice(default=1))
    moved = events_of(out, "GroupMoved")[0]
    assert moved["path"] == ["2112", "2212"] and moved["rule"] == "STF 12.5"
    assert names(out)[-1] == "GroupRemoved" and after["groups"]["TF1"]["status"] == "retired"


# ---- STF 9.7, 13.11: a Tomahawk attack fires no Harpoons ---------------------------------------------
@pytest.mark.parametrize("asm", [[{"aircraft": "A-6 Intruder", "damage": 0}], "junk", [{"junk": 1}]])
def test_stf_9_7_a_tomahawk_attack_with_harpoons_is_refused_not_recorded_without_them(asm):
    """9.7: "Tomahawk missiles can be used to attack land air bases"; 13.11's Harpoons are fired by
    A-6 Intruder and Buccaneer squadrons in an air strike (and never at an airbase, 9.6). A
    Tomahawk attack with an ``asm`` list (or a malformed one) was accepted and recorded with the
    list dropped without a word: it is refused naming STF 13.11, and nothing is recorded."""
    from tests.unit.stf.helpers import at_phase
    from tests.unit.stf.test_air import player_strike_state
    st = at_phase(player_strike_state(), "Combat", turn=3)
    st["units"]["nimitz"]["aircraft"] = {"L": "F-14 Tomcat", "H": "A-6 Intruder"}
    order = {"kind": "air_strike", "from": "P2", "target": "Latakia", "tomahawk": True}
    out, _ = play(st, order)  # without Harpoons it is the Tomahawk attack of 9.7
    assert [e[1]["what"] for e in out if e[0].__name__ == "PlayerAirAction"] == ["Tomahawk attack"]
    with pytest.raises(InvalidOrder) as no:
        play(st, {**order, "asm": asm})
    assert no.value.rule == "STF 13.11" and no.value.field == "asm"
    out, _ = play(st, {**order, "asm": []})  # no Harpoons at all: the same attack
    assert [e[1]["what"] for e in out if e[0].__name__ == "PlayerAirAction"] == ["Tomahawk attack"]


# ---- STF 9.7, 13.9: Tomahawks are fired by the ships whose counters carry them ------------------------
def _tomahawk_state(*counters: str) -> dict:
    """The Mediterranean, the GameSystem's airbase Latakia: Player task force P2 of the countermix's
    ``counters`` (units made as the forces part makes them, STF 13.1-13.6), with a frigate."""
    from domain.rulesets.stf.forces import unit_from_counter
    from tests.unit.stf.helpers import at_phase
    from tests.unit.stf.test_air import player_strike_state
    st = at_phase(player_strike_state(), "Combat", turn=3)  # Tomahawks are SSM combat: the Combat phase
    st["groups"]["P2"]["units"] = ["p3"]
    for cid in counters:
        st["units"][cid] = {**unit_from_counter(st, cid, cid), "group": "P2"}
        st["groups"]["P2"]["units"].append(cid)
    return st


@pytest.mark.parametrize("counters, fires", [
    (["us-bb-iowa"], True),             # "Tomahawk and Harpoon"
    (["us-cg-virginia"], True),         # "Harpoon and Tomahawk"
    (["us-dd-spruance"], False),        # Harpoon only
    (["us-fr-sacramento"], False),      # a fast resupply ship: no SSM at all
    (["us-cg-ticonderoga", "us-fr-mars"], False),
])
def test_stf_9_7_only_a_ship_whose_counter_carries_tomahawks_fires_them_at_an_airbase(counters, fires):
    """9.7: "Tomahawk missiles can be used to attack land air bases"; 13.9: "Tomahawk missiles are
    not available to any FF units". Which ships carry them the counters say (data/countermix.json's
    ``ssm_type``, whose loader already refuses a Tomahawk on a FF): an Iowa or a Virginia fires
    them, a Spruance with Harpoons or a fast resupply ship does not, and the Tomahawk attack is
    neither offered nor accepted (refused naming STF 9.7). Before, any surface ship but a FF fired
    them: a freighter, a carrier, a NATO destroyer with Exocets."""
    from tests.unit.stf.helpers import R
    st = _tomahawk_state(*counters)
    order = {"kind": "air_strike", "from": "P2", "target": "Latakia", "tomahawk": True}
    offered = [o for o in R.legal_orders(st, "Player") if o.get("tomahawk") and o["from"] == "P2"]
    if fires:
        assert offered == [order]
        out, _ = play(st, order)
        assert [e[1]["what"] for e in out if e[0].__name__ == "PlayerAirAction"] == ["Tomahawk attack"]
        return
    assert offered == []
    with pytest.raises(RuleViolation) as no:
        play(st, order)
    assert no.value.rule == "STF 9.7" and "Tomahawk" in str(no.value)


# ---- STF 9.7, 13.11: Tomahawks are SSM combat, fired in the Combat phase ------------------------------
def test_stf_9_7_tomahawks_at_an_airbase_are_fired_in_the_combat_phase_not_the_strike_phase():
    """9.7: "Tomahawk missiles can be used to attack land air bases": they are SSMs, and SSM combat
    is fought in the Combat phase (the ``ssm`` order of 11.1, as 9.8's bombardment): 13.11 says so
    by its exception, the A-6's Harpoons "treated exactly as SSM combat, but in the Strike
    Segment". So the Tomahawk attack is offered and accepted in the Combat phase, and in the Strike
    phase it is refused naming STF 9.7 (an air strike is still the Strike phase's only). Before,
    it was a Strike phase order only, refused in the Combat phase."""
    from tests.unit.stf.helpers import R, at_phase
    combat = _tomahawk_state("us-bb-iowa")
    strike = at_phase(combat, "Strike", turn=combat["turn"])
    order = {"kind": "air_strike", "from": "P2", "target": "Latakia", "tomahawk": True}
    assert order in R.legal_orders(combat, "Player")
    out, after = play(combat, order)
    assert [e[1]["what"] for e in out if e[0].__name__ == "PlayerAirAction"] == ["Tomahawk attack"]
    assert after["airbases"]["Latakia"]["attacked"] == combat["turn"]  # 9.5: no repair this turn
    assert not [o for o in R.legal_orders(strike, "Player") if o.get("tomahawk")]
    with pytest.raises(RuleViolation) as no:
        play(strike, order)
    assert no.value.rule == "STF 9.7" and "Combat phase" in str(no.value)
    # the carrier's air strike stays the Strike phase's
    cv_strike = {"kind": "air_strike", "from": "P1", "target": "Latakia"}
    assert cv_strike in R.legal_orders(strike, "Player") and cv_strike not in R.legal_orders(combat, "Player")
    with pytest.raises(RuleViolation) as no:
        play(combat, cv_strike)
    assert no.value.rule == "STF 10.1" and "Strike phase" in str(no.value)


# ---- STF 10.3 with 2.1: an airbase from which nothing flies is no active airbase ----------------------
@pytest.mark.parametrize("squadrons, struck", [(0, False), (1, True)])
def test_stf_10_3_a_player_airbase_with_no_ground_aviation_squadron_is_no_active_airbase(squadrons, struck):
    """10.3: GameSystem task forces "within ... 6 megahexes of an active player airbase"; 2.1: the
    Ground Aviation Table gives "the number of squadrons available for ground aviation" (the G-I-UK
    Gap's US column: 0 on a 1). With 0 the Player's airbase launches nothing (his strike from it is
    refused, STF 2.1), as one with 3 hits (9.4, read as not active): it is no active airbase, and a
    Kiev with nothing else in range flies no strike at Neskaupstadur; with 1 squadron it does.
    Before, an airbase with no aircraft to launch was struck as an active one."""
    from tests.unit.stf.test_air import SYS, add, built, cv, strikes
    st = built()
    st["campaign"].update(player_airbases=["Neskaupstadur"], ground_aviation={"Player": squadrons, "system": 0})
    add(st, "TF1", "system", SYS, [cv("kiev")], intel="precise")
    assert maps.megahex_distance("giuk", SYS, maps.place_hex("giuk", "Neskaupstadur")) <= 6
    out, after = run_step(st, "air_attacks", FixedDice(1, 1))
    assert [s["detail"]["target"] for s in strikes(out)] == (["Neskaupstadur"] if struck else [])
    assert ("Neskaupstadur" in after.get("airbases", {})) is struck  # 9.5: attacked this turn
