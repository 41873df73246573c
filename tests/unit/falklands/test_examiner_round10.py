"""Tenth examiner round: scenarios written from the text, on small positions built with the helpers,
for edges no earlier round pinned. A test that pins a reading where the text is open says so and
names the reading in docs/rulesets.md."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from tests.unit.falklands.helpers import (
    AR, UK, FixedDice, answer, broken, control, empty, events_of, fire, op, op_4_force, pending, place, play,
    rolls_of, set_phase, uk,
)


def _by_pair(out) -> dict:
    """Each roll's target (hit number and modifiers) by its (shooter, target)."""
    return {(r.units[0], r.units[1]): r.target for r in rolls_of(out)}


# ------------------------------------------------------------------------------- FS 10.6 ---
def test_fs_10_6_ships_bombarding_and_carriers_striking_in_the_mountains_lose_one_too():
    """10.6 "Units of any types, and of either side, which are attacking in an area that contains
    mountains do so with their hit numbers reduced by one": not only ground units and aircraft. A
    ship bombarding Mount Kent from the Falkland Islands Sea Area (Op #21) and a carrier striking
    it (Op #19) are attacking in that area: Glamorgan's printed anti-ground 2 and each of Hermes'
    three shots (10.9) at printed 2 are rolled at 1."""
    st = uk()
    place(st, "glamorgan", "falklands")
    place(st, "hermes", "falklands")
    place(st, "ri_4", "mount_kent")
    out, _ = play(st, UK, op(21, units=["glamorgan"], area="mount_kent", fire=fire(("glamorgan", "ri_4"))),
                  FixedDice(6))
    mountains = {"value": -1, "reason": "attacking in mountains (FS 10.6)"}
    assert _by_pair(out) == {("glamorgan", "ri_4"): {"hit_number": 1, "modifiers": [mountains]}}
    out, _ = play(st, UK, op(19, area="mount_kent", carriers=["hermes"], fire=fire(("hermes", "ri_4"))),
                  FixedDice(6, 6, 6))
    assert [(r.units, r.target) for r in rolls_of(out)] == \
        [(["hermes", "ri_4"], {"hit_number": 1, "modifiers": [mountains]})] * 3


# ------------------------------------------------------------------------------- FS 10.4 ---
def test_fs_10_4_binds_defensive_fire_a_protected_attacker_only_with_every_unprotected_one_fired_at():
    """Reading (docs/rulesets.md): 10.4 "No protected target may be attacked unless every other
    unprotected enemy surface ship in that same area is also being attacked" holds for defensive
    fire too (10.2: units "participate in combat, offensively or defensively, by 'firing'"). Hermes
    and Glamorgan attack Drummond and Granville (Op #14); the AR may not aim both at Hermes (refused
    naming FS 10.4, nothing recorded), but may once Glamorgan is fired at as well."""
    st = uk()
    for u, at in (("hermes", "sa6"), ("glamorgan", "sa6"), ("drummond", "sa6"), ("granville", "sa6")):
        place(st, u, at)
    out, st = play(st, UK, op(14, area="sa6", units=["hermes", "glamorgan"],
                              fire=fire(("hermes", "drummond"), ("glamorgan", "granville"))))
    d = pending(st)
    assert (d["kind"], d["seat"]) == ("defensive_fire", AR)
    both_at_hermes = {"kind": "decide", "decision": d["id"],
                      "choice": {"fire": fire(("drummond", "hermes"), ("granville", "hermes"))}}
    assert "Glamorgan" in str(broken(st, AR, both_at_hermes, "FS 10.4"))
    out, st = answer(st, AR, {"fire": fire(("drummond", "hermes"), ("granville", "glamorgan"))}, FixedDice(default=6))
    rolled = _by_pair(out)
    while pending(st):  # Hermes' two further shots, aimed as fired (10.9)
        more, st = answer(st, UK, {"at": pending(st)["options"]["at"][0]}, FixedDice(default=6))
        rolled.update(_by_pair(more))
    assert ("drummond", "hermes") in rolled and ("granville", "glamorgan") in rolled


