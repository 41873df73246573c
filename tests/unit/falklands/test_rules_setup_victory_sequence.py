"""Falklands Showdown FS 3 (set-up and control), FS 4 (victory) and FS 5 (turn sequence), each rule
on a small synthetic position (tests/unit/falklands/helpers.py)."""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder, InvalidSetup, NotYourMove, RuleViolation
from domain.game import Game
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, R, UK, FixedDice, answer, clear, control, empty, events_of, fresh, initial, names, op, place, play, remove,
    set_phase, with_factor,
)

TEZ_SUBS = sorted(u for u, d in DATA.units.items() if d.get("setup") == "tez")
TEZ = sorted(DATA.tez)
NON_TEZ_SEA = sorted(a for a in DATA.sea_areas if a not in DATA.tez)
INFANTRY_UK = sorted(u for u, d in DATA.units.items() if d["side"] == UK and d["type"] == "infantry")
INFANTRY_AR = sorted(u for u, d in DATA.units.items() if d["side"] == AR and d["type"] == "infantry")
UK_DESTROYERS = sorted(u for u, d in DATA.units.items() if d["side"] == UK and d["type"] == "D")


def seed_for(epoch: int) -> bytes:
    return f"falklands-test-seed-{epoch}".encode()


def vp(st: dict) -> int:
    return st["vp"][S.TRACK]


def a_uk_ship_in_the_tez(st: dict) -> dict:
    """Keep FS 4.4(1) quiet: one UK surface ship in a TEZ sea area."""
    return place(st, UK_DESTROYERS[0], TEZ[0])


def move(st, side, unit, origin, destination, dice=None):
    """Op #24 ground movement without attack (a handy way to change who holds a land area)."""
    set_phase(st, f"{side} Operations")
    return play(st, side, op(24, units=[unit], origin=origin, destination=destination), dice)


# =============================================================================== FS 3 set-up ===
def test_fs_3_1_ar_sets_up_first_so_the_uk_places_its_submarines_after():
    st = initial()
    # AR's forces are already on the map when the game is created (FS 3.1, 3.2) ...
    assert all(S.alive(st, u) for u, d in DATA.units.items() if d["side"] == AR and d.get("setup"))
    # ... and the first order is the UK's: placing the two submarines (FS 3.3).
    assert st["phase"] == S.SETUP_PHASE and st["active"] == [UK]
    assert R.legal_orders(st, AR) == []
    (order,) = R.legal_orders(st, UK)
    assert order["kind"] == "setup" and order["rule"] == "FS 3.3"
    assert set(order["submarines"]) == set(TEZ_SUBS)


def test_fs_3_1_the_ar_seat_cannot_act_during_set_up():
    g = Game.create("falklands", seed_for=seed_for)
    g.join(UK, "u", "", seed_for)
    g.join(AR, "a", "", seed_for)
    with pytest.raises(NotYourMove):
        g.submit(AR, "o1", {"kind": "pass"}, seed_for)


def test_fs_3_2_ar_units_stand_where_their_counters_say():
    st = initial()
    placed = {u: d["setup"] for u, d in DATA.units.items() if d["side"] == AR and d.get("setup")}
    assert placed, "the order of battle names AR set-up locations"
    for u, where in placed.items():
        assert S.where(st, u) == where, u
    # The three Op #2 units are not on the map yet (FS 3.4).
    for u in T.OP2_UNITS:
        assert not S.alive(st, u)


def test_fs_3_3_uk_starting_force_in_sea_area_4_with_the_sf_aboard_hermes():
    st = initial()
    starting = {u: d for u, d in DATA.units.items() if d["side"] == UK and d.get("setup") not in (None, "tez")}
    assert starting
    for u, d in starting.items():
        assert S.where(st, u) == "sa4", u
    sf = [u for u in starting if DATA.units[u]["type"] == "sf"]
    assert sf and all(st["units"][u]["aboard"] == "hermes" for u in sf)


def test_fs_3_3_submarines_are_placed_in_the_tez_and_set_up_then_opens_turn_1():
    st = initial()
    for u in TEZ_SUBS:
        assert not S.alive(st, u)  # not yet placed
    placing = {u: TEZ[i % len(TEZ)] for i, u in enumerate(TEZ_SUBS)}  # one or two areas
    out, st2 = play(st, UK, {"kind": "setup", "submarines": placing})
    assert names(out) == ["UnitMoved"] * len(TEZ_SUBS) + ["PhaseAdvanced"]
    assert {e["unit"]: (e["destination"], e["rule"]) for e in events_of(out, "UnitMoved")} == \
        {u: (a, "FS 3.3") for u, a in placing.items()}
    assert events_of(out, "PhaseAdvanced") == [{"turn": 1, "phase": "UK Operations", "rule": "FS 5.2"}]
    assert st2["phase"] == "UK Operations" and st2["turn"] == 1 and st2["active"] == [UK]
    for u, a in placing.items():
        assert S.where(st2, u) == a


