"""Falklands Showdown, examiner-style: the numbers of FS 8.0-10.11 at their edges - exactly at a
limit, one over, a modifier at the clamp (audit/fsnum2)."""

from __future__ import annotations

from domain.rulesets.falklands import combat
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.combat import hit_number

from .helpers import AR, UK, FixedDice, answer, control, empty, events_of, fire, names, op, place, play, rolls_of, with_factor

A4S = ["a4_1", "a4_2", "a4_3", "a4_4"]


def test_fs_9_4_all_four_a4s_may_refuel_in_one_operation_the_limit_itself():
    """FS 9.4 "up to four Argentina-based A-4 units may be designated as using aerial refueling":
    four is within "up to four" - all four refuelled fly to the Falkland Islands Sea Area together."""
    st = empty("AR Operations")
    for u in A4S:
        place(st, u, S.ARGENTINA)
    place(st, "yarmouth", "falklands")
    out, _ = play(st, AR, op(18, area="falklands", aircraft=A4S, refuel=A4S,
                             fire=fire(*((u, "yarmouth") for u in A4S))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == A4S


def _ground_battle(area: str, attacker: str) -> dict:
    return {"area": area, "attacker": attacker, "kind": "ground", "mods": {}}


def test_fs_10_3_two_reductions_on_a_printed_two_stop_at_one(monkeypatch):
    """FS 10.3 "no printed hit number of one or more may ever be reduced to zero": a UK infantry
    unit printed 2 attacking armor in Port Stanley (10.7 entrenchments -1, 10.10 armor -1, together
    -2) fires at 1, not 0; at the AR infantry there, only the -1: also 1."""
    with_factor(monkeypatch, "2_para", ground=2)
    b = _ground_battle("port_stanley", UK)
    value, mods = hit_number({}, b, "2_para", "armd_10", UK)
    assert value == 1 and sorted(m["value"] for m in mods) == [-1, -1]
    value, mods = hit_number({}, b, "2_para", "ri_12", UK)
    assert value == 1 and [m["value"] for m in mods] == [-1]


def test_fs_10_3_a_printed_five_with_the_sf_bonus_stays_five_not_six(monkeypatch):
    """FS 10.3 "no hit number of one through five may ever be modified into a six", and FS 10.8's +1
    is "cumulative with all other applicable modifiers": a printed 5 with the SF bonus fires at 5;
    a printed 4 with it at 5 (the bonus counts up to the ceiling)."""
    b = {**_ground_battle("san_carlos", UK), "sf_bonus": UK}
    with_factor(monkeypatch, "2_para", ground=5)
    assert hit_number({}, b, "2_para", "ri_12", UK)[0] == 5
    with_factor(monkeypatch, "2_para", ground=4)
    assert hit_number({}, b, "2_para", "ri_12", UK)[0] == 5


def test_fs_10_6_mountains_are_for_attackers_a_defender_in_the_mountains_fires_at_its_printed_number(monkeypatch):
    """FS 10.6 "This doesn't apply to units making defensive fires": the AR defending Mount Kent
    fires at its printed 3 while the UK attacking there fires at 2."""
    with_factor(monkeypatch, "2_para", ground=3)
    with_factor(monkeypatch, "ri_12", ground=3)
    b = _ground_battle("mount_kent", UK)
    assert hit_number({}, b, "2_para", "ri_12", UK)[0] == 2
    assert hit_number({}, b, "ri_12", "2_para", AR) == (3, [])


def test_fs_10_8_an_air_attack_on_ground_units_is_no_mixed_ground_fight_no_sf_plus_one_no_shared_fate():
    """FS 10.8 "If you make a ground attack or defense with a force containing SF units and other
    ground units ... all your other ground units in that fight have their hit numbers increased by
    one". Kept reading (docs/rulesets.md, open): an Op #19 air-to-ground attack is no ground attack
    or defense - the UK infantry firing back at the Pucara beside an SAS team fires at its printed 1,
    and the SAS, not in that battle, outlive the infantry's elimination (never targets, 7.1 Op #19)."""
    st = empty("AR Operations")
    place(st, "2_para", "san_carlos", steps=1)
    place(st, "sas_g", "san_carlos")
    place(st, "pucara_1", "port_stanley")
    out, st2 = play(st, AR, op(19, area="san_carlos", aircraft=["pucara_1"], fire=fire(("pucara_1", "2_para"))))
    out, st3 = answer(st2, UK, {"fire": fire(("2_para", "pucara_1"))}, FixedDice(1, 6))
    assert [(r.units, r.target["hit_number"]) for r in rolls_of(out)] == [(["pucara_1", "2_para"], 3),
                                                                          (["2_para", "pucara_1"], 1)]
    assert "UnitEliminated" in names(out)
    assert not S.alive(st3, "2_para") and S.alive(st3, "sas_g")


def test_fs_10_9_with_one_carrier_sunk_there_is_no_rendezvous_the_other_keeps_three_shots():
    """FS 10.9 "which is defined as all three ships being in the same sea area at the end of any UK
    operation": with Hermes sunk, Invincible and the Conveyor together are two ships, not three -
    no rendezvous, the Conveyor stays in play and Invincible still fires three times."""
    st = empty()
    place(st, "invincible", "sa4")
    place(st, "atlantic_conveyor", "sa3")
    st["units"]["hermes"].update(eliminated=True)
    out, after = play(st, UK, op(20, units=["atlantic_conveyor"], destination="sa4"))
    assert S.where(after, "atlantic_conveyor") == "sa4" and S.where(after, "invincible") == "sa4"
    assert not events_of(out, "UnitWithdrawn") and after["rendezvous"] is False
    assert combat.shots_allowed(after, "invincible", []) == 3


def test_fs_10_8_op_25_in_port_stanley_no_entrenchment_minus_one_and_a_hit_uk_sf_team_is_gone(monkeypatch):
    """FS 10.8 Op #25: "nor do mountain or entrenchment die roll modifiers apply" - the entrenched
    Port Stanley too: the UK SF fire at their printed 3 there, not 2; and FS 10.2 "Other than SF
    units, all UK units contain two steps": the UK team hit once is eliminated, no Hit marker."""
    st = empty()
    for u in ("sas_d", "cdo_602", "ri_4"):
        place(st, u, "port_stanley")
    control(st, AR, "port_stanley")
    with_factor(monkeypatch, "sas_d", ground=3)
    with_factor(monkeypatch, "cdo_602", ground=3)
    out, st = play(st, UK, op(25, area="port_stanley", fire=fire(("sas_d", "cdo_602"))))
    out, after = answer(st, AR, {"fire": fire(("cdo_602", "sas_d"))}, FixedDice(6, 3))
    assert [r.target for r in rolls_of(out)] == [{"hit_number": 3, "modifiers": []}] * 2
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["sas_d"]
    assert not S.alive(after, "sas_d") and S.alive(after, "cdo_602")


def test_fs_10_5_op_13_carrier_shots_at_the_stealth_aircraft_on_the_ground_in_port_stanley_each_at_one():
    """FS 10.5 "whenever it's fired at by any UK units of any kind, the 'to hit' numbers of those
    firing UK units is reduced to '1'" - on the ground too (Op #13), after 10.7's entrenchment -1
    (3 - 1 = 2, then to 1) and for each of 10.9's three shots; the Dagger beside it is hit on 2."""
    st = empty()
    place(st, "hermes", "falklands")
    place(st, "super_etendard", "port_stanley")
    place(st, "dagger_1", "port_stanley")
    shots3 = fire(("hermes", "super_etendard"), ("hermes", "super_etendard"), ("hermes", "dagger_1"))
    out, _ = play(st, UK, op(13, carriers=["hermes"], airbase="port_stanley", fire=shots3), FixedDice(6, 6, 6))
    got = [(r.units[1], r.target["hit_number"]) for r in rolls_of(out)]
    assert got == [("super_etendard", 1), ("super_etendard", 1), ("dagger_1", 2)]