# ------------------------------------------------------------------------ FS 10.9, Op #6 ---
def test_fs_10_9_group_r3_entering_sea_area_4_beside_both_carriers_is_their_rendezvous():
    """10.9: the rendezvous "is defined as all three ships being in the same sea area at the end of any
    UK operation", and Op #6 enters a group "via Sea Area 4", where the UK starting force (3.3) keeps
    Hermes and Invincible until they are moved. R3 brings the Atlantic Conveyor: at the end of the
    Op #6 that enters it beside the carriers it is removed "(without yielding any VP)", and the
    carriers fire four times from then on."""
    st = uk()
    place(st, "hermes", "sa4")
    place(st, "invincible", "sa4")
    st["groups_entered"] = ["R1", "R2"]
    st["ops_log"][UK] = [20, 6, 20]
    out, st = play(st, UK, op(6))
    assert [e["unit"] for e in events_of(out, "UnitWithdrawn")] == ["atlantic_conveyor"]
    assert [e["rule"] for e in events_of(out, "UnitWithdrawn")] == ["FS 10.9"]
    assert not [e for e in events_of(out, "VPScored") if e["rule"] != "FS 4.4(1)"]
    assert st["rendezvous"] and not S.alive(st, "atlantic_conveyor") and S.alive(st, "elk")
    set_phase(st, "UK Operations", turn=3)
    place(st, "drummond", "sa4")
    out, st = play(st, UK, op(14, area="sa4", units=["hermes", "invincible", "elk", "ambuscade", "exeter"],
                              fire="auto"))
    out, st = answer(st, AR, {"fire": "auto"}, FixedDice(default=6))
    assert sum(1 for r in rolls_of(out) if r.units[0] == "hermes") == 4


# ------------------------------------------------------------------- FS 4.4(4), 11.3 6-4 ---
def test_fs_4_4_4_the_exocet_sinking_the_conveyor_before_its_rendezvous_scores_two():
    """4.4(4): the AR scores two for the Atlantic Conveyor "only ... if that ship is sunk prior to
    rendezvousing with the Hermes and Invincible"; 6-4's Exocet "selects any one UK surface vessel in
    the Falklands Sea Area", the Conveyor too (a protected "T", 10.4 aside). The Conveyor, hit
    once already, is sunk by the held Exocet (hit number three): +2, FS 4.4(4)."""
    st = set_phase(empty(), "AR Operations")
    place(st, "atlantic_conveyor", "falklands", steps=1)
    place(st, "hermes", "sa4")
    place(st, "invincible", "sa4")
    st["exocet"] = "held"
    out, st = play(st, AR, op("exocet", target="atlantic_conveyor"), FixedDice(3))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["atlantic_conveyor"]
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(2, "FS 4.4(4)")]
    assert not st["rendezvous"]


# -------------------------------------------------------------------------- FS 7.1 Op #4 ---
def test_fs_7_1_op_4_onyx_with_the_sbs_aboard_is_the_forces_submarine_and_one_of_its_sf():
    """Op #4 "a force consisting of any three surface vessels, a submarine and two special forces
    units"; 6.2(1) "The UK submarine Onyx may transport the SBS special forces unit". Onyx with the
    SBS aboard and Hermes with SAS D aboard make the force with two destroyers: the box is the UK's,
    Santa Fe there is eliminated and scores for the UK (4.4(3)), both SF stay aboard."""
    st = uk()
    order = op_4_force(st)
    out, st = play(st, UK, order)
    assert S.controlled_by(st, S.SOUTH_GEORGIA) == UK
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["santa_fe"]
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")][0] == (-1, "FS 4.4(3)")
    assert {u: S.where(st, u) for u in ("onyx", "sbs", "sas_d")} == {u: S.SOUTH_GEORGIA for u in ("onyx", "sbs", "sas_d")}
    assert st["units"]["sbs"]["aboard"] == "onyx"