def test_fs_3_3_both_submarines_may_share_one_tez_area():
    out, st = play(initial(), UK, {"kind": "setup", "submarines": {u: TEZ[-1] for u in TEZ_SUBS}})
    assert all(S.where(st, u) == TEZ[-1] for u in TEZ_SUBS)


@pytest.mark.parametrize("area", NON_TEZ_SEA + ["argentina", "south_georgia", "port_stanley"])
def test_fs_3_3_a_submarine_outside_the_tez_is_refused(area):
    placing = {u: TEZ[0] for u in TEZ_SUBS}
    placing[TEZ_SUBS[0]] = area
    with pytest.raises(RuleViolation) as err:
        play(initial(), UK, {"kind": "setup", "submarines": placing})
    assert err.value.rule == "FS 3.3"


def test_fs_3_3_both_submarines_must_be_placed():
    with pytest.raises(InvalidOrder) as err:
        play(initial(), UK, {"kind": "setup", "submarines": {TEZ_SUBS[0]: TEZ[0]}})
    assert err.value.rule == "FS 3.3"


def test_fs_3_3_placement_comes_before_any_operation_and_happens_once():
    # Placement order: the set-up is the first order; no operation before it ...
    with pytest.raises(RuleViolation) as err:
        play(initial(), UK, op(20, units=["hermes"], destination="sa7"))
    assert err.value.rule == "FS 5.2"
    # ... and it cannot be made again once play has begun.
    with pytest.raises(RuleViolation) as err:
        play(fresh(), UK, {"kind": "setup", "submarines": {u: TEZ[0] for u in TEZ_SUBS}})
    assert err.value.rule == "FS 3.3"


def test_fs_3_4_reinforcements_start_out_of_play_with_their_cargo_assigned():
    st = initial()
    groups = {d["group"] for d in DATA.units.values() if (d.get("group") or "").startswith("R")}
    assert groups == {f"R{i}" for i in range(1, 7)}
    for u, d in DATA.units.items():
        if (d.get("group") or "").startswith("R") or d.get("group") == "op2":
            assert not S.alive(st, u), u
    # UK ground reinforcements are pre-loaded onto specific ships of their own group.
    for u, d in DATA.units.items():
        if d["side"] == UK and d["class"] == "ground" and d.get("group"):
            assert DATA.units[d["aboard"]]["group"] == d["group"], u
    assert len(T.OP2_UNITS) == 3  # "only three possible AR reinforcement units"


def test_fs_3_5_initial_markers():
    st = fresh()
    assert st["uk_operations_left"] == 30
    assert vp(st) == 8
    assert st["exocet"] is None and st["stealth_attacks"] == 0
    assert all(not m for m in st["markers"].values())


def test_fs_3_6_every_land_area_and_south_georgia_start_under_ar_control_and_sea_is_never_controlled():
    st = initial()
    assert {a: st["control"][a] for a in DATA.land_areas} == {a: AR for a in DATA.land_areas}
    assert st["control"][S.SOUTH_GEORGIA] == AR
    assert not set(st["control"]) & set(DATA.sea_areas)


def test_fs_3_6_sole_ground_presence_takes_control_at_once():
    st = a_uk_ship_in_the_tez(empty())
    place(st, INFANTRY_UK[0], "fitzroy")
    out, st2 = move(st, UK, INFANTRY_UK[0], "fitzroy", "mount_kent")
    assert events_of(out, "ControlChanged") == [{"area": "mount_kent", "side": UK, "previous": AR, "rule": "FS 3.6"}]
    assert st2["control"]["mount_kent"] == UK
    # The area left behind keeps its controller: control changes only by sole presence.
    assert st2["control"]["fitzroy"] == AR


def test_fs_3_6_a_contested_area_keeps_its_controller_until_one_side_is_alone():
    st = a_uk_ship_in_the_tez(empty())
    place(st, INFANTRY_UK[0], "fitzroy")
    place(st, INFANTRY_AR[0], "mount_kent")
    out, st2 = move(st, UK, INFANTRY_UK[0], "fitzroy", "mount_kent")
    assert events_of(out, "ControlChanged") == []
    assert S.contested(st2, "mount_kent") and st2["control"]["mount_kent"] == AR
    # The AR unit leaves: the UK is the only side there and takes the area at once.
    out, st3 = move(st2, AR, INFANTRY_AR[0], "mount_kent", "teal_inlet")
    assert [(e["area"], e["side"]) for e in events_of(out, "ControlChanged")] == [("mount_kent", UK)]
    assert st3["control"]["mount_kent"] == UK


def test_fs_3_6_a_landing_into_an_empty_area_takes_it_at_once():
    st = a_uk_ship_in_the_tez(empty())
    place(st, "canberra", S.TACTICAL)
    place(st, INFANTRY_UK[0], aboard="canberra")
    out, st2 = play(st, UK, op(16, units=[INFANTRY_UK[0]], area="goose_green"))
    assert events_of(out, "ControlChanged") == [{"area": "goose_green", "side": UK, "previous": AR, "rule": "FS 3.6"}]
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(5)")]


