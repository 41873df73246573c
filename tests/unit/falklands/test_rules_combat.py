"""FS 10.1-10.11: combat. Small synthetic positions; every factor a test relies on is set with
``with_factor`` (the counter values are provisional) and every die is chosen with FixedDice."""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import combat
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA
from projections.narrate import describe
from tests.unit.falklands.helpers import (
    AR, R, UK, FixedDice, answer, control, empty, events_of, names, op, pending, place, play, rolls_of,
    set_phase, with_factor,
)

# Areas picked by their printed features (mountains are provisional; entrenchments are FS 10.7's).
FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])
MOUNTAIN = next(a for a in DATA.land_areas if DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])
ENTRENCHED = next(a for a in ("goose_green", "port_stanley") if not DATA.areas[a]["mountains"])
SEA = "sa7"  # any sea area: nothing in these tests depends on which


def refused(st, seat, order, dice=None) -> RuleViolation:
    with pytest.raises(RuleViolation) as e:
        play(st, seat, order, dice or FixedDice(default=6))
    return e.value


def shots(out) -> list[tuple]:
    """(seat, shooter, target, hit number, die, outcome) of every die rolled."""
    return [(r.seat, *(r.units + [None, None])[:2], (r.target or {}).get("hit_number"), r.values[0], r.outcome)
            for r in rolls_of(out)]


def reasons(roll) -> list[str]:
    return [m["reason"] for m in roll.target["modifiers"]]


def fire(*pairs) -> list[dict]:
    return [{"unit": u, "at": t} for u, t in pairs]


def sea_fight(monkeypatch, uk=("glamorgan",), ar=("drummond",), area=SEA, factor=3):
    """UK and AR surface ships together in one sea area, every surface factor ``factor``."""
    st = empty()
    for u in (*uk, *ar):
        place(st, u, area)
        with_factor(monkeypatch, u, surface=factor, air=factor, sub=factor)
    return st


def ground_fight(monkeypatch, area, uk=("2_para",), ar=("ri_12",), factor=3, attacker=UK):
    st = empty("UK Operations" if attacker == UK else "AR Operations")
    for u in (*uk, *ar):
        place(st, u, area)
        if DATA.units[u]["type"] != "sf":
            with_factor(monkeypatch, u, ground=factor)
    control(st, AR, area)
    return st


# ------------------------------------------------------------------------------------ 10.1 ---
def test_fs_10_1_combat_is_voluntary_a_move_into_a_contested_area_need_not_fight(monkeypatch):
    st = sea_fight(monkeypatch, uk=(), ar=("drummond",))
    place(st, "glamorgan", "sa4")
    out, after = play(st, UK, op(20, units=["glamorgan"], destination=SEA))
    assert "BattleBegun" not in names(out) and not rolls_of(out)
    assert S.contested(after, SEA) and S.alive(after, "drummond")


def test_fs_10_1_carriers_project_their_factors_into_an_adjacent_area_only(monkeypatch):
    near = sorted(DATA.sea_adjacent("falklands"))[0]
    far = next(a for a in DATA.sea_areas if a != "falklands" and a not in DATA.sea_adjacent("falklands"))
    st = sea_fight(monkeypatch, uk=(), ar=("drummond",), area="falklands")
    place(st, "hermes", near)
    out, _ = play(st, UK, op(18, area="falklands", carriers=["hermes"], fire=fire(("hermes", "drummond"))),
                  FixedDice(6, 6, 6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["hermes"]
    # A carrier fighting from the next area is not exposed to the defenders' fire (none to assign);
    # it takes its three shots (FS 10.9), the two not listed at the one target there.
    assert "DecisionPending" not in names(out) and len(rolls_of(out)) == 3
    place(st, "hermes", far)
    assert refused(st, UK, op(18, area="falklands", carriers=["hermes"],
                              fire=fire(("hermes", "drummond")))).rule == "FS 9.3"


# ------------------------------------------------------------------------------------ 10.2 ---
@pytest.mark.parametrize("die, hit", [(1, True), (3, True), (4, False), (6, False)])
def test_fs_10_2_a_hit_is_a_die_at_or_under_the_hit_number(monkeypatch, die, hit):
    st = sea_fight(monkeypatch, factor=3)
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(die, default=6))  # Drummond fires back: a miss
    r = rolls_of(out)[0]
    assert r.seat == UK and r.units == ["glamorgan", "drummond"] and r.target["hit_number"] == 3
    assert r.outcome == ("hit" if hit else "miss")
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == (["drummond"] if hit else [])
    assert S.alive(after, "drummond") is not hit


def test_fs_10_2_a_zero_factor_cannot_fire_at_that_type(monkeypatch):
    st = sea_fight(monkeypatch)
    with_factor(monkeypatch, "glamorgan", surface=0)
    e = refused(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    assert e.rule == "FS 10.2"


def test_fs_10_2_a_target_with_a_zero_factor_is_attacked_but_cannot_fire_back_at_that_type(monkeypatch):
    # The text's example: aircraft with an anti-submarine factor attack a submarine whose
    # anti-aircraft factor is 0; the submarine may answer only the enemy it can hit.
    st = empty("AR Operations")
    place(st, "spartan", SEA)
    place(st, "salta", SEA)
    place(st, "a4_1", "port_stanley")
    with_factor(monkeypatch, "a4_1", sub=2)
    with_factor(monkeypatch, "spartan", air=0, sub=3)
    with_factor(monkeypatch, "salta", sub=2)
    out, st = play(st, AR, op(20, destination=SEA, support=["salta"], attack=True, aircraft=["a4_1"],
                              fire=fire(("a4_1", "spartan"), ("salta", "spartan"))))
    assert pending(st)["kind"] == "defensive_fire"
    assert pending(st)["options"]["fire"] == {"spartan": ["salta"]}
    with pytest.raises(RuleViolation) as e:
        answer(st, UK, {"fire": fire(("spartan", "a4_1"))}, FixedDice(6, 6, 6))
    assert e.value.rule == "FS 10.2"


def test_fs_10_2_each_unit_fires_once(monkeypatch):
    st = sea_fight(monkeypatch, ar=("drummond", "granville"))
    e = refused(st, UK, op(14, area=SEA, units=["glamorgan"],
                           fire=fire(("glamorgan", "drummond"), ("glamorgan", "granville"))))
    assert e.rule == "FS 10.2"


def test_fs_10_2_units_fire_only_at_enemies_in_the_battle(monkeypatch):
    st = sea_fight(monkeypatch)
    place(st, "granville", "sa4")
    e = refused(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "granville"))))
    assert e.rule == "FS 10.2"


def test_fs_10_2_fire_is_simultaneous_every_die_is_rolled_before_any_hit_takes_effect(monkeypatch):
    st = sea_fight(monkeypatch)
    place(st, "glamorgan", SEA, steps=1)  # one hit sinks it
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    out, after = answer(st, AR, {"fire": fire(("drummond", "glamorgan"))}, FixedDice(1, 1))
    # The operating player's die first, then the defender's; only then the hits, both of them:
    # Drummond fires back although Glamorgan's die already sank it.
    assert [s[:3] for s in shots(out)] == [(UK, "glamorgan", "drummond"), (AR, "drummond", "glamorgan")]
    kinds = [n for n in names(out) if n in ("Roll", "UnitEliminated")]
    assert kinds == ["Roll", "Roll", "UnitEliminated", "UnitEliminated"]
    assert {e["unit"] for e in events_of(out, "UnitEliminated")} == {"glamorgan", "drummond"}
    assert not S.alive(after, "glamorgan") and not S.alive(after, "drummond")
    # One exchange and the battle is over: no second round.
    assert len(rolls_of(out)) == 2 and len(events_of(out, "BattleBegun")) == 0


