"""Falklands Showdown FS 3-6 and 8 read as an examiner would: set-up, VP awards, sudden death,
the end of the game, the turn sequence and the basing limits, each on a small synthetic
position (helpers.py), for what test_rules_setup_victory_sequence.py and
test_rules_transport_movement.py do not already check. Each docstring quotes the text."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, DAGGERS, PUCARAS, R, TEZ, UK, UK_DESTROYERS, UK_INFANTRY, FixedDice, answer, ar, control, empty,
    events_of, names, op, pending, place, play, refused, set_phase, uk, with_factor,
)

AR_INFANTRY = sorted(u for u, d in DATA.units.items() if d["side"] == AR and d["type"] == "infantry")
NON_PUCARA_AIRCRAFT = sorted(u for u, d in DATA.units.items() if d["class"] == "aircraft" and d["type"] != "Puc"
                             and not d["stealth"])


def refuelled(units: list[str]) -> list[str]:
    """The A-4s among ``units``: from Argentina they reach a Falklands base only refuelled (FS 9.4)."""
    return [u for u in units if DATA.units[u].get("range") == "a4"]


def vp(st: dict) -> int:
    return st["vp"][S.TRACK]


def scored(out) -> list[tuple[int, str]]:
    return [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")]


def ar_sinks(st: dict, target: str, area: str, monkeypatch) -> tuple[list, dict]:
    """AR Op #14: Drummond (surface factor 3 here) sinks ``target`` (one step left) in ``area``;
    the UK's defensive fire misses."""
    with_factor(monkeypatch, "drummond", surface=3)
    place(st, "drummond", area)
    place(st, target, area, steps=1)
    set_phase(st, "AR Operations")
    dice = FixedDice(1, default=6)
    out, st2 = play(st, AR, op(14, area=area, units=["drummond"], fire=[{"unit": "drummond", "at": target}]), dice)
    while pending(st2):  # the defender fires back (FS 10.2) and misses
        more, st2 = answer(st2, pending(st2)["seat"], {"fire": "auto"}, dice)
        out = [*out, *more]
    assert not S.alive(st2, target)
    return out, st2


def walk(st: dict, side: str, unit: str, origin: str, destination: str) -> tuple[list, dict]:
    """Op #24 ground movement without attack, in ``side``'s Operations Phase."""
    set_phase(st, f"{side} Operations")
    return play(st, side, op(24, units=[unit], origin=origin, destination=destination))


# ================================================================================ FS 4.4(1) ===
def test_fs_4_4_1_the_point_of_the_last_uk_operation_counts_in_the_final_reckoning():
    """FS 4.4(1): "This VP may potentially be scored at the end of each UK operation throughout the
    game"; FS 4.6: "If the VP tally is in positive numbers, the AR player has won." The last UK
    operation leaves no surface ship in the TEZ: the tally goes from 0 to +1 before the reckoning."""
    st = control(empty(uk_operations=1), UK, T.PORT_STANLEY)
    st["vp"][S.TRACK] = 0
    out, st2 = play(st, UK, {"kind": "pass"})
    assert scored(out) == [(1, "FS 4.4(1)")]
    assert names(out).index("VPScored") < names(out).index("GameEnded")
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"], ended["rule"]) == (AR, "competitive game", "FS 4.6")
    assert st2["ended"] and vp(st2) == 1


def test_fs_4_4_1_the_atlantic_conveyor_is_a_uk_surface_ship_in_the_tez():
    """FS 4.4(1): the AR scores when "there are no UK surface ships in any of the three sea areas
    within the Total Exclusion Zone"; the Atlantic Conveyor is a transport (FS 6.2(2)), a surface
    ship: alone in the TEZ it keeps the point from the AR."""
    st = empty()
    place(st, T.CONVEYOR, TEZ[0])
    out, st2 = play(st, UK, {"kind": "pass"})
    assert scored(out) == [] and vp(st2) == 8


# ================================================================================ FS 4.4(4) ===
@pytest.mark.parametrize("area", TEZ)
def test_fs_4_4_4_a_uk_ship_sunk_inside_the_tez_scores_for_the_ar_too(area, monkeypatch):
    """FS 4.4(4): "The AR player will add two positive VP ... whenever and wherever he sinks any of
    the following UK ships: Hermes, ..." - in the TEZ as well; FS 4.4(3) is for AR ships only."""
    st = place(empty(), UK_DESTROYERS[-1], TEZ[0] if area != TEZ[0] else TEZ[1])
    out, st2 = ar_sinks(st, "hermes", area, monkeypatch)
    assert scored(out) == [(2, "FS 4.4(4)")] and vp(st2) == 10


