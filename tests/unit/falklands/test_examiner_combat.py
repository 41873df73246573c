"""Falklands Showdown chapters 9 (movement) and 10 (combat) read as an examiner would: worked
battles with fixed dice, written from the rules text alone, for what test_rules_combat.py,
test_rules_transport_movement.py and the other examiner modules do not already check. Every
combat factor a test relies on is set with ``with_factor`` unless the text gives it (the UK
carriers' anti-aircraft 3, FS 10.9's Interception Example); positions are small (helpers.py)."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, UK, R, FixedDice, answer, control, empty, events_of, fire, names, op, pending, place, play, refused,
    rolls_of, uk, with_factor,
)

FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"]
            and not DATA.areas[a]["vp"])


def shots(out) -> list[tuple]:
    """(seat, shooter, target, hit number) of every die rolled, in the order rolled."""
    return [(r.seat, *r.units[:2], r.target["hit_number"]) for r in rolls_of(out)]


def fought(st, seat, order, dice, defence="auto"):
    """Play ``order``; the defender answers its defensive fire with ``defence``."""
    out, st2 = play(st, seat, order, dice)
    d = pending(st2)
    if d is not None and d["kind"] == "defensive_fire":
        more, st2 = answer(st2, d["seat"], {"fire": defence}, dice)
        out = [*out, *more]
    return out, st2


# ------------------------------------------------------------------------------- FS 9.4 ---
def test_fs_9_4_op_3_an_a4_rebasing_from_argentina_to_a_falklands_base_needs_aerial_refuelling():
    """FS 9.4 (AR Aircraft Movement & Ranges from Argentina): "A-4s operating from Argentina have
    a range sufficient to reach Sea Areas 1, 2, 3 and 6. ... in any one operation in which they're
    involved, up to four Argentina-based A-4 units may be designated as using aerial refueling,
    and they can thereby extend their range to include the Falkland Islands Sea Area"; FS 9.3: the
    land areas lie within that sea area. An Op #3 rebase to Port Stanley is such a flight."""
    st = empty("AR Operations")
    place(st, "a4_1", S.ARGENTINA)
    order = op(3, aircraft=["a4_1"], origin=S.ARGENTINA, destination="port_stanley")
    assert refused(st, AR, order).rule == "FS 9.4"
    assert R.operation_template(st, AR, 3)["choices"]["refuel"] == ["a4_1"]  # offered with the rebase
    out, st2 = play(st, AR, {**order, "refuel": ["a4_1"]})
    assert S.where(st2, "a4_1") == "port_stanley"
    # Other aircraft reach out to the range line, which takes in the Falkland Islands Sea Area.
    assert "falklands" in DATA.range_line
    place(st, "dagger_1", S.ARGENTINA)
    out, st3 = play(st, AR, op(3, aircraft=["dagger_1"], origin=S.ARGENTINA, destination="port_stanley"))
    assert S.where(st3, "dagger_1") == "port_stanley"


def test_fs_9_5_an_a4_based_in_the_falklands_rebases_home_without_refuelling():
    """FS 9.5: "All AR aircraft flying from bases in the Falklands have an unlimited range"."""
    st = empty("AR Operations")
    place(st, "a4_1", "goose_green")
    out, st2 = play(st, AR, op(3, aircraft=["a4_1"], origin="goose_green", destination=S.ARGENTINA))
    assert S.where(st2, "a4_1") == S.ARGENTINA