def test_fs_10_2_overkill_is_wasted(monkeypatch):
    st = sea_fight(monkeypatch, uk=("glamorgan", "broadsword"), ar=("drummond", "granville"))
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan", "broadsword"],
                              fire=fire(("glamorgan", "drummond"), ("broadsword", "drummond"))))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, 1, default=6))
    assert [r.outcome for r in rolls_of(out)][:2] == ["hit", "hit"]  # then the defenders' misses
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["drummond"]
    assert not events_of(out, "UnitHit")
    assert S.alive(after, "granville")  # the second hit is not reassigned


def test_fs_10_2_every_eligible_unit_fires_no_withholding(monkeypatch):
    # "it's not allowed to withhold units from participating in a battle going on within its area":
    # the player chooses targets, not whether to fire - the defender and the attacker alike.
    st = sea_fight(monkeypatch, uk=("glamorgan", "broadsword"), ar=("drummond", "granville"))
    # The attacker names one ship; the other in the area takes part all the same.
    out, mid = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire="auto"))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["glamorgan", "broadsword"]
    # A fire list that leaves a unit out is refused, naming the rule.
    e = refused(st, UK, op(14, area=SEA, units=["glamorgan", "broadsword"], fire=fire(("glamorgan", "drummond"))))
    assert e.rule == "FS 10.2" and "Broadsword" in str(e)
    # The defender may not hold its fire either: every unit able to fire does.
    for held in ({"fire": []}, {"fire": fire(("drummond", "glamorgan"))}):
        with pytest.raises(RuleViolation) as e:
            answer(mid, AR, held, FixedDice(default=6))
        assert e.value.rule == "FS 10.2"
    out, _ = answer(mid, AR, {"fire": fire(("drummond", "glamorgan"), ("granville", "glamorgan"))}, FixedDice(default=6))
    assert [s[:2] for s in shots(out)] == [(UK, "glamorgan"), (UK, "broadsword"), (AR, "drummond"), (AR, "granville")]


def test_fs_10_2_a_unit_that_cannot_fire_at_any_target_is_not_bound_to(monkeypatch):
    st = sea_fight(monkeypatch, uk=("glamorgan", "broadsword"), ar=("drummond",))
    with_factor(monkeypatch, "broadsword", surface=0)  # FS 10.2: a 0 factor cannot fire at that type
    out, mid = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["glamorgan", "broadsword"]
    out, _ = answer(mid, AR, {"fire": "auto"}, FixedDice(6, 6))
    assert [s[:2] for s in shots(out)] == [(UK, "glamorgan"), (AR, "drummond")]


# ------------------------------------------------------------------------------------ 10.3 ---
def test_fs_10_3_a_printed_zero_is_never_changed(monkeypatch):
    with_factor(monkeypatch, "2_para", ground=0)
    battle = {"kind": "ground", "attacker": UK, "area": FLAT, "sf_bonus": UK}
    value, mods = combat.hit_number(empty(), battle, "2_para", "ri_12", UK)
    assert value == 0 and [m["value"] for m in mods] == [1]
    assert combat.clamp(0, 3) == 0


def test_fs_10_3_the_line_of_a_die_held_at_one_tells_the_printed_number_and_the_limit(monkeypatch):
    """An umpire reading the log sees why the hit number is 1: the printed 1, the two modifiers,
    and FS 10.3 holding their sum, -1, at 1 (the line named no printed number, as if the
    modifiers alone gave it, and no limit). Told from the counter and the recorded die alone."""
    st = ground_fight(monkeypatch, ENTRENCHED, uk=("2_para",), ar=("armd_10",), factor=1)
    out, st = play(st, UK, op(15, area=ENTRENCHED, units=["2_para"], fire=fire(("2_para", "armd_10"))))
    out, _ = answer(st, AR, {"fire": "auto"}, FixedDice(1, default=6))
    text = describe({"game_id": "g", "seq": 1, "type": "DiceRolled", "data": rolls_of(out)[0].fields()}, R)
    assert "needed ≤ 1 (printed 1, −1 " in text and ", sum −1 held at 1 (FS 10.3)): hit" in text, text


def test_fs_10_3_a_printed_one_is_never_reduced_to_zero(monkeypatch):
    # Entrenchments (FS 10.7) and armor (FS 10.10) take two off a printed 1: it stays 1.
    st = ground_fight(monkeypatch, ENTRENCHED, uk=("2_para",), ar=("armd_10",), factor=1)
    out, st = play(st, UK, op(15, area=ENTRENCHED, units=["2_para"], fire=fire(("2_para", "armd_10"))))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, default=6))
    r = rolls_of(out)[0]
    assert r.target["hit_number"] == 1 and sorted(m["value"] for m in r.target["modifiers"]) == [-1, -1]
    assert r.outcome == "hit" and not S.alive(after, "armd_10")
    assert combat.clamp(1, -4) == 1


def test_fs_10_3_a_hit_number_of_one_to_five_never_becomes_six(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para", "sas_d"), factor=5)  # SF support: +1 (FS 10.8)
    out, st = play(st, UK, op(15, area=FLAT, units=["2_para", "sas_d"], fire=fire(("2_para", "ri_12"))))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(6, default=6))
    r = rolls_of(out)[0]
    assert r.target["hit_number"] == 5 and [m["value"] for m in r.target["modifiers"]] == [1]
    assert r.outcome == "miss" and S.alive(after, "ri_12")
    assert combat.clamp(5, 7) == 5


# ------------------------------------------------------------------------------------ 10.4 ---
PROTECTED_AR = ("25_de_mayo", "cabo_san_antonio")
PROTECTED_UK = ("hermes", "invincible", "fearless", "intrepid",
                *sorted(u for u, d in DATA.units.items() if d["side"] == UK and d["type"] == "T"))


@pytest.mark.parametrize("target", [*PROTECTED_AR, *PROTECTED_UK])
def test_fs_10_4_protected_target_needs_every_unprotected_ship_fired_at(monkeypatch, target):
    side = DATA.units[target]["side"]
    attacker, screen = ("drummond", "glamorgan") if side == UK else ("glamorgan", "drummond")
    st = empty("UK Operations" if side == AR else "AR Operations")
    for u in (attacker, screen, target):
        place(st, u, SEA)
    with_factor(monkeypatch, attacker, surface=3)
    e = refused(st, S.other(side), op(14, area=SEA, units=[attacker], fire=fire((attacker, target))))
    assert e.rule == "FS 10.4"