# =================================================================================== FS 4.5 ===
def test_fs_4_5_a_two_point_sinking_that_passes_plus_20_ends_the_game_for_the_ar(monkeypatch):
    """FS 4.5: "If the VP tally ever reaches +20, play stops immediately and the AR player is
    declared the winner" - from +19 a two-point sinking (FS 4.4(4), Invincible) makes +21."""
    st = place(empty(), UK_DESTROYERS[-1], TEZ[0])
    st["vp"][S.TRACK] = 19
    out, st2 = ar_sinks(st, "invincible", "sa1", monkeypatch)
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"], ended["rule"]) == (AR, "sudden death", "FS 4.5")
    assert names(out)[-1] == "GameEnded" and "OperationCompleted" not in names(out)  # play stops at once
    assert st2["ended"] and vp(st2) == 21


def test_fs_4_5_after_sudden_death_no_side_is_asked_for_anything():
    """FS 4.5: "play stops immediately": no order is offered to either side afterwards."""
    st = empty()
    st["vp"][S.TRACK] = 19
    out, st2 = play(st, UK, {"kind": "pass"})  # FS 4.4(1): +1, to +20
    assert st2["ended"] and st2["phase"] == "UK Operations"
    assert R.legal_orders(st2, UK) == [] and R.legal_orders(st2, AR) == []


def test_fs_4_5_ar_recapturing_port_stanley_at_plus_16_reaches_plus_20():
    """FS 4.4(5): "If the AR player manages to recapture any VP area, he immediately adds back the
    corresponding number (one or four)"; FS 4.5: at +20 "play stops immediately"."""
    st = control(empty(), UK, T.PORT_STANLEY)
    st["vp"][S.TRACK] = 16
    place(st, AR_INFANTRY[0], "mount_kent")
    out, st2 = walk(st, AR, AR_INFANTRY[0], "mount_kent", T.PORT_STANLEY)
    assert scored(out) == [(4, "FS 4.4(5)")]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"]) == (AR, "sudden death")
    assert st2["control"][T.PORT_STANLEY] == AR and vp(st2) == 20


# ================================================================================ FS 4.4(5) ===
def test_fs_4_4_5_port_stanley_taken_and_recaptured_four_each_way():
    """FS 4.4(5): "four negative VP ... when he takes control of the Port Stanley area ... If the AR
    player manages to recapture any VP area, he immediately adds back the corresponding number"."""
    st = place(empty(), UK_DESTROYERS[-1], TEZ[0])
    place(st, UK_INFANTRY[0], "mount_kent")
    place(st, AR_INFANTRY[0], "fitzroy")
    out, st = walk(st, UK, UK_INFANTRY[0], "mount_kent", T.PORT_STANLEY)
    assert scored(out) == [(-4, "FS 4.4(5)")] and vp(st) == 4
    out, st = walk(st, UK, UK_INFANTRY[0], T.PORT_STANLEY, "mount_kent")
    assert scored(out) == [] and st["control"][T.PORT_STANLEY] == UK  # left empty: still the UK's
    out, st = walk(st, AR, AR_INFANTRY[0], "fitzroy", T.PORT_STANLEY)
    assert scored(out) == [(4, "FS 4.4(5)")] and vp(st) == 8 and st["control"][T.PORT_STANLEY] == AR


def test_fs_4_4_5_a_vp_area_whose_last_uk_unit_is_destroyed_stays_uk_no_vp(monkeypatch):
    """FS 3.6: an area "comes under your control the instant your side is the only one to have one
    or more ground units in it": the UK unit holding Goose Green destroyed by AR bombardment
    leaves the area empty - no side is alone there, the UK keeps it, no VP (FS 4.4(5))."""
    with_factor(monkeypatch, "drummond", ground=4)
    st = control(ar(), UK, "goose_green")
    place(st, "drummond", S.TACTICAL)
    place(st, UK_INFANTRY[0], "goose_green", steps=1)
    out, st2 = play(st, AR, op(21, area="goose_green", units=["drummond"],
                               fire=[{"unit": "drummond", "at": UK_INFANTRY[0]}]), FixedDice(1))
    assert not S.alive(st2, UK_INFANTRY[0])
    assert events_of(out, "ControlChanged") == [] and scored(out) == []
    assert st2["control"]["goose_green"] == UK