def test_fs_3_6_sea_areas_are_contested_by_units_of_both_sides_but_never_controlled():
    st = empty()
    place(st, "hermes", "sa6")
    assert not S.contested(st, "sa6")
    place(st, "salta", "sa6")
    assert S.contested(st, "sa6")
    assert S.controlled_by(st, "sa6") is None


def test_fs_3_6_sf_alone_contest_an_enemy_area():
    st = empty()
    sf = next(u for u, d in DATA.units.items() if d["side"] == UK and d["type"] == "sf")
    place(st, INFANTRY_AR[0], "mount_kent")
    place(st, sf, "mount_kent")
    assert S.contested(st, "mount_kent")  # FS 10.8: SF presence contests


def test_fs_3_7_south_georgia_admits_no_ar_unit_but_submarines():
    st = empty("AR Operations")
    place(st, "drummond", "sa5")
    with pytest.raises(RuleViolation) as err:
        play(st, AR, op(20, units=["drummond"], destination=S.SOUTH_GEORGIA))
    assert err.value.rule == "FS 3.7"
    place(st, "salta", "sa5")
    out, st2 = play(st, AR, op(20, units=["salta"], destination=S.SOUTH_GEORGIA))
    assert events_of(out, "UnitMoved") == [{"unit": "salta", "origin": "sa5", "destination": S.SOUTH_GEORGIA,
                                            "rule": "FS 7.1 Op #20"}]
    assert S.where(st2, "salta") == S.SOUTH_GEORGIA


def test_fs_3_7_ar_aircraft_never_reach_south_georgia():
    st = empty("AR Operations")
    place(st, "pucara_1", "port_stanley")  # FS 9.5: unlimited range from the Falklands, except the box
    place(st, "hermes", S.SOUTH_GEORGIA)
    with pytest.raises(RuleViolation) as err:
        play(st, AR, op(18, area=S.SOUTH_GEORGIA, aircraft=["pucara_1"], fire="auto"))
    assert err.value.rule == "FS 3.7"  # also FS 9.5: "except they may not enter the South Georgia Holding Box"


def test_fs_3_7_an_ar_submarine_entering_the_captured_box_does_not_recapture_it():
    st = empty("AR Operations")
    control(st, UK, S.SOUTH_GEORGIA)
    place(st, "salta", "sa5")
    out, st2 = play(st, AR, op(20, units=["salta"], destination=S.SOUTH_GEORGIA))
    assert events_of(out, "ControlChanged") == []
    assert st2["control"][S.SOUTH_GEORGIA] == UK


# =============================================================================== FS 4 victory ===
def test_fs_4_1_one_signed_track_ar_scores_up_uk_scores_down():
    st = empty()  # no UK ship in the TEZ: AR scores (FS 4.4(1))
    out, st2 = play(st, UK, {"kind": "pass"})
    (scored,) = events_of(out, "VPScored")
    assert scored["delta"] > 0 and scored["side"] == S.TRACK and vp(st2) == vp(st) + 1
    st = empty("AR Operations")
    out, st3 = play(st, AR, op(2, unit=T.OP2_UNITS[0]))
    (scored,) = events_of(out, "VPScored")
    assert scored["delta"] < 0 and vp(st3) == vp(st) - 1


def test_fs_4_4_1_ar_scores_when_no_uk_surface_ship_is_in_the_tez_at_the_end_of_a_uk_op():
    st = empty()
    place(st, "hermes", "sa4")
    place(st, TEZ_SUBS[0], TEZ[0])  # submarines never count
    place(st, "glamorgan", S.SOUTH_GEORGIA)
    out, st2 = play(st, UK, {"kind": "pass"})
    assert events_of(out, "VPScored") == [{"side": S.TRACK, "delta": 1, "total": 9, "rule": "FS 4.4(1)",
                                           "reason": "no UK surface ship in the TEZ at the end of a UK operation"}]
    assert vp(st2) == 9
    # The point is scored once per operation however many areas are empty ...
    assert names(out).index("VPScored") < names(out).index("OperationCompleted")


@pytest.mark.parametrize("area", TEZ)
def test_fs_4_4_1_one_uk_surface_ship_in_any_tez_area_prevents_the_point(area):
    st = empty()
    place(st, "glamorgan", area)
    out, st2 = play(st, UK, {"kind": "pass"})
    assert events_of(out, "VPScored") == [] and vp(st2) == 8


def test_fs_4_4_1_is_checked_at_the_end_of_the_operation_not_the_start():
    st = empty()
    place(st, "glamorgan", TEZ[0])
    out, st2 = play(st, UK, op(20, units=["glamorgan"], destination="sa4"))
    assert [e["rule"] for e in events_of(out, "VPScored")] == ["FS 4.4(1)"]
    st = empty()
    place(st, "glamorgan", "sa4")
    out, st2 = play(st, UK, op(20, units=["glamorgan"], destination="sa7"))
    assert events_of(out, "VPScored") == []


