"""Ninth examiner round: scenarios written from the text on small positions built with the helpers,
for what the earlier rounds touched least. A test that pins a reading where the text is open says so
and names the reading in docs/rulesets.md; a test of a fix fails on the code before it."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from tests.unit.falklands.helpers import (
    AR, UK, FixedDice, R, answer, broken, control, empty, events_of, fire, op, pending, place, play, rolls_of,
    set_phase, uk,
)


# ------------------------------------------------------------------------------ FS 11.3 6-6 ---
def test_fs_11_3_6_6_the_surprise_attack_is_the_submarines_alone_an_aircraft_named_is_refused():
    """6-6 "The AR player may attack any one UK surface vessel, protected or not, that's presently
    co-located in any sea zone with one or more of his AR submarines. The UK player may not respond
    ... with any defensive die roll": the attack is made by the submarines there (as 3-4's for the
    UK); 4-4 and 6-5 are the events that let "In-range aircraft ... be flown in". A Dagger named
    in the answer joined the attack and fired at Glamorgan with no defensive fire; it is refused
    under the event and nothing is recorded, and San Luis alone fires."""
    st = set_phase(empty(), "AR Submarine")
    place(st, "san_luis", "sa6")
    place(st, "glamorgan", "sa6")
    place(st, "dagger_1", S.ARGENTINA)
    assert S.aircraft_reach(st, "dagger_1", "sa6")
    out, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(6, 6))
    d = pending(st)
    assert (d["seat"], d["rule"]) == (AR, "FS 11.3 6-6")
    assert d["options"]["areas"] == {"sa6": {"units": ["san_luis"], "targets": ["glamorgan"]}}
    order = {"kind": "decide", "decision": d["id"],
             "choice": {"area": "sa6", "units": ["san_luis"], "aircraft": ["dagger_1"], "target": "glamorgan"}}
    assert "submarines' alone" in str(broken(st, AR, order, "FS 11.3 6-6"))
    out, st = answer(st, AR, {"area": "sa6", "units": ["san_luis"], "target": "glamorgan"}, FixedDice(6))
    (b,) = events_of(out, "BattleBegun")
    assert b["attackers"] == ["san_luis"] and [r.seat for r in rolls_of(out)] == [AR]


# ------------------------------------------------------------------- FS 10.2 with Op #24, 9.6 ---
def test_fs_10_2_aircraft_based_where_a_ground_battle_is_fought_neither_fire_nor_are_targets():
    """Reading (docs/rulesets.md): Op #24 attacks "the enemy ground units" of the area moved into;
    AR aircraft on the ground there are no part of that battle (Op #13 and #21 are the operations
    that strike aircraft on the ground, and Op #13 says "There is no AR return fire"), so the
    Pucara at Goose Green is neither offered as a target nor fires back, although 10.2 forbids
    withholding units "from participating in a battle going on within its area". When the battle
    leaves the UK alone in Goose Green, the Pucara must rebase at once (FS 9.6)."""
    st = uk()
    control(st, UK, "san_carlos")
    place(st, "2_para", "san_carlos")
    place(st, "ri_12", "goose_green")
    place(st, "pucara_2", "goose_green")
    out, st = play(st, UK, op(24, units=["2_para"], origin="san_carlos", destination="goose_green",
                              attack=True, fire=fire(("2_para", "ri_12"))))
    begun = events_of(out, "BattleBegun")
    assert [(b["attackers"], b["defenders"]) for b in begun] == [(["2_para"], ["ri_12"])]
    d = pending(st)
    assert d["kind"] == "defensive_fire" and d["options"]["fire"] == {"ri_12": ["2_para"]}
    # 2 Para hits (4, -1 for the entrenchments of Goose Green, FS 10.7: a 1 hits); the AR misses
    out, st = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["ri_12"]
    assert S.controlled_by(st, "goose_green") == UK and S.alive(st, "pucara_2")
    d = pending(st)
    assert (d["kind"], d["rule"], list(d["options"]["destinations"])) == ("emergency_rebase", "FS 9.6", ["pucara_2"])


# ------------------------------------------------------------------------------ FS 7.1 Op #7 ---
def test_fs_7_1_op_7_the_sbs_aboard_onyx_may_raid_from_any_sea_area():
    """Reading (docs/rulesets.md): Op #7's SF unit "may be located aboard any ship or in any friendly
    controlled and uncontested land area at the time ... (it doesn't actually move)". Onyx is the
    one vessel that may carry the SBS (6.2(1)); the raid counts it as a ship, and, since the unit
    does not move, from any sea area (here Sea Area 4, outside the TEZ). The Pucara is removed; a
    six on the die after it would have eliminated the SBS."""
    st = uk()
    place(st, "onyx", "sa4")
    place(st, "sbs", aboard="onyx")
    place(st, "pucara_1", "port_stanley")
    assert "sbs" in R.operation_template(st, UK, 7)["choices"]["sf"]
    out, st = play(st, UK, op(7, sf="sbs", target="pucara_1"), FixedDice(5))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["pucara_1"]
    assert S.alive(st, "sbs") and st["units"]["sbs"]["aboard"] == "onyx"


def test_fs_7_1_op_16_the_sbs_lands_from_onyx_as_from_any_ship():
    """Reading (docs/rulesets.md, with Op #7's): Op #16 disembarks "the friendly ground units being
    transported by your ships within the Falkland Islands Sea Area"; the SBS rides Onyx (6.2(1)),
    so it lands from Onyx there (here into Lafonia, empty: FS 3.6, the UK's at once)."""
    st = uk()
    place(st, "onyx", S.TACTICAL)
    place(st, "sbs", aboard="onyx")
    assert R.operation_template(st, UK, 16)["choices"]["units"] == ["sbs"]
    out, st = play(st, UK, op(16, units=["sbs"], area="lafonia"))
    assert [(e["unit"], e["ship"], e["area"]) for e in events_of(out, "UnitDisembarked")] == [("sbs", "onyx", "lafonia")]
    assert S.controlled_by(st, "lafonia") == UK


# ----------------------------------------------------------------------- FS 11.3 4-6, Op #1 ---
def test_fs_11_3_4_6_the_strategic_airlift_moves_ground_units_and_is_not_grounded():
    """Reading (docs/rulesets.md): 4-6 "The AR player may not move or fight any aircraft units
    during his next Operations Phase". Op #1 moves "up to two ground units from Argentina to Port
    Stanley airfield", no aircraft unit (5-6 has to say "(Op #1 is allowed)" to count it among the
    ops "involving only the moving and/or fighting of aircraft"): it is offered and made under
    4-6, while Op #3 is refused."""
    st = set_phase(empty(), "AR Operations")
    st["effects"][AR]["ar_air_mechanical"] = {"event": "4-6"}
    place(st, "ri_3", S.ARGENTINA)
    place(st, "ri_4", "port_stanley")
    place(st, "dagger_1", S.ARGENTINA)
    assert R.operation_template(st, AR, 1)["choices"]["units"] == ["ri_3"]
    assert R.operation_template(st, AR, 3) is None
    out, st = play(st, AR, op(1, units=["ri_3"]))
    assert [(e["unit"], e["destination"]) for e in events_of(out, "UnitMoved")] == [("ri_3", "port_stanley")]


# ----------------------------------------------------------------- FS 10.2 with Op #21, #17 ---
def test_fs_10_2_only_the_ships_named_for_a_bombardment_fire_into_the_land_area():
    """Reading (docs/rulesets.md, 10.2): Op #21 uses "a force of friendly surface ships already
    within the Falkland Islands Sea Area", Op #17's ships "may conduct a naval bombardment of the
    landing area": the battle is in the land area, and the other UK ships in the sea area are not
    withheld from it (10.2) but no part of it. Glamorgan bombards San Carlos alone, Broadsword
    beside it does not fire; in Op #17 no bombardment is fired when none is named."""
    st = uk()
    place(st, "glamorgan", S.TACTICAL)
    place(st, "broadsword", S.TACTICAL)
    place(st, "ri_3", "san_carlos")
    out, _ = play(st, UK, op(21, area="san_carlos", units=["glamorgan"], fire="auto"), FixedDice(6))
    (b,) = events_of(out, "BattleBegun")
    assert b["attackers"] == ["glamorgan"] and [r.units[0] for r in rolls_of(out)] == ["glamorgan"]
    place(st, "fearless", S.TACTICAL)
    place(st, "40_cdo", aboard="fearless")
    out, _ = play(st, UK, op(17, area="san_carlos", wave=["40_cdo"], fire="auto"), FixedDice(6))
    (b,) = events_of(out, "BattleBegun")
    assert (b["kind"], b["attackers"]) == ("assault", ["40_cdo"])