# ============================================================================== FS 4.2 / 5.3 ===
def test_fs_5_3_a_last_uk_attack_ends_the_game_only_once_it_is_completed(monkeypatch):
    """FS 5.3: "Keep working through the turns ... until the UK player has expended his final
    operation. At that time play stops": a last Op #14 waiting for the AR's defensive fire is not
    yet completed; the game ends (FS 4.2, no Port Stanley) once the fire is answered."""
    with_factor(monkeypatch, "glamorgan", surface=3)
    st = place(empty(uk_operations=1), "glamorgan", "sa1")
    place(st, UK_DESTROYERS[-1], TEZ[0])
    place(st, "drummond", "sa1")
    dice = FixedDice(6, default=6)
    out, st2 = play(st, UK, op(14, area="sa1", units=["glamorgan"], fire=[{"unit": "glamorgan", "at": "drummond"}]),
                    dice)
    assert pending(st2) is not None and pending(st2)["seat"] == AR and not st2.get("ended")
    assert events_of(out, "GameEnded") == []
    out, st3 = answer(st2, AR, {"fire": "auto"}, dice)
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (AR, "FS 4.2")
    assert st3["ended"] and st3["uk_operations_left"] == 0


# =================================================================================== FS 5.2 ===
def test_fs_5_2_each_phase_asks_only_its_own_side_and_the_kind_of_order_it_takes():
    """FS 5.2: "I. UK Operations Phase II. AR Operations Phase III. UK Submarine Phase IV. AR
    Submarine Phase V. Random Event Phase" - at each step only that phase's side is asked, for an
    operation (or pass) in I and II, for submarine moves in III and IV; V asks no one, and the next
    turn opens with the UK Operations Phase."""
    st = place(empty(), UK_DESTROYERS[-1], TEZ[0])
    expected = [("UK Operations", UK, {"operation", "pass"}), ("AR Operations", AR, {"operation", "pass"}),
                ("UK Submarine", UK, {"submarines"}), ("AR Submarine", AR, {"submarines"})]
    orders = [{"kind": "pass"}, {"kind": "pass"}, {"kind": "submarines", "moves": {}},
              {"kind": "submarines", "moves": {}}]
    for (phase, side, kinds), order in zip(expected, orders):
        assert (st["phase"], st["active"]) == (phase, [side])
        assert {o["kind"] for o in R.legal_orders(st, side)} <= kinds
        assert "pass" in kinds or {o["kind"] for o in R.legal_orders(st, side)} == kinds
        assert R.legal_orders(st, S.other(side)) == []
        out, st = play(st, side, order, FixedDice(2, 2))  # 2-2: a random event with no decision
    assert (st["turn"], st["phase"], st["active"]) == (2, "UK Operations", [UK])
    assert [o["kind"] for o in R.legal_orders(st, UK)][-1] == "pass" and R.legal_orders(st, AR) == []


# ================================================================================ FS 6.2(3)(4) ===
def test_fs_6_2_3_a_fourth_aircraft_at_port_stanley_is_refused_naming_6_2_3():
    """FS 6.2(3): "Port Stanley airbase can base a total of three AR aircraft counters.\""""
    st = ar()
    for u in NON_PUCARA_AIRCRAFT[:3]:
        place(st, u, T.PORT_STANLEY)
    place(st, NON_PUCARA_AIRCRAFT[3], S.ARGENTINA)
    e = refused(st, AR, op(3, aircraft=[NON_PUCARA_AIRCRAFT[3]], origin=S.ARGENTINA, destination=T.PORT_STANLEY,
                                 refuel=refuelled([NON_PUCARA_AIRCRAFT[3]])))
    assert e.rule == "FS 6.2(3)"


@pytest.mark.parametrize("base", ["goose_green", "pebble_island"])
def test_fs_6_2_4_a_third_aircraft_at_goose_green_or_pebble_island_is_refused_naming_6_2_4(base):
    """FS 6.2(4): "Goose Green and Pebble Island airbases can each base a total of two AR aircraft
    counters.\""""
    st = ar()
    for u in PUCARAS[:2]:
        place(st, u, base)
    place(st, DAGGERS[0], S.ARGENTINA)
    e = refused(st, AR, op(3, aircraft=[DAGGERS[0]], origin=S.ARGENTINA, destination=base))
    assert e.rule == "FS 6.2(4)"
    st = ar()  # two at once into an empty base are fine, three are not
    for u in NON_PUCARA_AIRCRAFT[:3]:
        place(st, u, S.ARGENTINA)
    out, _ = play(st, AR, op(3, aircraft=NON_PUCARA_AIRCRAFT[:2], origin=S.ARGENTINA, destination=base,
                                refuel=refuelled(NON_PUCARA_AIRCRAFT[:2])))
    assert [e["destination"] for e in events_of(out, "UnitMoved")] == [base, base]
    e = refused(st, AR, op(3, aircraft=NON_PUCARA_AIRCRAFT[:3], origin=S.ARGENTINA, destination=base,
                               refuel=refuelled(NON_PUCARA_AIRCRAFT[:3])))
    assert e.rule == "FS 6.2(4)"