def test_fs_4_4_1_each_of_two_uk_ops_in_one_phase_may_score():
    st = empty(superiority=True)
    out, st2 = play(st, UK, {"kind": "pass"})
    out2, st3 = play(st2, UK, {"kind": "pass"})
    assert [e["rule"] for e in events_of(out + out2, "VPScored")] == ["FS 4.4(1)", "FS 4.4(1)"]
    assert vp(st3) == 10


def test_fs_4_4_1_never_scored_at_the_end_of_an_ar_operation():
    st = empty("AR Operations")
    out, _ = play(st, AR, {"kind": "pass"})
    assert events_of(out, "VPScored") == []


def _sink(st, side, target, area, dice_face=1):
    """A one-shot attack that sinks ``target`` (one step left) in ``area``: Op #14 with a ship whose
    surface factor is read from DATA; the face is the factor itself, always a hit."""
    shooters = [u for u, d in DATA.units.items() if d["side"] == side and d["class"] == "ship"
                and d["factors"]["surface"] >= 1 and not d["protected"]]
    shooter = shooters[0]
    place(st, shooter, area)
    place(st, target, area, steps=1)
    set_phase(st, f"{side} Operations")
    face = DATA.units[shooter]["factors"]["surface"]
    # Automatic fire: the shooter's die first; any other ship of the side there fires too (FS 10.2), a miss.
    out, st2 = play(st, side, op(14, area=area, units=[shooter], fire="auto"), FixedDice(face, default=6))
    if st2["pending"]:  # the defender's fire (FS 10.2: it fires), misses
        out2, st2 = answer(st2, S.other(side), {"fire": "auto"}, FixedDice(face, default=6))
        out = out + out2
    assert not S.alive(st2, target)
    return out, st2


def _sink_vp(out):
    return [(e["delta"], e["rule"]) for e in events_of(out, "VPScored") if e["rule"] != "FS 4.4(1)"]


@pytest.mark.parametrize("area", NON_TEZ_SEA)
def test_fs_4_4_2_ar_ship_sunk_outside_the_tez_scores_for_ar(area):
    st = a_uk_ship_in_the_tez(empty())
    out, st2 = _sink(st, UK, "drummond", area)
    assert _sink_vp(out) == [(1, "FS 4.4(2)")]


def test_fs_4_4_2_belgrano_and_25_de_mayo_are_worth_two():
    for ship in T.TWO_VP_AR_SHIPS:
        st = a_uk_ship_in_the_tez(empty())
        out, _ = _sink(st, UK, ship, "sa1")
        assert _sink_vp(out) == [(2, "FS 4.4(2)")], ship


def _sink_with_a_leader_reroll(area, reroll):
    """UK Op #14 at Drummond; the UK holds its Decisive Leader marker (FS 11.3 4-1) and may have
    its missed die rolled again, right after it is rolled (FS 11.3 "after any die roll")."""
    st = a_uk_ship_in_the_tez(empty())
    st["markers"][UK] = ["uk_decisive_leader"]
    shooter = "glamorgan"
    place(st, shooter, area)
    place(st, "drummond", area)
    face = DATA.units[shooter]["factors"]["surface"]
    dice = FixedDice(6, face, 6) if reroll else FixedDice(6, 6)  # a miss, (if re-rolled) a hit, Drummond's miss
    out, st = play(st, UK, op(14, area=area, units=[shooter], fire=[{"unit": shooter, "at": "drummond"}]), dice)
    o2, st = answer(st, AR, {"fire": "auto"}, dice)  # Drummond fires back (FS 10.2)
    assert st["pending"][0]["kind"] == "leadership"
    o3, st = answer(st, UK, {"reroll": 0 if reroll else None}, dice)
    if not reroll:
        o3b, st = answer(st, UK, {"reroll": None}, dice)  # Drummond's die kept too
        o3 += o3b
    return out + o2 + o3, st


def test_fs_4_4_2_not_scored_in_an_operation_where_a_decisive_leader_marker_is_played():
    # FS 4.4(2) "aren't scored during the operation when random event 4-1/4-2/4-3 is in effect":
    # a marker held or played during the operation (docs/rulesets.md).
    out, st = _sink_with_a_leader_reroll("sa1", reroll=True)
    assert "MarkerPlayed" in names(out) and not S.alive(st, "drummond")
    assert _sink_vp(out) == []


def test_fs_4_4_2_a_held_marker_is_in_effect_no_vp_though_not_played():
    # 4-1: the marker is taken "as a reminder this event is activated": held, it is in effect.
    st = a_uk_ship_in_the_tez(empty())
    st["markers"][UK] = ["uk_decisive_leader"]
    place(st, "glamorgan", "sa1")
    place(st, "drummond", "sa1")
    face = DATA.units["glamorgan"]["factors"]["surface"]
    dice = FixedDice(face, 6)  # Glamorgan hits, Drummond misses
    out, st = play(st, UK, op(14, area="sa1", units=["glamorgan"], fire="auto"), dice)
    # the holder's own hit and the AR's miss: not asked about (11.3 4-1), the marker never played
    o2, st = answer(st, AR, {"fire": "auto"}, dice)
    out = out + o2
    assert "MarkerPlayed" not in names(out) and not S.alive(st, "drummond")
    assert st["markers"][UK] == ["uk_decisive_leader"] and _sink_vp(out) == []