def test_fs_10_4_protected_target_may_be_fired_at_once_every_unprotected_ship_is(monkeypatch):
    st = sea_fight(monkeypatch, uk=("glamorgan", "broadsword", "alacrity"),
                   ar=("25_de_mayo", "drummond", "granville"))
    units = ["glamorgan", "broadsword", "alacrity"]
    e = refused(st, UK, op(14, area=SEA, units=units,
                           fire=fire(("glamorgan", "25_de_mayo"), ("broadsword", "drummond"))))
    assert e.rule == "FS 10.4"  # Granville is not fired at
    out, st = play(st, UK, op(14, area=SEA, units=units, fire=fire(
        ("glamorgan", "25_de_mayo"), ("broadsword", "drummond"), ("alacrity", "granville"))))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6, 6, default=6))
    assert shots(out)[0][:3] == (UK, "glamorgan", "25_de_mayo")
    assert not S.alive(after, "25_de_mayo")


def test_fs_10_4_a_protected_target_alone_may_be_attacked(monkeypatch):
    st = sea_fight(monkeypatch, ar=("cabo_san_antonio",))
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "cabo_san_antonio"))))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, default=6))
    assert events_of(out, "UnitEliminated")[0]["unit"] == "cabo_san_antonio"


def test_fs_10_4_submarines_do_not_screen_a_protected_target(monkeypatch):
    # "every other unprotected enemy surface ship": a submarine in the area is not one.
    st = sea_fight(monkeypatch, uk=("glamorgan",), ar=("25_de_mayo",))
    place(st, "salta", SEA)
    out, _ = play(st, UK, op(20, units=["glamorgan"], destination=SEA, attack=True,
                             fire=fire(("glamorgan", "25_de_mayo"))), FixedDice(6))
    assert events_of(out, "BattleBegun")[0]["defenders"] == ["25_de_mayo", "salta"]


# ------------------------------------------------------------------------------------ 10.5 ---
def stealth_strike(monkeypatch, attacks_made=0):
    st = empty("AR Operations")
    place(st, "super_etendard", "port_stanley")  # FS 9.5: from the Falklands, any sea area
    place(st, "glamorgan", SEA)
    with_factor(monkeypatch, "super_etendard", surface=3)
    with_factor(monkeypatch, "glamorgan", air=3)
    st["stealth_attacks"] = attacks_made
    return st


def test_fs_10_5_uk_fire_at_the_stealth_aircraft_is_reduced_to_one_not_by_one(monkeypatch):
    st = stealth_strike(monkeypatch)
    out, st = play(st, AR, op(18, area=SEA, aircraft=["super_etendard"],
                              fire=fire(("super_etendard", "glamorgan"))))
    assert pending(st)["options"]["fire"] == {"glamorgan": ["super_etendard"]}
    out, after = answer(st, UK, {"fire": fire(("glamorgan", "super_etendard"))}, FixedDice(6, 2))
    se, uk = rolls_of(out)
    assert se.target["hit_number"] == 3  # the stealth aircraft's own fire is unchanged
    assert uk.units == ["glamorgan", "super_etendard"] and uk.target["hit_number"] == 1  # printed 3
    assert any("FS 10.5" in r for r in reasons(uk))
    assert uk.outcome == "miss" and S.alive(after, "super_etendard")


def test_fs_10_5_the_stealth_aircraft_is_never_intercepted(monkeypatch):
    st = stealth_strike(monkeypatch)
    place(st, "hermes", SEA)
    out, st = play(st, AR, op(18, area=SEA, aircraft=["super_etendard"],
                              fire=fire(("super_etendard", "glamorgan"))))
    assert pending(st)["kind"] == "defensive_fire"  # no interception asked first
    # With an A-4 in the same raid, only the A-4 may be intercepted.
    st2 = stealth_strike(monkeypatch)
    place(st2, "hermes", SEA)
    place(st2, "a4_1", "port_stanley")
    out, st2 = play(st2, AR, op(18, area=SEA, aircraft=["super_etendard", "a4_1"],
                                fire=fire(("super_etendard", "glamorgan"), ("a4_1", "glamorgan"))))
    assert pending(st2)["kind"] == "interception"
    assert pending(st2)["options"]["fire"] == {"hermes": ["a4_1"]}


@pytest.mark.parametrize("made, withdrawn", [(3, False), (4, True)])
def test_fs_10_5_the_stealth_aircraft_makes_at_most_five_attacks_then_is_removed(monkeypatch, made, withdrawn):
    st = stealth_strike(monkeypatch, attacks_made=made)
    out, st = play(st, AR, op(18, area=SEA, aircraft=["super_etendard"],
                              fire=fire(("super_etendard", "glamorgan"))))
    assert st["stealth_attacks"] == made + 1
    out, after = answer(st, UK, {"fire": "auto"}, FixedDice(6, default=6))
    gone = events_of(out, "UnitWithdrawn")
    assert bool(gone) is withdrawn
    assert S.alive(after, "super_etendard") is not withdrawn
    if withdrawn:
        assert gone == [{"unit": "super_etendard", "reason": gone[0]["reason"], "rule": "FS 10.5"}]
        assert not events_of(out, "UnitEliminated")  # removed, not shot down
        after["phase"], after["active"] = "AR Operations", [AR]
        after["phase_ops"] = S.phase_allowance(after, "AR Operations")
        e = refused(after, AR, op(18, area=SEA, aircraft=["super_etendard"],
                                  fire=fire(("super_etendard", "glamorgan"))))
        assert e.rule == "FS 7.1 Op #18"


# ------------------------------------------------------------------------------------ 10.6 ---
def test_fs_10_6_mountains_reduce_the_hit_numbers_of_attackers_only(monkeypatch):
    st = ground_fight(monkeypatch, MOUNTAIN, uk=("2_para",), ar=("ri_4",), factor=3)
    out, st = play(st, UK, op(15, area=MOUNTAIN, units=["2_para"], fire=fire(("2_para", "ri_4"))))
    out, _ = answer(st, AR, {"fire": fire(("ri_4", "2_para"))}, FixedDice(6, 6))
    uk, ar = rolls_of(out)
    assert uk.target["hit_number"] == 2 and any("FS 10.6" in r for r in reasons(uk))
    assert ar.target["hit_number"] == 3 and ar.target["modifiers"] == []  # defensive fire


def test_fs_10_6_mountains_reduce_either_sides_attack(monkeypatch):
    st = ground_fight(monkeypatch, MOUNTAIN, uk=("2_para",), ar=("ri_4",), factor=3, attacker=AR)
    out, st = play(st, AR, op(15, area=MOUNTAIN, units=["ri_4"], fire=fire(("ri_4", "2_para"))))
    out, _ = answer(st, UK, {"fire": fire(("2_para", "ri_4"))}, FixedDice(6, 6))
    ar, uk = rolls_of(out)
    assert ar.target["hit_number"] == 2 and any("FS 10.6" in r for r in reasons(ar))
    assert uk.target["hit_number"] == 3 and uk.target["modifiers"] == []


# ------------------------------------------------------------------------------------ 10.7 ---
def test_fs_10_7_entrenchments_reduce_uk_attackers(monkeypatch):
    st = ground_fight(monkeypatch, ENTRENCHED, factor=3)
    out, st = play(st, UK, op(15, area=ENTRENCHED, units=["2_para"], fire=fire(("2_para", "ri_12"))))
    out, _ = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(6, 6))
    uk, ar = rolls_of(out)
    assert uk.target["hit_number"] == 2 and any("FS 10.7" in r for r in reasons(uk))
    assert ar.target["hit_number"] == 3 and ar.target["modifiers"] == []