# ----------------------------------------------------------------------- FS 9.6, Op #16 ---
def test_fs_9_6_an_sf_team_landed_beside_a_lone_pucara_takes_pebble_island_and_the_pucara_rebases():
    """Op #16 lands "into a land area that's devoid of both sides' ground units"; 3.6 the area comes
    under UK control "the instant your side is the only one to have one or more ground units in it"
    (an SF team is a ground unit), worth one VP (4.4(5)); 9.6 "When the only unit(s) in a land area
    ... are AR aircraft, and the UK player has one or more ground units there, 'emergency rebasing'
    must take place immediately", to "another" base: Pebble Island is not offered."""
    st = uk()
    place(st, "glamorgan", "falklands")
    place(st, "sas_d", aboard="glamorgan")
    place(st, "pucara_3", "pebble_island")
    out, st = play(st, UK, op(16, units=["sas_d"], area="pebble_island"))
    assert S.controlled_by(st, "pebble_island") == UK
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(5)")]
    d = pending(st)
    assert (d["kind"], d["seat"], d["rule"]) == ("emergency_rebase", AR, "FS 9.6")
    assert "pebble_island" not in d["options"]["destinations"]["pucara_3"]
    assert S.ARGENTINA in d["options"]["destinations"]["pucara_3"]


# ------------------------------------------------------------------------ FS 9.4, 9.5 ---
def test_fs_9_5_a_pucara_based_in_the_falklands_strikes_sea_area_4_a_dagger_from_argentina_may_not():
    """9.5 "All AR aircraft flying from bases in the Falklands have an unlimited range" (but the South
    Georgia box); 9.4 those from Argentina "may operate out to the range line". Sea Area 4 lies beyond
    the range line: the Pucara from Port Stanley strikes Glamorgan there, the Dagger from Argentina
    is refused naming FS 9.4."""
    st = set_phase(empty(), "AR Operations")
    place(st, "glamorgan", "sa4")
    place(st, "pucara_1", "port_stanley")
    place(st, "dagger_1", S.ARGENTINA)
    broken(st, AR, op(18, area="sa4", aircraft=["dagger_1"], fire="auto"), "FS 9.4")
    out, st = play(st, AR, op(18, area="sa4", aircraft=["pucara_1"], fire=fire(("pucara_1", "glamorgan"))))
    assert [(b["attackers"], b["defenders"]) for b in events_of(out, "BattleBegun")] == [(["pucara_1"], ["glamorgan"])]


# ------------------------------------------------------------------------ FS 4.4(3), 3.7 ---
def test_fs_4_4_3_santa_fe_sunk_in_the_box_before_op_4_scores_for_the_uk_and_the_box_stays_ar():
    """3.7: UK vessels may go into the box before it is captured (9.1: "allowed for all UK vessels");
    4.4(3) "every AR ship sunk within the Total Exclusion Zone or South Georgia Holding Box" scores for
    the UK; only Op #4 takes the box ("thereby automatically gaining control of it"; 3.6's sole
    occupant rule is for land areas). Glamorgan sinks Santa Fe there in an Op #20: -1, and South
    Georgia is still the AR's."""
    st = uk()
    place(st, "santa_fe", S.SOUTH_GEORGIA)
    place(st, "glamorgan", "sa5")
    out, st = play(st, UK, op(20, units=["glamorgan"], destination=S.SOUTH_GEORGIA, attack=True,
                              fire=fire(("glamorgan", "santa_fe"))))
    out, st = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["santa_fe"]
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(3)")]
    assert S.controlled_by(st, S.SOUTH_GEORGIA) == AR