def test_fs_4_4_2_a_marker_played_in_an_interception_stops_the_vp_for_the_whole_operation(monkeypatch):
    # "during the operation when ... is in effect": the AR plays its marker in the interception
    # of its own Op #20; the AR ship sunk in the naval battle that follows scores nothing.
    for u, f in (("hermes", {"air": 3}), ("glamorgan", {"surface": 3}), ("drummond", {"surface": 3}),
                 ("dagger_1", {"surface": 3})):
        with_factor(monkeypatch, u, **f)
    st = a_uk_ship_in_the_tez(empty("AR Operations"))
    st["markers"][AR] = ["ar_decisive_leader"]
    place(st, "hermes", "sa6")  # next to Sea Area 1: it may intercept
    place(st, "glamorgan", "sa1")
    place(st, "drummond", "sa2")
    place(st, "dagger_1", S.ARGENTINA)
    out, st = play(st, AR, op(20, units=["drummond"], destination="sa1", attack=True, aircraft=["dagger_1"],
                              fire=[{"unit": "drummond", "at": "glamorgan"}, {"unit": "dagger_1", "at": "glamorgan"}]))
    assert st["pending"][0]["kind"] == "interception"
    out, st = answer(st, UK, {"fire": [{"unit": "hermes", "at": "dagger_1"}]}, FixedDice(1))  # FS 10.9: three
    assert st["pending"][0]["kind"] == "leadership"  # Hermes's first die, a hit: the AR may have it rolled again
    out, st = answer(st, AR, {"reroll": 0}, FixedDice(6, 6, 6))  # the marker is played: Dagger 1 flies on
    assert "MarkerPlayed" in names(out) and st["markers"][AR] == []
    out, st = answer(st, UK, {"fire": [{"unit": "glamorgan", "at": "drummond"}]}, FixedDice(6, 6, 1))
    assert not S.alive(st, "drummond") and S.where(st, "drummond") is None
    assert _sink_vp(out) == []  # sunk outside the TEZ, in the same operation: no FS 4.4(2) VP
    assert [e["rule"] for e in events_of(out, "UnitEliminated")] == ["FS 7.1 Op #20"]  # in the op's own battle


def test_fs_4_4_2_the_next_operation_scores_again_once_the_marker_is_gone():
    st = a_uk_ship_in_the_tez(empty())
    st["leader_played_in_op"] = True  # left over from an earlier operation
    out, _ = _sink(st, UK, "drummond", "sa1")
    assert _sink_vp(out) == [(1, "FS 4.4(2)")]


def test_fs_4_4_3_uk_points_are_scored_even_with_a_leader_reroll():
    out, st = _sink_with_a_leader_reroll(TEZ[-1], reroll=True)  # away from the keeper ship (it would fire too)
    assert not S.alive(st, "drummond") and _sink_vp(out) == [(-1, "FS 4.4(3)")]


@pytest.mark.parametrize("area", TEZ + [S.SOUTH_GEORGIA])
def test_fs_4_4_3_ar_ship_sunk_in_the_tez_or_south_georgia_scores_for_the_uk(area):
    st = a_uk_ship_in_the_tez(empty())
    out, _ = _sink(st, UK, "drummond", area)
    assert _sink_vp(out) == [(-1, "FS 4.4(3)")]
    st = a_uk_ship_in_the_tez(empty())
    out, _ = _sink(st, UK, "belgrano", area)
    assert _sink_vp(out) == [(-2, "FS 4.4(3)")]


def test_fs_4_4_4_uk_ships_sunk_two_vp_for_the_named_ships_one_for_the_rest():
    for ship in ("hermes", "invincible", "fearless", "intrepid", "canberra", "qe2", "atlantic_conveyor"):
        st = empty()
        out, _ = _sink(st, AR, ship, "sa1")
        assert _sink_vp(out) == [(2, "FS 4.4(4)")], ship
    st = empty()
    out, _ = _sink(st, AR, "glamorgan", "sa1")
    assert _sink_vp(out) == [(1, "FS 4.4(4)")]


def test_fs_4_4_4_a_uk_submarine_sunk_scores_one():
    st = empty("AR Operations")
    place(st, "salta", "sa1")
    place(st, "spartan", "sa1", steps=1)
    face = DATA.units["salta"]["factors"]["sub"]
    assert face >= 1
    # Op #20 without movement: attack where the force already is.
    out, st2 = play(st, AR, op(20, units=[], support=["salta"], destination="sa1", attack=True,
                               fire=[{"unit": "salta", "at": "spartan"}]), FixedDice(face, default=6))
    if st2["pending"]:
        o2, st2 = answer(st2, UK, {"fire": "auto"}, FixedDice(face, default=6))
        out += o2
    assert not S.alive(st2, "spartan")
    assert _sink_vp(out) == [(1, "FS 4.4(4)")]