def test_fs_10_7_entrenchments_never_help_uk_defenders_nor_hinder_ar_attackers(monkeypatch):
    st = ground_fight(monkeypatch, ENTRENCHED, factor=3, attacker=AR)
    out, st = play(st, AR, op(15, area=ENTRENCHED, units=["ri_12"], fire=fire(("ri_12", "2_para"))))
    out, _ = answer(st, UK, {"fire": fire(("2_para", "ri_12"))}, FixedDice(6, 6))
    ar, uk = rolls_of(out)
    assert ar.target == {"hit_number": 3, "modifiers": []}
    assert uk.target == {"hit_number": 3, "modifiers": []}


# ------------------------------------------------------------------------------------ 10.8 ---
def test_fs_10_8_sf_in_a_mixed_force_add_one_when_only_their_side_has_sf(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para", "sas_d"), ar=("ri_12",), factor=3)
    out, st = play(st, UK, op(15, area=FLAT, units=["2_para", "sas_d"], fire=fire(("2_para", "ri_12"))))
    assert pending(st)["options"]["fire"] == {"ri_12": ["2_para"]}  # SF are never fired at
    out, _ = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(6, 6))
    uk, ar = rolls_of(out)
    assert uk.target["hit_number"] == 4 and any("FS 10.8" in r for r in reasons(uk))
    assert ar.target == {"hit_number": 3, "modifiers": []}


def test_fs_10_8_sf_bonus_helps_a_defending_force_too(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para",), ar=("ri_12", "cdo_601"), factor=3, attacker=UK)
    out, st = play(st, UK, op(15, area=FLAT, units=["2_para"], fire=fire(("2_para", "ri_12"))))
    out, _ = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(6, 6))
    uk, ar = rolls_of(out)
    assert uk.target["hit_number"] == 3
    assert ar.target["hit_number"] == 4 and any("FS 10.8" in r for r in reasons(ar))


def test_fs_10_8_no_sf_bonus_when_both_sides_have_sf(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para", "sas_d"), ar=("ri_12", "cdo_601"), factor=3)
    out, st = play(st, UK, op(15, area=FLAT, units=["2_para", "sas_d"], fire=fire(("2_para", "ri_12"))))
    out, _ = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(6, 6))
    assert [r.target for r in rolls_of(out)] == [{"hit_number": 3, "modifiers": []}] * 2