# ------------------------------------------------------------------- FS 7.1 Op #18, #19 ---
def test_fs_7_1_op_18_19_aircraft_strike_and_stay_at_the_base_they_flew_from():
    """Reading (docs/rulesets.md): Op #18/#19 "move a force of friendly aircraft from a land area to
    any one in-range sea area [land area] and attack"; no rule keeps an aircraft anywhere but at a
    base (6.2(3)(4), 6.3, 9.7), so after the attack the survivors are back where they flew from,
    with no second interception on the way home (Op #11's example intercepts the flight on its
    way in). The A-4 from Argentina and the Pucara from Goose Green are where they were."""
    st = set_phase(empty(), "AR Operations")
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", S.ARGENTINA)
    out, st2 = play(st, AR, op(18, area="falklands", aircraft=["a4_1"], refuel=["a4_1"],
                               fire=fire(("a4_1", "glamorgan"))))
    out, st2 = answer(st2, UK, {"fire": "auto"}, FixedDice(6, 6))
    assert not events_of(out, "UnitMoved") and S.where(st2, "a4_1") == S.ARGENTINA and pending(st2) is None
    st = set_phase(empty(), "AR Operations")
    control(st, UK, "san_carlos")
    place(st, "2_para", "san_carlos")
    place(st, "pucara_2", "goose_green")
    out, st2 = play(st, AR, op(19, area="san_carlos", aircraft=["pucara_2"], fire=fire(("pucara_2", "2_para"))))
    out, st2 = answer(st2, UK, {"fire": "auto"}, FixedDice(6, 6))
    assert not events_of(out, "UnitMoved") and S.where(st2, "pucara_2") == "goose_green"


# ------------------------------------------------------------- FS 9.6 refusals, Op #9, 3.7 ---
def _dagger_stranded_on_pebble_island(black_buck: bool) -> dict:
    """A Dagger and a Pucara on Pebble Island, which an SF team landed alone (Op #16) has just taken:
    both must rebase at once (FS 9.6); Goose Green is the AR's, with room for two."""
    st = uk()
    place(st, "glamorgan", "falklands")
    place(st, "sas_d", aboard="glamorgan")
    place(st, "pucara_3", "pebble_island")
    place(st, "dagger_1", "pebble_island")
    if black_buck:
        st["effects"][UK]["black_buck"] = {}
    out, st = play(st, UK, op(16, units=["sas_d"], area="pebble_island"))
    assert pending(st)["kind"] == "emergency_rebase"
    return st


def _rebase(st: dict, destinations: dict) -> dict:
    return {"kind": "decide", "decision": pending(st)["id"], "choice": {"destinations": destinations}}


def test_fs_7_1_op_9_an_emergency_rebasing_of_a_dagger_to_a_falklands_base_after_black_buck_names_op_9():
    """Op #9 "once chosen, the only AR aircraft that may thereafter base anywhere in the Falklands are
    Pucaras"; 9.6 "Normal basing restrictions must be met". After Black Buck a Dagger's emergency
    rebasing to Goose Green breaks Op #9, as the same move by Op #3 does (refused there naming
    FS 7.1 Op #9): the refusal names it and says why, in the area's name, as Op #3's does. It named
    FS 9.6 ("Dagger 1 cannot rebase to goose_green"). The Pucara may go there."""
    st = _dagger_stranded_on_pebble_island(black_buck=True)
    err = broken(st, AR, _rebase(st, {"dagger_1": "goose_green", "pucara_3": "goose_green"}), "FS 7.1 Op #9")
    assert "Goose Green" in str(err) and "Pucara" in str(err)
    out, st = play(st, AR, _rebase(st, {"dagger_1": S.ARGENTINA, "pucara_3": "goose_green"}))
    assert (S.where(st, "dagger_1"), S.where(st, "pucara_3")) == (S.ARGENTINA, "goose_green")


def test_fs_3_7_an_emergency_rebasing_into_the_south_georgia_box_names_3_7_as_op_3_does():
    """3.7 "no AR units may be moved into or out of that box except submarines" (9.5: aircraft "may
    not enter the South Georgia Holding Box"). An emergency rebasing there is refused naming FS 3.7,
    as Op #3's rebasing there is (docs/rulesets.md: an AR unit other than a submarine "moved, rebased
    ... or flown into the South Georgia box names FS 3.7"); it named FS 9.6. A rebasing to a land
    area with no airbase still names FS 9.6 ("another friendly controlled or contested base area")."""
    st = _dagger_stranded_on_pebble_island(black_buck=False)
    broken(st, AR, _rebase(st, {"dagger_1": S.SOUTH_GEORGIA}), "FS 3.7")
    err = broken(st, AR, _rebase(st, {"dagger_1": "teal_inlet"}), "FS 9.6")
    assert "Teal Inlet" in str(err)