def test_fs_4_4_4_the_conveyor_is_worth_nothing_once_it_has_rendezvoused():
    st = empty()
    st["rendezvous"] = True  # FS 10.9: it leaves play then; should it still be sunk, no VP
    out, _ = _sink(st, AR, "atlantic_conveyor", "sa1")
    assert _sink_vp(out) == []


def test_fs_4_4_5_territorial_vp_are_traded_back_and_forth():
    st = a_uk_ship_in_the_tez(empty())
    uk, ar = INFANTRY_UK[0], INFANTRY_AR[0]
    place(st, uk, "fitzroy")
    place(st, ar, "san_carlos")
    worth = DATA.vp_areas["goose_green"]
    assert worth == 1  # FS 4.4(5)
    out, st = move(st, UK, uk, "fitzroy", "goose_green")
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(5)")]
    out, st = move(st, UK, uk, "goose_green", "fitzroy")
    assert events_of(out, "VPScored") == [] and st["control"]["goose_green"] == UK  # empty, still UK's
    out, st = move(st, AR, ar, "san_carlos", "goose_green")
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(1, "FS 4.4(5)")]
    assert st["control"]["goose_green"] == AR
    out, st = move(st, AR, ar, "goose_green", "lafonia")
    out, st = move(st, UK, uk, "fitzroy", "goose_green")
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(5)")]
    assert vp(st) == 8 - 1 + 1 - 1


def test_fs_4_4_5_port_stanley_is_worth_four_and_the_other_vp_areas_one():
    assert DATA.vp_areas == {"port_stanley": 4, "goose_green": 1, "fox_bay": 1, "port_howard": 1,
                             "pebble_island": 1}
    st = a_uk_ship_in_the_tez(empty())
    place(st, INFANTRY_UK[0], "fitzroy")
    out, st2 = move(st, UK, INFANTRY_UK[0], "fitzroy", "port_stanley")
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-4, "FS 4.4(5)")]
    assert vp(st2) == 4


def test_fs_4_4_5_an_area_without_vp_scores_nothing():
    st = a_uk_ship_in_the_tez(empty())
    place(st, INFANTRY_UK[0], "fitzroy")
    out, _ = move(st, UK, INFANTRY_UK[0], "fitzroy", "mount_kent")
    assert events_of(out, "ControlChanged") and events_of(out, "VPScored") == []


def test_fs_4_4_6_op_2_gives_the_uk_one_vp_each_time():
    st = empty("AR Operations")
    total = vp(st)
    for u in T.OP2_UNITS:
        set_phase(st, "AR Operations")
        out, st = play(st, AR, op(2, unit=u))
        assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 7.1 Op #2")]
    assert vp(st) == total - 3


def _last_op(st):
    """Make the next UK operation the last one (FS 5.3)."""
    st["uk_operations_left"] = 1
    return st


def test_fs_4_2_without_port_stanley_the_uk_loses_whatever_the_vp():
    st = _last_op(a_uk_ship_in_the_tez(empty()))
    st["vp"][S.TRACK] = -4
    out, st2 = play(st, UK, {"kind": "pass"})
    assert events_of(out, "GameEnded") == [{"winner": AR, "level": "war and game", "rule": "FS 4.2",
                                            "reason": "the UK does not control Port Stanley after its last operation"}]
    assert st2["ended"]


def test_fs_4_2_and_4_6_holding_port_stanley_the_vp_decide():
    for total, winner in ((0, UK), (-3, UK), (1, AR), (12, AR)):
        st = control(_last_op(a_uk_ship_in_the_tez(empty())), UK, T.PORT_STANLEY)
        st["vp"][S.TRACK] = total
        out, st2 = play(st, UK, {"kind": "pass"})
        (ended,) = events_of(out, "GameEnded")
        assert (ended["winner"], ended["level"], ended["rule"]) == (winner, "competitive game", "FS 4.6"), total
        assert st2["ended"]


def test_fs_4_2_with_3_6_a_contested_port_stanley_is_not_uk_controlled():
    """FS 3.6: a land area is "controlled" by the AR or UK side, "or they may be 'contested'", and
    a contested area "comes under your control the instant your side is the only one" there. The UK
    took Port Stanley, then the AR came back into it: after the last UK operation the UK is not "in
    control of the Port Stanley area" (4.2), and the AR wins the war and the game whatever the VP."""
    st = control(_last_op(a_uk_ship_in_the_tez(empty())), UK, T.PORT_STANLEY)
    place(st, INFANTRY_UK[0], T.PORT_STANLEY)
    place(st, INFANTRY_AR[0], T.PORT_STANLEY)
    assert S.contested(st, T.PORT_STANLEY) and S.controlled_by(st, T.PORT_STANLEY) == UK
    st["vp"][S.TRACK] = -4
    out, st2 = play(st, UK, {"kind": "pass"})
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"], ended["rule"]) == (AR, "war and game", "FS 4.2")
    assert "contested" in ended["reason"] and st2["ended"]