def test_fs_10_8_sf_do_not_fire_in_mixed_fights(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para", "sas_d"), factor=3)
    e = refused(st, UK, op(15, area=FLAT, units=["2_para", "sas_d"], fire=fire(("sas_d", "ri_12"))))
    assert e.rule == "FS 10.8"


def test_fs_10_8_sf_are_never_fired_at_in_ordinary_combat(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para",), ar=("ri_12", "cdo_601"), factor=3)
    e = refused(st, UK, op(15, area=FLAT, units=["2_para"], fire=fire(("2_para", "cdo_601"))))
    assert e.rule == "FS 10.8"


def test_fs_10_8_sf_share_the_fate_of_their_last_conventional_ground_unit(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para", "sas_d"), ar=("ri_12", "cdo_601"), factor=3)
    place(st, "2_para", FLAT, steps=1)
    out, st = play(st, UK, op(15, area=FLAT, units=["2_para", "sas_d"], fire=fire(("2_para", "ri_12"))))
    out, after = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(1, 1))
    gone = {e["unit"]: e["rule"] for e in events_of(out, "UnitEliminated")}
    assert gone == {"ri_12": "FS 7.1 Op #15", "2_para": "FS 7.1 Op #15",
                    "sas_d": "FS 10.8", "cdo_601": "FS 10.8"}
    assert not any(S.alive(after, u) for u in gone)


def test_fs_10_8_sf_live_on_while_a_conventional_unit_of_theirs_survives(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para",), ar=("ri_12", "ri_25", "cdo_601"), factor=3)
    out, st = play(st, UK, op(15, area=FLAT, units=["2_para"], fire=fire(("2_para", "ri_12"))))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, default=6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["ri_12"]
    assert S.alive(after, "cdo_601") and S.contested(after, FLAT)


def test_fs_10_8_sf_alone_contest_an_enemy_occupied_area(monkeypatch):
    land = "goose_green"
    st = empty()
    place(st, "sas_d", "lafonia")  # FS 7.1 Op #24: Lafonia adjoins Goose Green
    place(st, "ri_12", land)
    control(st, UK, "lafonia")
    control(st, AR, land)
    out, after = play(st, UK, op(24, units=["sas_d"], origin="lafonia", destination=land))
    assert S.contested(after, land) and after["control"][land] == AR
    assert not events_of(out, "ControlChanged")


def test_fs_10_8_sf_vs_sf_in_op_25_fight_as_regular_units_without_modifiers(monkeypatch):
    st = empty()
    area = MOUNTAIN
    for u in ("sas_d", "sas_g", "cdo_602"):
        place(st, u, area)
    place(st, "ri_4", area)
    control(st, AR, area)
    with_factor(monkeypatch, "sas_d", ground=3)
    with_factor(monkeypatch, "sas_g", ground=3)
    with_factor(monkeypatch, "cdo_602", ground=3)
    # "all the SF units you have" there: both fire (FS 10.2: none withheld).
    out, st = play(st, UK, op(25, area=area, fire=fire(("sas_d", "cdo_602"), ("sas_g", "cdo_602"))))
    assert sorted(events_of(out, "BattleBegun")[0]["attackers"]) == ["sas_d", "sas_g"]
    assert events_of(out, "BattleBegun")[0]["defenders"] == ["cdo_602"]  # other units ignored
    out, after = answer(st, AR, {"fire": fire(("cdo_602", "sas_d"))}, FixedDice(3, 6, 3))
    assert [r.target for r in rolls_of(out)] == [{"hit_number": 3, "modifiers": []}] * 3  # no mountain -1
    gone = {e["unit"]: e["rule"] for e in events_of(out, "UnitEliminated")}
    assert gone == {"cdo_602": "FS 7.1 Op #25", "sas_d": "FS 7.1 Op #25"}  # one step each (FS 2.8)
    assert S.alive(after, "ri_4") and S.alive(after, "sas_g")


def test_fs_10_8_sf_eliminated_by_the_six_after_an_op_7_raid():
    st = empty()
    place(st, "sas_d", aboard="hermes")
    place(st, "hermes", "sa4")
    place(st, "pucara_1", "port_stanley")
    out, after = play(st, UK, op(7, sf="sas_d", target="pucara_1"), FixedDice(6))
    assert [(e["unit"], e["rule"]) for e in events_of(out, "UnitEliminated")] == [
        ("pucara_1", "FS 7.1 Op #7"), ("sas_d", "FS 7.1 Op #7")]
    assert not S.alive(after, "sas_d")


# ------------------------------------------------------------------------------------ 10.9 ---
def carrier_strike(monkeypatch, targets=("drummond", "granville", "guerrico", "hipolito_bouchard"),
                   rendezvous=False):
    st = empty()
    place(st, "hermes", SEA)
    for t in targets:
        place(st, t, SEA)
    with_factor(monkeypatch, "hermes", surface=3, sub=3)
    st["rendezvous"] = rendezvous
    return st


def test_fs_10_9_a_carrier_fires_three_times_before_the_rendezvous(monkeypatch):
    st = carrier_strike(monkeypatch)
    three = fire(("hermes", "drummond"), ("hermes", "granville"), ("hermes", "drummond"))
    out, st2 = play(st, UK, op(18, area=SEA, carriers=["hermes"], fire=three))
    out, _ = answer(st2, AR, {"fire": "auto"}, FixedDice(6, 6, 6, default=6))
    assert [s[:3] for s in shots(out)][:3] == [(UK, "hermes", t) for t in ("drummond", "granville", "drummond")]
    e = refused(st, UK, op(18, area=SEA, carriers=["hermes"], fire=three + fire(("hermes", "guerrico"))))
    assert e.rule == "FS 10.9"


def test_fs_10_9_a_carrier_fires_four_times_after_the_rendezvous(monkeypatch):
    st = carrier_strike(monkeypatch, rendezvous=True)
    four = fire(*(("hermes", t) for t in ("drummond", "granville", "guerrico", "hipolito_bouchard")))
    out, st2 = play(st, UK, op(18, area=SEA, carriers=["hermes"], fire=four))
    out, _ = answer(st2, AR, {"fire": "auto"}, FixedDice(6, 6, 6, 6, default=6))
    assert len([r for r in rolls_of(out) if r.seat == UK]) == 4
    e = refused(st, UK, op(18, area=SEA, carriers=["hermes"], fire=four + fire(("hermes", "drummond"))))
    assert e.rule == "FS 10.9"


def test_fs_10_9_carrier_shots_defending_too(monkeypatch):
    st = carrier_strike(monkeypatch, targets=("drummond", "granville"))
    st["phase"], st["active"] = "AR Operations", [AR]
    with_factor(monkeypatch, "drummond", surface=2)
    with_factor(monkeypatch, "granville", surface=2)
    out, st = play(st, AR, op(14, area=SEA, units=["drummond", "granville"],
                              fire=fire(("drummond", "hermes"), ("granville", "hermes"))))
    three = fire(("hermes", "drummond"), ("hermes", "granville"), ("hermes", "granville"))
    with pytest.raises(RuleViolation) as e:
        answer(st, UK, {"fire": three + fire(("hermes", "drummond"))}, FixedDice(default=6))
    assert e.value.rule == "FS 10.9"
    out, _ = answer(st, UK, {"fire": three}, FixedDice(6, 6, 6, 6, 6))
    assert [s[0] for s in shots(out)] == [AR, AR, UK, UK, UK]


def near_strike(monkeypatch, targets=("drummond", "granville", "guerrico")):
    """Hermes next door to AR ships in the Falkland Islands Sea Area (FS 9.3): its Op #18 strike
    draws no return fire (FS 10.1), so the only dice are its own."""
    st = carrier_strike(monkeypatch, targets=())
    for t in targets:
        place(st, t, "falklands")
        with_factor(monkeypatch, t, surface=3)
    place(st, "hermes", sorted(DATA.sea_adjacent("falklands"))[0])
    return st


def test_fs_10_9_every_shot_of_a_carrier_is_taken_those_not_assigned_as_it_fires(monkeypatch):
    # FS 10.9 "they may fire three times ... they need not assign each shot beforehand. All shots
    # would have to be taken": one shot listed, three rolled (the example: "three per carrier").
    st = near_strike(monkeypatch, targets=("drummond",))
    out, _ = play(st, UK, op(18, area="falklands", carriers=["hermes"], fire=fire(("hermes", "drummond"))),
                  FixedDice(6, 6, 6))
    assert [s[:3] for s in shots(out)] == [(UK, "hermes", "drummond")] * 3 and not pending(_)


def test_fs_10_9_the_uk_aims_a_carriers_later_shot_knowing_the_dice_before_it(monkeypatch):
    # FS 10.9 "they need not assign each shot beforehand": with two targets still standing after the
    # first die, the UK chooses the second shot's target then (a pending decision), and the third's
    # after the second die.
    st = near_strike(monkeypatch)
    out, st = play(st, UK, op(18, area="falklands", carriers=["hermes"], fire=fire(("hermes", "drummond"))),
                   FixedDice(1))
    assert shots(out) == [(UK, "hermes", "drummond", 3, 1, "hit")]
    d = pending(st)
    assert (d["kind"], d["seat"], d["rule"]) == ("carrier_shot", UK, "FS 10.9")
    assert d["options"]["carrier"] == "hermes" and (d["options"]["shot"], d["options"]["of"]) == (2, 3)
    assert d["options"]["standing"] == ["granville", "guerrico"]  # Drummond is down (its hit takes effect later)
    assert d["options"]["dice"] == [{"unit": "hermes", "at": "drummond", "hit_number": 3, "value": 1}]
    assert not events_of(out, "UnitEliminated")  # FS 10.2: no hit takes effect before the last die
    out, st = answer(st, UK, {"at": "guerrico"}, FixedDice(5))
    assert shots(out) == [(UK, "hermes", "guerrico", 3, 5, "miss")]
    assert pending(st)["kind"] == "carrier_shot" and pending(st)["options"]["shot"] == 3
    out, st = answer(st, UK, {"at": "granville"}, FixedDice(2))
    assert shots(out) == [(UK, "hermes", "granville", 3, 2, "hit")]
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["drummond", "granville"]
    assert not st["pending"] and S.alive(st, "guerrico")


def test_fs_10_9_a_carriers_shot_aimed_as_fired_is_rolled_at_its_own_targets_hit_number(monkeypatch):
    # FS 10.9 with 10.5: Hermes lists the Super Etendard twice and a Pucara. The first die downs the
    # Super Etendard; the second shot is not thrown at it (FS 10.2's overkill) but aimed at the one
    # target still standing, the Pucara, and its die (a 2) judged at the Pucara's hit number - a
    # hit, where at the stealth aircraft's (one) it would have missed.
    st = empty()
    place(st, "hermes", "falklands")
    base = "pebble_island"  # an airbase with neither mountains nor entrenchments (FS 10.6, 10.7)
    place(st, "pucara_3", base)
    place(st, T.STEALTH_UNIT, base)
    with_factor(monkeypatch, "hermes", air=3)
    order = op(13, carriers=["hermes"], airbase=base,
               fire=fire(("hermes", T.STEALTH_UNIT), ("hermes", T.STEALTH_UNIT), ("hermes", "pucara_3")))
    out, after = play(st, UK, order, FixedDice(1, 2, 6))
    assert [s[:5] for s in shots(out)][:2] == [(UK, "hermes", T.STEALTH_UNIT, 1, 1), (UK, "hermes", "pucara_3", 3, 2)]
    assert sorted(e["unit"] for e in events_of(out, "UnitEliminated")) == sorted([T.STEALTH_UNIT, "pucara_3"])
    assert not pending(after)


def test_fs_10_9_auto_fire_aims_a_carriers_later_shots_at_targets_still_standing(monkeypatch):
    # "auto": the server aims the shots the UK left to it, as they are fired: never at a ship the
    # dice before have already sunk while another stands, and without asking.
    st = near_strike(monkeypatch, targets=("drummond", "granville"))
    out, st = play(st, UK, op(18, area="falklands", carriers=["hermes"], fire="auto"), FixedDice(1, 6, 6))
    assert shots(out)[0][2] == "drummond" and [s[2] for s in shots(out)[1:]] == ["granville", "granville"]
    assert not st["pending"]


def test_fs_10_9_a_carriers_shot_aimed_as_fired_keeps_10_4_10_9_and_the_battle_area(monkeypatch):
    # "All shots would have to be taken, though, at enemy units in the same battle area"; once at
    # submarines (10.9); a protected ship only with every unprotected one attacked (10.4).
    st = near_strike(monkeypatch, targets=("drummond", "granville", "25_de_mayo"))
    out, st = play(st, UK, op(18, area="falklands", carriers=["hermes"], fire=fire(("hermes", "drummond"))),
                   FixedDice(6))
    d = pending(st)
    assert sorted(d["options"]["at"]) == ["drummond", "granville"]  # 10.4: Granville not yet attacked
    for wrong, rule in (("25_de_mayo", "FS 10.4"), ("hermes", "FS 10.9"), ("sheffield", "FS 10.9")):
        with pytest.raises(RuleViolation) as e:
            answer(st, UK, {"at": wrong}, FixedDice(default=6))
        assert e.value.rule == rule, wrong
    out, st = answer(st, UK, {"at": "granville"}, FixedDice(6))
    assert sorted(pending(st)["options"]["at"]) == ["25_de_mayo", "drummond", "granville"]  # now 10.4 allows it
    out, st = answer(st, UK, {"at": "25_de_mayo"}, FixedDice(6))
    assert shots(out) == [(UK, "hermes", "25_de_mayo", 3, 6, "miss")] and not st["pending"]


def test_fs_10_9_a_carrier_aiming_as_it_fires_may_not_fire_at_a_submarine_twice(monkeypatch):
    st = carrier_strike(monkeypatch, targets=("drummond", "granville", "salta"))
    out, st = play(st, UK, op(20, units=["hermes"], destination=SEA, attack=True, fire=fire(("hermes", "salta"))))
    out, st = answer(st, AR, {"fire": "auto"}, FixedDice(6))
    assert [s[:3] for s in shots(out)] == [(UK, "hermes", "salta")]
    d = pending(st)
    assert d["kind"] == "carrier_shot" and sorted(d["options"]["at"]) == ["drummond", "granville"]
    with pytest.raises(RuleViolation) as e:
        answer(st, UK, {"at": "salta"}, FixedDice(default=6))
    assert e.value.rule == "FS 10.9"


def test_fs_10_9_a_shot_re_aimed_after_its_target_sank_keeps_the_carriers_one_submarine_shot_listed(monkeypatch):
    # FS 10.9 "When firing at submarines, neither carrier ever fires more than once per battle":
    # Hermes lists Drummond, then Salta. Invincible's die sinks Drummond first, so Hermes' first
    # shot is aimed anew - not at Salta, which its later listed shot fires at: one die at Salta.
    st = carrier_strike(monkeypatch, targets=("drummond", "salta"))
    place(st, "invincible", SEA)
    with_factor(monkeypatch, "invincible", surface=3, sub=3)
    order = op(20, units=["hermes", "invincible"], destination=SEA, attack=True,
               fire=fire(("invincible", "drummond"), ("hermes", "drummond"), ("hermes", "salta")))
    out, st = play(st, UK, order)
    out, st = answer(st, AR, {"fire": "auto"}, FixedDice(1, default=6))
    hermes = [s[2] for s in shots(out) if s[1] == "hermes"]
    assert len(hermes) == 3 and hermes.count("salta") == 1, hermes
    assert [s[2] for s in shots(out) if s[1] == "invincible"].count("salta") <= 1


def test_fs_10_9_a_defending_carrier_aims_its_later_shots_after_the_attackers_dice(monkeypatch):
    # "offensively or defensively": the AR's dice are rolled first (FS 10.2), then the UK's assigned
    # shot; the carrier's second shot is asked with all of them known.
    st = carrier_strike(monkeypatch, targets=("drummond", "granville", "guerrico"))
    st["phase"], st["active"] = "AR Operations", [AR]
    out, st = play(st, AR, op(14, area=SEA, units=["drummond", "granville", "guerrico"],
                              fire=fire(("drummond", "hermes"), ("granville", "hermes"), ("guerrico", "hermes"))))
    out, st = answer(st, UK, {"fire": fire(("hermes", "drummond"))}, FixedDice(6, 6, 6, 1))
    assert [s[:3] for s in shots(out)] == [(AR, u, "hermes") for u in ("drummond", "granville", "guerrico")] + [
        (UK, "hermes", "drummond")]
    d = pending(st)
    assert (d["kind"], d["seat"]) == ("carrier_shot", UK) and d["options"]["standing"] == ["granville", "guerrico"]
    assert len(d["options"]["dice"]) == 4


def test_fs_10_9_the_carrier_shot_is_offered_to_the_uk_alone_with_every_target_it_may_fire_at(monkeypatch):
    st = near_strike(monkeypatch)
    out, st = play(st, UK, op(18, area="falklands", carriers=["hermes"], fire=fire(("hermes", "drummond"))),
                   FixedDice(6))
    d = pending(st)
    (offer,) = R.legal_orders(st, UK)
    assert offer["kind"] == "decide" and offer["decision_kind"] == "carrier_shot"
    assert offer["fields"]["choice"] == [{"at": t} for t in d["options"]["at"]]
    assert sorted(d["options"]["at"]) == ["drummond", "granville", "guerrico"]  # overkill is allowed (10.2)
    assert R.legal_orders(st, AR) == []
    with pytest.raises(InvalidOrder):
        answer(st, UK, {}, FixedDice(default=6))  # an answer gives its target


def test_fs_10_9_a_shot_at_a_target_already_down_is_not_asked_while_a_leader_marker_is_held(monkeypatch):
    # One ship left standing: the second shot goes to it unasked. A Decisive Leader marker held, the
    # first die, a hit on his ship, is offered for a re-roll as it is rolled (11.3 4-1/4-3 "after any
    # die roll" he doesn't like); kept, its hit stands, so the second shot still goes to the ship left
    # standing, unasked; its miss goes the AR's way (not asked), and the third shot follows unasked.
    st = near_strike(monkeypatch, targets=("drummond", "granville"))
    order = op(18, area="falklands", carriers=["hermes"], fire=fire(("hermes", "drummond")))
    out, after = play(st, UK, order, FixedDice(1, 6, 6))
    assert [s[2] for s in shots(out)] == ["drummond", "granville", "granville"] and not pending(after)
    st["markers"][AR] = ["ar_decisive_leader"]
    out, st = play(st, UK, order, FixedDice(1))
    d = pending(st)
    assert (d["kind"], d["seat"], [o["die"] for o in d["options"]["reroll"]]) == ("leadership", AR, [0])
    out, st = answer(st, AR, {"reroll": None}, FixedDice(6, 6))
    assert [s[2] for s in shots(out)] == ["granville", "granville"] and not pending(st)


def two_ship_duel(monkeypatch, holder, *, at_drummond=("drummond", "granville")):
    """Glamorgan and Broadsword (two steps each) attack Drummond and Granville (one each) in Op #14,
    every factor 3; ``holder`` holds his Decisive Leader marker. The state waits for the AR's fire."""
    st = sea_fight(monkeypatch, uk=("glamorgan", "broadsword"), ar=("drummond", "granville"))
    st["markers"][holder] = [combat.LEADER_MARKER[holder]]
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan", "broadsword"],
                              fire=fire(("glamorgan", at_drummond[0]), ("broadsword", at_drummond[1]))))
    return st


AR_FIRE = {"fire": fire(("drummond", "glamorgan"), ("granville", "broadsword"))}


def test_fs_11_3_4_1_the_holders_own_hits_and_the_enemys_misses_are_not_asked_about(monkeypatch):
    # "after any die roll made by either player that he doesn't like" (read: docs/rulesets.md): the
    # UK's two hits and Drummond's miss go his way, unasked; Granville's hit on Broadsword (a hit that
    # only marks a two-step ship, 10.11) is his to dislike, and is asked about.
    st = two_ship_duel(monkeypatch, UK)
    out, st = answer(st, AR, AR_FIRE, FixedDice(1, 1, 6, 1))
    assert [s[4:] for s in shots(out)] == [(1, "hit"), (1, "hit"), (6, "miss"), (1, "hit")]
    d = pending(st)
    assert (d["kind"], d["seat"], [o["die"] for o in d["options"]["reroll"]]) == ("leadership", UK, [3])
    out, st = answer(st, UK, {"reroll": None})
    assert not st["pending"] and [e["unit"] for e in events_of(out, "UnitHit")] == ["broadsword"]


def test_fs_11_3_4_3_a_die_at_a_unit_the_dice_before_destroyed_is_not_asked_about(monkeypatch):
    # Both UK ships fire at Drummond: the first hit sinks it (the AR holder is asked), the second
    # changes nothing whatever it shows (10.2: overkill is wasted), unasked. The AR's own miss at a
    # ship still standing is his to dislike; his own hit is not.
    st = two_ship_duel(monkeypatch, AR, at_drummond=("drummond", "drummond"))
    out, st = answer(st, AR, AR_FIRE, FixedDice(1))
    assert [o["die"] for o in pending(st)["options"]["reroll"]] == [0]
    out, st = answer(st, AR, {"reroll": None}, FixedDice(1, 6))
    assert [s[2:] for s in shots(out)] == [("drummond", 3, 1, "hit"), ("glamorgan", 3, 6, "miss")]
    d = pending(st)
    assert (d["kind"], d["seat"], [o["die"] for o in d["options"]["reroll"]]) == ("leadership", AR, [2])
    out, st = answer(st, AR, {"reroll": None}, FixedDice(1))
    assert [s[2:] for s in shots(out)] == [("broadsword", 3, 1, "hit")] and not st["pending"]
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["drummond"]


def test_fs_11_3_4_1_a_question_asked_before_this_reading_takes_its_answer(monkeypatch):
    # Event sourcing: a question recorded by the code that asked after every die (here about the
    # holder's own hit) waits in its DecisionPending; answered now, it plays the marker as it did then.
    st = two_ship_duel(monkeypatch, UK)
    monkeypatch.setattr(combat, "die_disliked", lambda *a: True)
    out, st = answer(st, AR, AR_FIRE, FixedDice(1))
    monkeypatch.undo()
    assert [o["die"] for o in pending(st)["options"]["reroll"]] == [0]
    out, st = answer(st, UK, {"reroll": 0}, FixedDice(6, 1, 6, 6))
    assert events_of(out, "MarkerPlayed") == [{"side": UK, "marker": "uk_decisive_leader", "rule": "FS 11.3 4-1"}]
    assert [s[4] for s in shots(out)] == [6, 1, 6, 6] and not st["pending"]


def test_fs_10_9_a_battle_recorded_before_shots_were_aimed_as_fired_resolves_as_it_did_then(monkeypatch):
    # Event sourcing: a battle waiting in a recorded DecisionPending before this reading (its frame
    # without "shots_as_fired") fires its listed shots only, and a carrier's hit on a target already
    # destroyed passes to its next listed one, as the code of then did.
    st = carrier_strike(monkeypatch, targets=("drummond", "granville"))
    out, st = play(st, UK, op(18, area=SEA, carriers=["hermes"], fire=fire(("hermes", "drummond"), ("hermes", "drummond"),
                                                                          ("hermes", "granville"))))
    for frame in pending(st)["context"]["stack"]:
        frame.pop("shots_as_fired", None)
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, 1, 6, default=6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["drummond", "granville"]
    assert [s[2] for s in shots(out) if s[0] == UK] == ["drummond", "drummond", "granville"]
    out, st = play(carrier_strike(monkeypatch, targets=("drummond",)), UK,
                   op(18, area=SEA, carriers=["hermes"], fire=fire(("hermes", "drummond"))))
    for frame in pending(st)["context"]["stack"]:
        frame.pop("shots_as_fired", None)
    out, _ = answer(st, AR, {"fire": "auto"}, FixedDice(6, 6))
    assert [s[:2] for s in shots(out)] == [(UK, "hermes"), (AR, "drummond")]  # one listed, one fired


def test_fs_10_9_an_interception_or_free_attack_asked_before_shots_were_aimed_as_fired_resolves_as_it_did_then(monkeypatch):
    # Event sourcing: an Op #11 interception or a free attack (11.3 2-1) waiting in a DecisionPending
    # recorded before this reading begins its battle only when answered; that battle fires the
    # shots the answer lists, as the code of then did (one die for one shot listed). Asked today,
    # the carrier takes all three (FS 10.9).
    st = empty("AR Operations")
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", "port_stanley")
    out, st = play(st, AR, op(18, area="falklands", aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))))
    assert pending(st)["kind"] == "interception"
    one = {"fire": fire(("hermes", "a4_1"))}
    out, _ = answer(st, UK, one, FixedDice(default=6))
    assert [s[:2] for s in shots(out)] == [(UK, "hermes")] * 3
    for frame in pending(st)["context"]["stack"]:
        frame.pop("shots_as_fired", None)
    out, _ = answer(st, UK, one, FixedDice(default=6))
    assert [s[:2] for s in shots(out) if s[1] == "hermes"] == [(UK, "hermes")]

    for recorded_before in (False, True):
        st = carrier_strike(monkeypatch, targets=("drummond",))
        place(st, "glamorgan", SEA)
        set_phase(st, "AR Submarine")
        out, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(2, 1))  # 11.3 2-1
        assert pending(st)["kind"] == "free_attack"
        if recorded_before:
            for frame in pending(st)["context"]["stack"]:
                frame.pop("shots_as_fired", None)
        out, st = answer(st, UK, {"area": SEA, "units": ["glamorgan"], "carriers": ["hermes"],
                                  "fire": fire(("hermes", "drummond"), ("glamorgan", "drummond"))})
        out, _ = answer(st, AR, {"fire": "auto"}, FixedDice(default=6))
        assert len([s for s in shots(out) if s[1] == "hermes"]) == (1 if recorded_before else 3)