def test_fs_6_2_3_emergency_rebasing_beyond_port_stanley_s_three_is_refused_naming_6_2_3():
    """FS 6.3 / 9.6: aircraft on a base the UK takes rebase at once, within the limits; FS 6.2(3):
    Port Stanley "can base a total of three": with two there, two more are refused."""
    st = uk()
    place(st, "hermes", "sa4")  # out of range: no interception
    place(st, UK_INFANTRY[0], "san_carlos")
    place(st, PUCARAS[0], "goose_green")
    place(st, PUCARAS[1], "goose_green")
    place(st, DAGGERS[0], T.PORT_STANLEY)
    place(st, DAGGERS[1], T.PORT_STANLEY)
    out, st2 = play(st, UK, op(24, units=[UK_INFANTRY[0]], origin="san_carlos", destination="goose_green"))
    assert pending(st2)["kind"] == "emergency_rebase"
    with pytest.raises(RuleViolation) as err:
        answer(st2, AR, {"destinations": {PUCARAS[0]: T.PORT_STANLEY, PUCARAS[1]: T.PORT_STANLEY}})
    assert err.value.rule == "FS 6.2(3)"
    out, st3 = answer(st2, AR, {"destinations": {PUCARAS[0]: T.PORT_STANLEY, PUCARAS[1]: S.ARGENTINA}})
    assert S.where(st3, PUCARAS[0]) == T.PORT_STANLEY and S.where(st3, PUCARAS[1]) == S.ARGENTINA


# =================================================================================== FS 8.1 ===
def test_fs_8_1_onyx_moved_in_the_submarine_phase_takes_the_sbs_along():
    """FS 8.1: "you may choose to move none, one, some, or all or your submarines"; FS 6.5:
    transported units "are for all purposes considered an inseparable part of the unit
    transporting them" - the SBS aboard Onyx (FS 6.2(1)) goes where Onyx goes."""
    onyx = next(u for u, d in DATA.units.items() if d.get("carries_sbs"))
    st = uk("UK Submarine")
    place(st, onyx, "sa4")
    place(st, "sbs", aboard=onyx)
    out, st2 = play(st, UK, {"kind": "submarines", "moves": {onyx: S.TACTICAL}})
    assert S.where(st2, onyx) == S.TACTICAL and S.where(st2, "sbs") == S.TACTICAL
    assert st2["units"]["sbs"]["aboard"] == onyx
    assert st2["uk_operations_left"] == st["uk_operations_left"]  # "These moves don't use up operations"


def test_fs_6_2_3_emergency_rebasing_into_a_full_port_stanley_is_refused_naming_6_2_3():
    """FS 6.2(3): Port Stanley "can base a total of three AR aircraft counters": with three there,
    one more rebasing aircraft is refused under that clause."""
    st = uk()
    place(st, "hermes", "sa4")
    place(st, UK_INFANTRY[0], "san_carlos")
    place(st, PUCARAS[0], "goose_green")
    for u in NON_PUCARA_AIRCRAFT[:3]:
        place(st, u, T.PORT_STANLEY)
    out, st2 = play(st, UK, op(24, units=[UK_INFANTRY[0]], origin="san_carlos", destination="goose_green"))
    with pytest.raises(RuleViolation) as err:
        answer(st2, AR, {"destinations": {PUCARAS[0]: T.PORT_STANLEY}})
    assert err.value.rule == "FS 6.2(3)"


# =================================================================================== FS 5.1 ===
def _game_after_set_up():
    from domain.game import Game

    def seed_for(epoch: int) -> bytes:
        return f"falklands-examiner-seed-{epoch}".encode()

    g = Game.create("falklands", seed_for=seed_for)
    g.join(UK, "u", "", seed_for)
    g.join(AR, "a", "", seed_for)
    subs = {u: TEZ[0] for u, d in DATA.units.items() if d.get("setup") == "tez"}
    g.submit(UK, "o1", {"kind": "setup", "submarines": subs}, seed_for)
    return g, seed_for