def test_fs_4_2_control_is_reckoned_after_the_last_operation_is_finished():
    # The last UK operation itself takes Port Stanley: the UK then meets the precondition.
    st = _last_op(a_uk_ship_in_the_tez(empty()))
    place(st, INFANTRY_UK[0], "fitzroy")
    st["vp"][S.TRACK] = 3  # becomes -1 with Port Stanley's four
    out, _ = play(st, UK, op(24, units=[INFANTRY_UK[0]], origin="fitzroy", destination="port_stanley"))
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.6")


def test_fs_4_5_sudden_death_at_plus_20_stops_play_at_once():
    st = empty()
    st["vp"][S.TRACK] = 19
    out, st2 = play(st, UK, {"kind": "pass"})  # no UK ship in the TEZ: +1
    assert names(out)[-1] == "GameEnded"
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"], ended["rule"]) == (AR, "sudden death", "FS 4.5")
    assert "OperationCompleted" not in names(out)  # play stops immediately
    assert st2["ended"] and vp(st2) == 20


def test_fs_4_5_sudden_death_at_minus_5_supersedes_the_port_stanley_precondition():
    st = a_uk_ship_in_the_tez(empty())
    st["vp"][S.TRACK] = -4
    place(st, INFANTRY_UK[0], "san_carlos")
    assert st["control"][T.PORT_STANLEY] == AR
    out, st2 = play(st, UK, op(24, units=[INFANTRY_UK[0]], origin="san_carlos", destination="goose_green"))
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"], ended["rule"]) == (UK, "sudden death", "FS 4.5")
    assert vp(st2) == -5 and st2["ended"]


def test_fs_4_5_no_sudden_death_short_of_the_thresholds():
    st = empty()
    st["vp"][S.TRACK] = 18
    out, st2 = play(st, UK, {"kind": "pass"})
    assert events_of(out, "GameEnded") == [] and not st2.get("ended")


@pytest.mark.parametrize("seat,winner", [(UK, AR), (AR, UK)])
def test_fs_4_3_surrender_the_concession_hands_the_war_to_the_opponent(seat, winner):
    g = Game.create("falklands", seed_for=seed_for)
    g.join(UK, "u", "", seed_for)
    g.join(AR, "a", "", seed_for)
    g.submit(UK, "o1", {"kind": "setup", "submarines": {u: TEZ[0] for u in TEZ_SUBS}}, seed_for)
    g.concede(seat, seed_for)
    assert g.is_ended
    ended = [e for e in g.collect_events() if type(e).__name__ == "GameEnded"][-1]
    assert (ended.winner, ended.level, ended.rule) == (winner, "concession", "FS 4.3")
    with pytest.raises(RuleViolation) as err:
        g.concede(winner, seed_for)
    assert err.value.rule == "FS 4"


def test_fs_4_7_bids_the_lower_bid_is_the_uk_operation_count():
    made = R.setup(None, {"bids": [27, 25]})
    assert made.options["uk_operations"] == 25 and made.state["uk_operations_left"] == 25
    assert R.setup(None, {"bids": [12, 12]}).state["uk_operations_left"] == 12  # a tie: same count
    assert R.setup(None, {"bids": [3, 30], "uk_operations": 3}).state["uk_operations_left"] == 3


@pytest.mark.parametrize("options", [{"bids": [0, 25]}, {"bids": [31, 25]}, {"bids": [25]}, {"bids": "25"},
                                     {"bids": [25, 27], "uk_operations": 27}, {"bids": [True, 25]}])
def test_fs_4_7_bids_are_two_numbers_from_1_to_30(options):
    with pytest.raises(InvalidSetup) as err:
        R.setup(None, options)
    assert "FS 4.7" in str(err.value)


def test_fs_4_7_the_game_ends_after_the_bid_number_of_uk_operations():
    st = fresh(bids=[3, 5])
    clear(st)
    a_uk_ship_in_the_tez(st)
    control(st, UK, T.PORT_STANLEY)
    st["vp"][S.TRACK] = -1
    lefts = []
    for _ in range(3):
        set_phase(st, "UK Operations")
        out, st = play(st, UK, {"kind": "pass"})
        lefts.append(events_of(out, "OperationCompleted")[0]["uk_operations_left"])
    assert lefts == [2, 1, 0]
    assert st["ended"] and events_of(out, "GameEnded")[0]["winner"] == UK