def test_fs_10_9_a_carrier_fires_once_at_submarines(monkeypatch):
    st = carrier_strike(monkeypatch, targets=("drummond", "salta"))
    twice = fire(("hermes", "salta"), ("hermes", "salta"))
    e = refused(st, UK, op(20, units=["hermes"], destination=SEA, attack=True, fire=twice))
    assert e.rule == "FS 10.9"
    # FS 10.9 interpretation: one shot at the submarine, the others at surface targets.
    out, st2 = play(st, UK, op(20, units=["hermes"], destination=SEA, attack=True,
                               fire=fire(("hermes", "salta"), ("hermes", "drummond"), ("hermes", "drummond"))))
    assert events_of(out, "BattleBegun")[0]["defenders"] == ["drummond", "salta"]


def test_fs_10_9_rendezvous_makes_four_shots_and_removes_the_conveyor_without_vp(monkeypatch):
    st = empty()
    for u in ("hermes", "invincible"):
        place(st, u, SEA)
    place(st, "atlantic_conveyor", "sa4")
    vp = st["vp"]["VP"]
    out, after = play(st, UK, op(20, units=["atlantic_conveyor"], destination=SEA))
    assert events_of(out, "UnitWithdrawn") == [{"unit": T.CONVEYOR, "reason": events_of(out, "UnitWithdrawn")[0]["reason"],
                                                "rule": "FS 10.9"}]
    assert not events_of(out, "VPScored") and after["vp"]["VP"] == vp
    assert after["rendezvous"] is True and not S.alive(after, T.CONVEYOR)
    assert combat.shots_allowed(after, "hermes", []) == 4 == combat.shots_allowed(after, "invincible", [])