@pytest.mark.parametrize("accept", [True, False])
def test_fs_5_1_a_finished_operation_is_redone_only_if_the_opponent_permits(accept):
    """FS 5.1: "Once a player has finished a particular operation or other activity, he may not redo
    it unless his opponent graciously permits it." The UK player asks; only the AR player answers."""
    g, seed_for = _game_after_set_up()
    before = g.state["phase_ops"]["done"]
    g.submit(UK, "o2", {"kind": "pass"}, seed_for)
    assert g.state["phase_ops"]["done"] == before + 1
    g.request_take_back(UK, "meant to move")
    with pytest.raises(RuleViolation) as err:
        g.answer_take_back(UK, True)  # not his to permit
    assert err.value.rule == "FS 5.1"
    g.answer_take_back(AR, accept)
    assert g.state["phase_ops"]["done"] == (before if accept else before + 1)


# ======================================================= FS 3.3 / 4.4(1) / 5.4 from the real start ===
def test_fs_4_4_1_from_the_real_start_the_uk_force_in_sea_area_4_gives_the_ar_a_point_per_operation():
    """FS 3.3: "The UK starting force is placed in Sea Area 4" (outside the TEZ) and the submarines
    in the TEZ; FS 4.4(1): "Submarines never count for this"; FS 5.4: 1-1 is in effect at the start
    (two UK operations for the price of one). Two UK passes score +1 each (8 -> 10) and cost one
    operation; the turn then runs through its phases; in turn 2 a UK operation that ends with the
    surface force in the TEZ scores nothing."""
    from .helpers import initial
    subs = {u: TEZ[0] for u, d in DATA.units.items() if d.get("setup") == "tez"}
    _, st = play(initial(), UK, {"kind": "setup", "submarines": subs})
    assert (st["turn"], st["phase"], vp(st)) == (1, "UK Operations", 8)
    out, st = play(st, UK, {"kind": "pass"})
    assert scored(out) == [(1, "FS 4.4(1)")] and st["phase"] == "UK Operations"
    out, st = play(st, UK, {"kind": "pass"})
    assert scored(out) == [(1, "FS 4.4(1)")] and vp(st) == 10 and st["uk_operations_left"] == 29
    assert st["phase"] == "AR Operations"
    _, st = play(st, AR, {"kind": "pass"})
    _, st = play(st, UK, {"kind": "submarines", "moves": {}})
    _, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(2, 2))
    assert (st["turn"], st["phase"], vp(st)) == (2, "UK Operations", 10)
    force = sorted(u for u in S.units_in(st, "sa4", side=UK, classes=["ship"]))
    assert "hermes" in force
    out, st = play(st, UK, op(20, units=force, destination=TEZ[0]))
    assert scored(out) == [] and vp(st) == 10 and st["uk_operations_left"] == 28


# ============================================================================= FS 4.4(2)(3) ===
@pytest.mark.parametrize("area,expected", [(TEZ[1], [(-1, "FS 4.4(3)")]), ("sa1", [(1, "FS 4.4(2)")])])
def test_fs_4_4_2_and_3_an_ar_ship_sunk_by_uk_defensive_fire_in_an_ar_operation_scores_by_where(
        area, expected, monkeypatch):
    """FS 4.4(3): "for every AR ship sunk within the Total Exclusion Zone" (UK, negative); FS
    4.4(2): "for every AR ship sunk in any sea areas other than those within the Total Exclusion
    Zone" (AR, positive) - whoever's operation it is: here the AR attacks and the UK's return fire
    (FS 10.2) sinks the attacker."""
    with_factor(monkeypatch, "drummond", surface=1)
    with_factor(monkeypatch, "glamorgan", surface=3)
    st = place(empty("AR Operations"), UK_DESTROYERS[-1], TEZ[0])
    place(st, "drummond", area, steps=1)
    place(st, "glamorgan", area)
    dice = FixedDice(6, 1)  # Drummond misses; Glamorgan's return fire hits
    out, st2 = play(st, AR, op(14, area=area, units=["drummond"], fire=[{"unit": "drummond", "at": "glamorgan"}]),
                    dice)
    while pending(st2):
        more, st2 = answer(st2, pending(st2)["seat"], {"fire": "auto"}, dice)
        out = [*out, *more]
    assert not S.alive(st2, "drummond") and S.alive(st2, "glamorgan")
    assert scored(out) == expected