# ============================================================================ FS 5 sequence ===
def test_fs_5_1_and_5_2_five_phases_in_order_then_the_next_turn():
    st = a_uk_ship_in_the_tez(empty())
    seen = [st["phase"]]
    out, st = play(st, UK, {"kind": "pass"})
    seen.append(st["phase"])
    out, st = play(st, AR, {"kind": "pass"})
    seen.append(st["phase"])
    out, st = play(st, UK, {"kind": "submarines", "moves": {}})
    seen.append(st["phase"])
    dice = FixedDice(1, 1)  # the random event: 1-1, UK Operational Superiority
    out, st = play(st, AR, {"kind": "submarines", "moves": {}}, dice)
    assert [e["phase"] for e in events_of(out, "PhaseAdvanced")] == ["Random Event"]
    assert events_of(out, "TurnAdvanced") == [{"turn": 2, "phase": "UK Operations", "rule": "FS 5.2"}]
    assert names(out).index("PhaseAdvanced") < names(out).index("Roll") < names(out).index("TurnAdvanced")
    assert seen == ["UK Operations", "AR Operations", "UK Submarine", "AR Submarine"]
    assert (st["turn"], st["phase"], st["active"]) == (2, "UK Operations", [UK])
    assert st["phase_ops"] == {"allowed": 2, "done": 0, "free": 1}  # 1-1 drawn: two for one, when next up
    assert dice.epochs_closed == 1  # a new dice epoch with each turn


def test_fs_5_2_each_side_acts_only_in_its_own_phase():
    st = fresh()
    with pytest.raises(RuleViolation) as err:
        play(st, AR, op(2, unit=T.OP2_UNITS[0]))
    assert err.value.rule == "FS 5.2"
    with pytest.raises(RuleViolation) as err:
        play(st, UK, {"kind": "submarines", "moves": {}})
    assert err.value.rule == "FS 8.1"
    assert R.legal_orders(st, AR) == []
    set_phase(st, "AR Operations")
    with pytest.raises(RuleViolation) as err:
        play(st, UK, {"kind": "pass"})
    assert err.value.rule == "FS 5.2"


def test_fs_5_3_each_uk_operation_moves_the_track_down_one_ar_operations_never():
    st = a_uk_ship_in_the_tez(empty())
    out, st = play(st, UK, {"kind": "pass"})
    assert events_of(out, "OperationCompleted") == [{"side": UK, "op": "pass", "uk_operations_left": 29,
                                                     "rule": "FS 5.3"}]
    assert st["uk_operations_left"] == 29
    out, st = play(st, AR, op(2, unit=T.OP2_UNITS[0]))
    assert events_of(out, "OperationCompleted")[0]["uk_operations_left"] == 29
    assert st["uk_operations_left"] == 29


def test_fs_11_3_1_1_with_one_operation_left_the_uk_still_conducts_both():
    st = control(a_uk_ship_in_the_tez(empty(uk_operations=1)), UK, T.PORT_STANLEY)
    st["effects"][UK]["uk_operational_superiority"] = {"rule": "FS 5.4"}
    st["phase_ops"] = {"allowed": 2, "done": 0, "free": 1}
    out, st = play(st, UK, {"kind": "pass"})
    assert not st["ended"] and st["uk_operations_left"] == 1
    out, st = play(st, UK, {"kind": "pass"})
    assert st["ended"] and st["uk_operations_left"] == 0


def test_fs_5_3_the_last_turn_is_truncated_right_after_the_uk_operation():
    st = control(a_uk_ship_in_the_tez(empty(uk_operations=1)), UK, T.PORT_STANLEY)
    assert st["uk_operations_left"] == 1
    out, st2 = play(st, UK, {"kind": "pass"})
    assert names(out) == ["OperationBegun", "OperationCompleted", "GameEnded"]
    assert st2["ended"] and st2["phase"] == "UK Operations"  # no AR Operations Phase follows
    assert R.legal_orders(st2, AR) == [] and R.legal_orders(st2, UK) == []


def test_fs_5_4_event_1_1_is_in_effect_at_the_start_two_uk_ops_for_the_price_of_one():
    st = fresh(superiority=True)
    clear(st)
    a_uk_ship_in_the_tez(st)
    assert "uk_operational_superiority" in st["effects"][UK]
    assert st["phase_ops"] == {"allowed": 2, "done": 0, "free": 1}
    out, st = play(st, UK, {"kind": "pass"})
    assert events_of(out, "OperationBegun")[0]["free"] is True  # the first of the pair costs nothing
    assert st["uk_operations_left"] == 30 and st["phase"] == "UK Operations"  # a second op follows
    out, st = play(st, UK, op(20, units=[UK_DESTROYERS[0]], destination=TEZ[1]))
    assert events_of(out, "OperationBegun")[0]["free"] is False
    assert events_of(out, "OperationCompleted")[0]["uk_operations_left"] == 29  # one for the pair
    assert {"side": UK, "effect": "uk_operational_superiority", "rule": "FS 11.3"} in events_of(out, "EffectSpent")
    assert st["phase"] == "AR Operations" and "uk_operational_superiority" not in st["effects"][UK]


def test_fs_5_4_from_the_real_start_of_the_game():
    out, st = play(initial(), UK, {"kind": "setup", "submarines": {u: TEZ[0] for u in TEZ_SUBS}})
    assert st["phase_ops"] == {"allowed": 2, "done": 0, "free": 1}
    assert st["effects"][UK]["uk_operational_superiority"] == {"rule": "FS 5.4"}