def test_fs_10_9_no_rendezvous_until_all_three_share_a_sea_area_at_the_end_of_a_uk_operation():
    st = empty()
    place(st, "hermes", SEA)
    place(st, "invincible", "sa4")
    place(st, "atlantic_conveyor", "sa4")
    out, after = play(st, UK, op(20, units=["atlantic_conveyor"], destination=SEA))
    assert not events_of(out, "UnitWithdrawn") and after["rendezvous"] is False
    assert combat.shots_allowed(after, "hermes", []) == 3
    # Together at the end of an AR operation only: no rendezvous yet.
    st = empty("AR Operations")
    for u in ("hermes", "invincible", "atlantic_conveyor"):
        place(st, u, SEA)
    out, after = play(st, AR, {"kind": "pass"})
    assert not events_of(out, "UnitWithdrawn") and after["rendezvous"] is False


def test_fs_10_9_interception_example_three_rolls_per_carrier(monkeypatch):
    st = empty("AR Operations")
    for c in ("hermes", "invincible"):
        place(st, c, "falklands")
    place(st, "glamorgan", "falklands")
    for a in ("a4_1", "a4_2"):
        place(st, a, "port_stanley")
    out, st = play(st, AR, op(18, area="falklands", aircraft=["a4_1", "a4_2"],
                              fire=fire(("a4_1", "glamorgan"), ("a4_2", "glamorgan"))))
    d = pending(st)
    assert d["kind"] == "interception" and d["options"]["shots"] == {"hermes": 3, "invincible": 3}
    six = fire(*((c, a) for c in ("hermes", "invincible") for a in ("a4_1", "a4_1", "a4_2")))
    out, st = answer(st, UK, {"fire": six}, FixedDice(6, 6, 6, 6, 6, 1))
    assert [(r.seat, r.target["hit_number"]) for r in rolls_of(out)] == [
        (UK, DATA.units[c]["factors"]["air"]) for c in ("hermes", "invincible") for _ in range(3)]
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["a4_2"]
    # The survivor presses on; the battle over the ships comes after the interception.
    assert pending(st)["kind"] == "defensive_fire"
    assert events_of(out, "BattleBegun")[-1]["attackers"] == ["a4_1"]