# ------------------------------------------------------------------------------- FS 9.3 ---
def test_fs_9_3_the_ar_carrier_too_strikes_one_sea_area_away_and_no_further():
    """FS 9.3: "All aircraft carriers have a strike range of one sea area" - the 25 de Mayo too."""
    st = empty("AR Operations")
    place(st, "25_de_mayo", "sa1")
    place(st, "glamorgan", "sa6")  # next to Sea Area 1
    place(st, "broadsword", "sa7")  # two areas away
    assert "sa6" in DATA.sea_adjacent("sa1") and "sa7" not in DATA.sea_adjacent("sa1")
    out, _ = play(st, AR, op(18, area="sa6", carriers=["25_de_mayo"], fire=fire(("25_de_mayo", "glamorgan"))),
                  FixedDice(6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["25_de_mayo"]
    e = refused(st, AR, op(18, area="sa7", carriers=["25_de_mayo"], fire=fire(("25_de_mayo", "broadsword"))))
    assert e.rule == "FS 9.3"


# ------------------------------------------------------------------------------- FS 9.6 ---
def test_fs_9_6_a_contested_base_is_an_emergency_destination():
    """FS 9.6: "The AR player should move the rebasing to another friendly controlled or contested
    base area or to Argentina" - a contested base is a destination here (it is not for Op #3)."""
    st = uk()
    place(st, "2_para", "san_carlos")
    place(st, "pucara_2", "goose_green")
    place(st, "3_para", "pebble_island")
    place(st, "ri_25", "pebble_island")  # Pebble Island: contested, still AR-controlled
    out, st2 = play(st, UK, op(24, units=["2_para"], origin="san_carlos", destination="goose_green"))
    d = pending(st2)
    assert (d["kind"], d["rule"]) == ("emergency_rebase", "FS 9.6")
    assert "pebble_island" in d["options"]["destinations"]["pucara_2"]
    out, st3 = answer(st2, AR, {"destinations": {"pucara_2": "pebble_island"}})
    assert S.where(st3, "pucara_2") == "pebble_island"


# ---------------------------------------------------------------- FS 10.9 with Op #11 ---
def test_fs_10_9_the_interception_example_played_through(monkeypatch):
    """FS 10.9's Interception Example: the two carriers in the Falklands Sea Area, no Conveyor
    yet; AR planes from Argentina strike them. "The UK player then makes six attack rolls: that's
    three per carrier, with a hit number of '3' ... Whatever hits ... are immediately removed ...
    The surviving AR aircraft then press on ... where they then fight another battle with those
    carriers; however, this time the combat die rolls of both sides would be rolled
    simultaneously" (FS 10.2: the operating player's dice first; every die before any hit)."""
    st = empty("AR Operations")
    for c in ("hermes", "invincible"):
        place(st, c, "falklands")
    planes = ["dagger_1", "dagger_2", "mirage_3"]
    for a in planes:
        place(st, a, S.ARGENTINA)
        with_factor(monkeypatch, a, surface=3)
    order = op(18, area="falklands", aircraft=planes,
               fire=fire(("dagger_1", "hermes"), ("dagger_2", "hermes"), ("mirage_3", "invincible")))
    out, st = play(st, AR, order)
    assert pending(st)["kind"] == "interception" and "BattleBegun" not in names(out)
    # Each carrier's first shot assigned; the others aimed as they are fired, the dice before them
    # known ("they need not assign each shot beforehand"): two planes still standing, the UK is asked.
    out, st = answer(st, UK, {"fire": fire(("hermes", "dagger_2"), ("invincible", "mirage_3"))},
                     FixedDice(2, 6))  # one hit: Dagger 2
    rolled = shots(out)
    for carrier, at in (("hermes", "dagger_1"), ("hermes", "mirage_3"), ("invincible", "dagger_1"),
                        ("invincible", "mirage_3")):
        d = pending(st)
        assert (d["kind"], d["seat"], d["options"]["carrier"]) == ("carrier_shot", UK, carrier)
        assert d["options"]["standing"] == ["dagger_1", "mirage_3"]  # Dagger 2 is down
        out, st = answer(st, UK, {"at": at}, FixedDice(6))
        rolled += shots(out)
    assert [s[0] for s in rolled] == [UK] * 6 and {s[3] for s in rolled} == {3}
    assert [s[1] for s in rolled].count("hermes") == 3 == [s[1] for s in rolled].count("invincible")
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["dagger_2"]
    # The survivors press on: the second battle, the carriers answering with three shots each.
    d = pending(st)
    assert d["kind"] == "defensive_fire" and d["seat"] == UK
    assert events_of(out, "BattleBegun")[-1]["attackers"] == ["dagger_1", "mirage_3"]
    back = fire(("hermes", "dagger_1"), ("hermes", "mirage_3"), ("hermes", "mirage_3"),
                ("invincible", "mirage_3"), ("invincible", "mirage_3"), ("invincible", "dagger_1"))
    # Dagger 1 hits Hermes, the Mirage misses; Invincible's second shot downs the Mirage, its
    # third Dagger 1 - both have fired already, and Dagger 1's hit stands. (All six assigned
    # beforehand, none at a plane already down: no carrier_shot is asked.)
    out, st = answer(st, UK, {"fire": back}, FixedDice(1, 6, 6, 6, 6, 6, 3, 2))
    assert [s[:2] for s in shots(out)] == [(AR, "dagger_1"), (AR, "mirage_3")] + [(UK, c) for c, _ in
                                                                                  [(f["unit"], 0) for f in back]]
    assert [s[3] for s in shots(out)] == [3, 3] + [3] * 6
    assert events_of(out, "UnitHit") == [{"unit": "hermes", "steps_lost": 1, "steps_left": 1,
                                          "rule": "FS 7.1 Op #18", "roll": None}]
    assert sorted(e["unit"] for e in events_of(out, "UnitEliminated")) == ["dagger_1", "mirage_3"]
    assert st["units"]["hermes"]["steps"] == 1 and S.alive(st, "hermes")


def test_fs_7_1_op_11_the_ar_carrier_attacks_even_when_every_plane_is_intercepted():
    """Op #11: "attacks by the AR carrier, may never be intercepted"; FS 10.9's example: the
    interception removes its victims, "the surviving AR aircraft then press on" - with no plane
    left the 25 de Mayo's strike from the next sea area still goes in (and no UK unit can reach it
    to fire back: FS 10.1, carriers project their factors into the adjacent area)."""
    st = empty("AR Operations")
    place(st, "hermes", "sa7")
    place(st, "glamorgan", "falklands")
    place(st, "25_de_mayo", "sa6")
    place(st, "dagger_1", S.ARGENTINA)
    order = op(18, area="falklands", aircraft=["dagger_1"], carriers=["25_de_mayo"],
               fire=fire(("dagger_1", "glamorgan"), ("25_de_mayo", "glamorgan")))
    out, st = play(st, AR, order)
    assert pending(st)["options"]["fire"] == {"hermes": ["dagger_1"]}
    out, st = answer(st, UK, {"fire": fire(("hermes", "dagger_1"))}, FixedDice(1, 6, 6, 1))  # Hermes fires 3 (10.9)
    kinds = [e["kind"] for e in events_of(out, "BattleBegun")]
    assert kinds == ["interception", "air_sea"]
    assert events_of(out, "BattleBegun")[1]["attackers"] == ["25_de_mayo"]
    assert shots(out)[3][:2] == (AR, "25_de_mayo")
    assert [e["unit"] for e in events_of(out, "UnitHit")] == ["glamorgan"]
    assert not st["pending"] and len(rolls_of(out)) == 4


# ------------------------------------------------------------------------------- FS 10.2 ---
def test_fs_10_2_a_defender_fires_at_any_attacker_not_only_the_one_firing_at_it(monkeypatch):
    """FS 10.2: "each of your participating units may fire (roll one die) at any one involved
    opposing unit ... It's never required, on offense or defense, for a unit to fire back at the
    same unit that's firing at it."""
    st = empty()
    for u in ("glamorgan", "broadsword", "drummond"):
        place(st, u, "sa7")
        with_factor(monkeypatch, u, surface=3)
    order = op(14, area="sa7", units=["glamorgan", "broadsword"],
               fire=fire(("glamorgan", "drummond"), ("broadsword", "drummond")))
    out, st2 = fought(st, UK, order, FixedDice(6, 6, 2), defence=fire(("drummond", "broadsword")))
    assert shots(out) == [(UK, "glamorgan", "drummond", 3), (UK, "broadsword", "drummond", 3),
                          (AR, "drummond", "broadsword", 3)]
    assert [e["unit"] for e in events_of(out, "UnitHit")] == ["broadsword"]
    assert S.alive(st2, "drummond")


def test_fs_10_2_and_10_11_a_worked_ground_battle_marks_uk_units_and_eliminates_ar_ones(monkeypatch):
    """FS 10.2: "Any AR unit that's hit once is thereby eliminated ... A two-step UK unit that
    suffers a hit should be marked by having a 'Hit!' marker placed atop it"; FS 10.7: UK units
    attacking in Goose Green lose one; FS 3.6 / 4.4(5): the area then changes hands (one VP)."""
    st = uk()
    for u in ("2_para", "3_para"):
        place(st, u, "san_carlos")
        with_factor(monkeypatch, u, ground=4)
    for u in ("ri_12", "ri_25"):
        place(st, u, "goose_green")
        with_factor(monkeypatch, u, ground=2)
    control(st, UK, "san_carlos")
    vp = st["vp"][S.TRACK]
    order = op(24, units=["2_para", "3_para"], origin="san_carlos", destination="goose_green", attack=True,
               fire=fire(("2_para", "ri_12"), ("3_para", "ri_25")))
    out, st2 = fought(st, UK, order, FixedDice(3, 3, 2, 2),
                      defence=fire(("ri_12", "2_para"), ("ri_25", "3_para")))
    assert shots(out) == [(UK, "2_para", "ri_12", 3), (UK, "3_para", "ri_25", 3),
                          (AR, "ri_12", "2_para", 2), (AR, "ri_25", "3_para", 2)]
    assert sorted(e["unit"] for e in events_of(out, "UnitEliminated")) == ["ri_12", "ri_25"]
    assert sorted((e["unit"], e["steps_left"]) for e in events_of(out, "UnitHit")) == [("2_para", 1), ("3_para", 1)]
    assert st2["control"]["goose_green"] == UK and st2["vp"][S.TRACK] == vp - 1


def test_fs_10_2_and_10_11_submarines_a_uk_boat_takes_a_hit_marker_an_ar_boat_goes_down(monkeypatch):
    """FS 10.2: "Other than SF units, all UK units contain two steps"; an AR unit hit once is
    eliminated. FS 4.4(4): one VP to the AR "for each sinking of other UK ... submarines"."""
    st = empty("AR Operations")
    place(st, "spartan", "sa7")
    place(st, "salta", "sa6")
    with_factor(monkeypatch, "spartan", sub=3)
    with_factor(monkeypatch, "salta", sub=2)
    order = op(20, units=["salta"], destination="sa7", attack=True, fire=fire(("salta", "spartan")))
    out, st2 = fought(st, AR, order, FixedDice(2, 3), defence=fire(("spartan", "salta")))
    assert shots(out) == [(AR, "salta", "spartan", 2), (UK, "spartan", "salta", 3)]
    assert [(e["unit"], e["steps_left"]) for e in events_of(out, "UnitHit")] == [("spartan", 1)]
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["salta"]
    # The marked boat hit again goes down: one VP to the AR.
    st = empty("AR Operations")
    place(st, "spartan", "sa7", steps=1)
    place(st, "salta", "sa6")
    vp = st["vp"][S.TRACK]
    out, st3 = fought(st, AR, order, FixedDice(1, 6), defence=fire(("spartan", "salta")))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["spartan"]
    assert st3["vp"][S.TRACK] == vp + 1 and S.alive(st3, "salta")


# ------------------------------------------------------------------- FS 10.6 / 10.8 / 10.10 ---
def test_fs_10_6_10_8_and_10_10_modifiers_add_up(monkeypatch):
    """FS 10.8: the SF bonus is "cumulative with all other applicable modifiers": 2 Para, printed
    3, attacking the armored 10th (FS 10.10: -1) in a mountain area (FS 10.6: -1) beside an SAS
    team (FS 10.8: +1) fires at 2; the 10th's defensive fire is not reduced by the mountains."""
    area = next(a for a in DATA.land_areas if DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])
    st = uk()
    place(st, "2_para", area)
    place(st, "sas_d", area)
    place(st, "armd_10", area)
    control(st, AR, area)
    with_factor(monkeypatch, "2_para", ground=3)
    with_factor(monkeypatch, "armd_10", ground=3)
    out, _ = fought(st, UK, op(15, area=area, units=["2_para", "sas_d"], fire=fire(("2_para", "armd_10"))),
                    FixedDice(6, 6), defence=fire(("armd_10", "2_para")))
    uk_roll, ar_roll = rolls_of(out)
    assert uk_roll.target["hit_number"] == 2
    assert sorted(m["value"] for m in uk_roll.target["modifiers"]) == [-1, -1, 1]
    assert ar_roll.target == {"hit_number": 3, "modifiers": []}


def test_fs_7_1_op_22_and_10_8_helicoptered_infantry_with_sf_beside_it(monkeypatch):
    """Op #22: helicoptered units "suffer a minus-one decrease in their hit number during that
    attack"; FS 10.8: all other ground units of the only side with SF "have their hit numbers
    increased by one": the helicoptered 2 Para fires at its printed 3, the 3 Para already there at 4."""
    st = uk()
    place(st, "2_para", "san_carlos")
    place(st, "sas_d", "san_carlos")
    place(st, "3_para", "teal_inlet")
    place(st, "ri_12", "teal_inlet")
    control(st, UK, "san_carlos")
    control(st, AR, "teal_inlet")
    for u in ("2_para", "3_para", "ri_12"):
        with_factor(monkeypatch, u, ground=3)
    order = op(22, units=["2_para", "sas_d"], origin="san_carlos", destination="teal_inlet", attack=True,
               support=["3_para"], fire=fire(("2_para", "ri_12"), ("3_para", "ri_12")))
    out, _ = fought(st, UK, order, FixedDice(6, 6, 6))
    by = {r.units[0]: r.target for r in rolls_of(out)}
    assert by["2_para"]["hit_number"] == 3 and sorted(m["value"] for m in by["2_para"]["modifiers"]) == [-1, 1]
    assert by["3_para"]["hit_number"] == 4
    assert "sas_d" not in by  # FS 10.8: in mixed fights the SF do not fire


def test_fs_10_10_ships_bombarding_armor_are_not_reduced(monkeypatch):
    """FS 10.10: "Whenever a non-armored ground unit fires at an armored unit" - a ship is no
    ground unit: its bombardment of the 10th keeps its printed hit number (Op #21: no return fire)."""
    st = uk()
    place(st, "glamorgan", "falklands")
    place(st, "armd_10", FLAT)
    control(st, AR, FLAT)
    with_factor(monkeypatch, "glamorgan", ground=3)
    out, st2 = play(st, UK, op(21, area=FLAT, units=["glamorgan"], fire=fire(("glamorgan", "armd_10"))),
                    FixedDice(3))
    assert [r.target for r in rolls_of(out)] == [{"hit_number": 3, "modifiers": []}]
    assert not S.alive(st2, "armd_10") and "DecisionPending" not in names(out)


# ------------------------------------------------------------------------------- FS 10.7 ---
def test_fs_10_7_uk_carriers_striking_ground_units_in_port_stanley_are_reduced(monkeypatch):
    """FS 10.7: "UK units attacking in those areas do so with their hit numbers reduced by one" -
    carriers too (FS 10.1: they project their factors into the area), three shots each (10.9)."""
    st = uk()
    place(st, "hermes", "sa7")
    place(st, "ri_12", "port_stanley")
    with_factor(monkeypatch, "hermes", ground=3)
    out, st2 = fought(st, UK, op(19, area="port_stanley", carriers=["hermes"],
                                 fire=fire(("hermes", "ri_12"), ("hermes", "ri_12"), ("hermes", "ri_12"))),
                      FixedDice(6, 6, 3))
    assert [s[3] for s in shots(out)] == [2, 2, 2]
    assert S.alive(st2, "ri_12") and "DecisionPending" not in names(out)


# ------------------------------------------------------------------------------- FS 10.5 ---
def test_fs_10_5_a_defending_carrier_fires_three_times_at_the_stealth_aircraft_each_at_one(monkeypatch):
    """FS 10.5: fired at "by any UK units of any kind, the 'to hit' numbers of those firing UK units
    is reduced to '1'"; FS 10.9: a carrier defending fires three times - all three at one."""
    st = empty("AR Operations")
    place(st, "hermes", "sa7")
    place(st, "super_etendard", "port_stanley")
    with_factor(monkeypatch, "super_etendard", surface=3)
    out, st2 = play(st, AR, op(18, area="sa7", aircraft=["super_etendard"], fire=fire(("super_etendard", "hermes"))))
    assert pending(st2)["kind"] == "defensive_fire"  # never intercepted
    three = fire(*[("hermes", "super_etendard")] * 3)
    out, st3 = answer(st2, UK, {"fire": three}, FixedDice(6, 2, 2, 1))
    assert shots(out) == [(AR, "super_etendard", "hermes", 3)] + [(UK, "hermes", "super_etendard", 1)] * 3
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["super_etendard"]


# ------------------------------------------------------------------------------- FS 10.9 ---
def test_fs_10_9_a_carrier_defending_against_a_submarine_fires_at_it_once(monkeypatch):
    """FS 10.9: "When firing at submarines, neither carrier ever fires more than once per battle" -
    on defense too."""
    st = empty("AR Operations")
    place(st, "hermes", "sa7")
    place(st, "salta", "sa7")
    with_factor(monkeypatch, "salta", surface=3)
    with_factor(monkeypatch, "hermes", sub=2)
    out, st2 = play(st, AR, op(14, area="sa7", units=["salta"], fire=fire(("salta", "hermes"))))
    with pytest.raises(RuleViolation) as e:
        answer(st2, UK, {"fire": fire(("hermes", "salta"), ("hermes", "salta"))}, FixedDice(default=6))
    assert e.value.rule == "FS 10.9"
    out, st3 = answer(st2, UK, {"fire": fire(("hermes", "salta"))}, FixedDice(6, 2))
    assert shots(out) == [(AR, "salta", "hermes", 3), (UK, "hermes", "salta", 2)]
    assert not S.alive(st3, "salta")


# ------------------------------------------------------------------------------- FS 9.7 ---
@pytest.mark.parametrize("number, fields", [
    (14, {"area": S.ARGENTINA, "units": ["glamorgan"], "fire": fire(("glamorgan", "drummond"))}),
    (18, {"area": S.ARGENTINA, "carriers": ["hermes"], "fire": fire(("hermes", "drummond"))}),
    (19, {"area": S.ARGENTINA, "carriers": ["hermes"], "fire": fire(("hermes", "ri_12"))}),
    (21, {"area": S.ARGENTINA, "units": ["glamorgan"], "fire": fire(("glamorgan", "ri_12"))}),
    (24, {"units": ["2_para"], "origin": "san_carlos", "destination": S.ARGENTINA}),
])
def test_fs_9_7_no_uk_combat_or_movement_in_argentina_the_refusal_names_9_7(number, fields):
    """FS 9.7: "no UK movement or combat may ever take place in that area" - an AR ship in port,
    an AR unit waiting in Argentina, are beyond any UK operation; the refusal names 9.7."""
    st = uk()
    place(st, "glamorgan", "sa1")
    place(st, "hermes", "sa1")
    place(st, "2_para", "san_carlos")
    place(st, "drummond", S.ARGENTINA)
    place(st, "ri_12", S.ARGENTINA)
    assert refused(st, UK, op(number, **fields)).rule == "FS 9.7"


# ------------------------------------------------------------------ nothing left to fire ---
def test_fs_10_2_a_defender_with_nothing_able_to_fire_back_is_not_asked_and_the_attack_goes_in(monkeypatch):
    """FS 10.2: "If a unit doesn't posses the ability to engage a certain type of target, it may
    not fire at that type of unit": the B&R (anti-aircraft 0) under an air attack has no shot; the
    Dagger's die alone is rolled and its hit marks the two-step unit."""
    st = empty("AR Operations")
    place(st, "b_r", FLAT)
    place(st, "dagger_1", "port_stanley")
    with_factor(monkeypatch, "b_r", air=0)
    with_factor(monkeypatch, "dagger_1", ground=3)
    out, st2 = play(st, AR, op(19, area=FLAT, aircraft=["dagger_1"], fire=fire(("dagger_1", "b_r"))), FixedDice(3))
    assert "DecisionPending" not in names(out) and not st2["pending"]
    assert shots(out) == [(AR, "dagger_1", "b_r", 3)]
    assert [(e["unit"], e["steps_left"]) for e in events_of(out, "UnitHit")] == [("b_r", 1)]


def test_fs_10_8_and_op_17_sf_landed_in_the_first_wave_share_the_fate_of_its_last_infantry(monkeypatch):
    """FS 10.8: in mixed fights the SF "share the fate of your last friendly conventional ground unit
    in that battle": the reduced 2 Para falls to the defenders' fire, and the SAS team landed with
    it goes too, though no die was rolled at it."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless", steps=1)
    place(st, "sas_d", aboard="fearless")
    place(st, "ri_12", FLAT)
    control(st, AR, FLAT)
    with_factor(monkeypatch, "2_para", ground=3)
    with_factor(monkeypatch, "ri_12", ground=2)
    out, st2 = fought(st, UK, op(17, area=FLAT, wave=["2_para", "sas_d"], fire=fire(("2_para", "ri_12"))),
                      FixedDice(6, 2), defence=fire(("ri_12", "2_para")))
    assert shots(out) == [(UK, "2_para", "ri_12", 3), (AR, "ri_12", "2_para", 2)]  # -1 landing, +1 SF
    assert [(e["unit"], e["rule"]) for e in events_of(out, "UnitEliminated")] == [
        ("2_para", "FS 7.1 Op #17"), ("sas_d", "FS 10.8")]
    assert st2["control"][FLAT] == AR and not S.contested(st2, FLAT)


def test_fs_10_6_ships_bombarding_a_mountain_area_are_reduced(monkeypatch):
    """FS 10.6: "Units of any types, and of either side, which are attacking in an area that
    contains mountains do so with their hit numbers reduced by one" - a shore bombardment too."""
    area = next(a for a in DATA.land_areas if DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])
    st = uk()
    place(st, "glamorgan", "falklands")
    place(st, "ri_12", area)
    control(st, AR, area)
    with_factor(monkeypatch, "glamorgan", ground=3)
    out, st2 = play(st, UK, op(21, area=area, units=["glamorgan"], fire=fire(("glamorgan", "ri_12"))), FixedDice(3))
    assert shots(out) == [(UK, "glamorgan", "ri_12", 2)]
    assert S.alive(st2, "ri_12")


def test_fs_10_9_after_the_rendezvous_a_carrier_intercepts_with_four_shots():
    """FS 10.9: once rendezvoused "that number of shots is increased from three to four" - each time
    a carrier fires, an interception included (the Interception Example's three per carrier)."""
    st = empty("AR Operations")
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    place(st, "dagger_1", S.ARGENTINA)
    st["rendezvous"] = True
    out, st2 = play(st, AR, op(18, area="falklands", aircraft=["dagger_1"], fire=fire(("dagger_1", "glamorgan"))))
    assert pending(st2)["options"]["shots"] == {"hermes": 4}
    with pytest.raises(RuleViolation) as e:
        answer(st2, UK, {"fire": fire(*[("hermes", "dagger_1")] * 5)}, FixedDice(default=6))
    assert e.value.rule == "FS 10.9"
    out, st3 = answer(st2, UK, {"fire": fire(*[("hermes", "dagger_1")] * 4)}, FixedDice(6, 6, 6, 3))
    assert shots(out) == [(UK, "hermes", "dagger_1", 3)] * 4
    assert not S.alive(st3, "dagger_1") and events_of(out, "BattleBegun")[0]["kind"] == "interception"