# ----------------------------------------------------------------------------------- 10.10 ---
def test_fs_10_10_a_non_armored_ground_unit_firing_at_armor_loses_one(monkeypatch):
    st = ground_fight(monkeypatch, FLAT, uk=("2_para", "b_r"), ar=("armd_10", "ri_12"), factor=3)
    out, st = play(st, UK, op(15, area=FLAT, units=["2_para", "b_r"],
                              fire=fire(("2_para", "armd_10"), ("b_r", "armd_10"))))
    out, _ = answer(st, AR, {"fire": fire(("ri_12", "b_r"), ("armd_10", "2_para"))}, FixedDice(6, 6, 6, 6))
    by = {(r.units[0], r.units[1]): r.target for r in rolls_of(out)}
    assert by[("2_para", "armd_10")]["hit_number"] == 2
    assert any("FS 10.10" in m["reason"] for m in by[("2_para", "armd_10")]["modifiers"])
    assert by[("b_r", "armd_10")] == {"hit_number": 3, "modifiers": []}  # armor at armor
    assert by[("ri_12", "b_r")]["hit_number"] == 2
    assert by[("armd_10", "2_para")] == {"hit_number": 3, "modifiers": []}


def test_fs_10_10_aircraft_firing_at_armor_are_not_reduced(monkeypatch):
    st = empty("AR Operations")
    place(st, "b_r", FLAT)
    place(st, "pucara_1", "port_stanley")
    with_factor(monkeypatch, "pucara_1", ground=3)
    out, st = play(st, AR, op(19, area=FLAT, aircraft=["pucara_1"], fire=fire(("pucara_1", "b_r"))),
                   FixedDice(6))
    assert [r.target for r in rolls_of(out)] == [{"hit_number": 3, "modifiers": []}]


# ----------------------------------------------------------------------------------- 10.11 ---
def test_fs_10_11_an_ar_unit_hit_once_is_eliminated(monkeypatch):
    st = sea_fight(monkeypatch)
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, default=6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["drummond"]
    assert not events_of(out, "UnitHit") and after["units"]["drummond"]["eliminated"]


def test_fs_10_11_a_uk_unit_takes_a_hit_marker_then_is_eliminated_by_a_second_hit(monkeypatch):
    st = sea_fight(monkeypatch)
    st["phase"], st["active"] = "AR Operations", [AR]
    order = op(14, area=SEA, units=["drummond"], fire=fire(("drummond", "glamorgan")))
    out, mid = play(st, AR, order)
    out, after = answer(mid, UK, {"fire": "auto"}, FixedDice(1, default=6))
    assert events_of(out, "UnitHit") == [{"unit": "glamorgan", "steps_lost": 1, "steps_left": 1,
                                          "rule": "FS 7.1 Op #14", "roll": None}]
    assert after["units"]["glamorgan"]["steps"] == 1 and S.alive(after, "glamorgan")
    place(st, "glamorgan", SEA, steps=1)
    out, mid = play(st, AR, order)
    out, after = answer(mid, UK, {"fire": "auto"}, FixedDice(1, default=6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["glamorgan"]
    assert not S.alive(after, "glamorgan")


def test_fs_10_11_two_hits_in_one_battle_eliminate_a_two_step_unit(monkeypatch):
    st = sea_fight(monkeypatch, ar=("drummond", "granville"))
    st["phase"], st["active"] = "AR Operations", [AR]
    out, mid = play(st, AR, op(14, area=SEA, units=["drummond", "granville"],
                               fire=fire(("drummond", "glamorgan"), ("granville", "glamorgan"))))
    out, after = answer(mid, UK, {"fire": "auto"}, FixedDice(1, 1, default=6))
    assert names(out).count("UnitHit") == 1 and events_of(out, "UnitEliminated")[0]["unit"] == "glamorgan"


def test_fs_10_11_a_hit_marker_does_not_change_a_units_hit_number(monkeypatch):
    st = sea_fight(monkeypatch)
    place(st, "glamorgan", SEA, steps=1)
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    out, _ = answer(st, AR, {"fire": "auto"}, FixedDice(3, default=6))
    assert rolls_of(out)[0].target == {"hit_number": 3, "modifiers": []}
    assert rolls_of(out)[0].outcome == "hit"
