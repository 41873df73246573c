"""FS 11.1-11.3: the Random Event Phase, the 36 results (UK die first, AR die second) and each
effect carried out, on small synthetic positions. Dice are chosen with FixedDice; factors a test
relies on are set with ``with_factor``."""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from projections.narrate import describe
from tests.unit.falklands.helpers import (
    AR, R, UK, FixedDice, answer, control, empty, events_of, fire, keep_dice, names, op, pending, place, play,
    refused, rolls_of, set_phase, with_factor,
)

SEA = "sa7"  # a TEZ sea area (FS 2.2)
FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])
FLAT2 = next(a for a in DATA.land_areas if a != FLAT and not DATA.areas[a]["mountains"]
             and not DATA.areas[a]["entrenched"])

# FS 11.3, as printed: each result and its title.
TEXT = {
    **{f"1-{d}": "UK Operational Superiority" for d in range(1, 6)},
    "1-6": "Poor UK Staff Work",
    **{f"2-{d}": "UK Surface Vessel Detection Advantage" for d in (1, 2, 3)},
    "2-4": "Special Forces Team Compromised",
    **{e: "UK Submarine Detection Advantage" for e in ("2-5", "2-6", "3-1")},
    "3-2": "AR Target of Opportunity", "3-3": "AR Target of Opportunity",
    **{f"3-{d}": "UK Surprise Sub Attack" for d in (4, 5, 6)},
    "4-1": "Decisive UK Leadership", "4-2": "Decisive UK Leadership", "4-3": "Decisive AR Leadership",
    "4-4": "AR Surface Vessel Detection Advantage",
    "4-5": "UK Political Pressure for a Decision",
    "4-6": "Argentine Air Force Mechanical & Parts Issues",
    "5-1": "Poor AR Logistics", "5-2": "Poor AR Logistics",
    **{f"5-{d}": "Severe Weather" for d in (3, 4, 5)},
    **{e: "Argentine Air Force Panache" for e in ("5-6", "6-1", "6-2")},
    "6-3": "AR Receives Replacement Aircraft from Sympathetic Peru",
    "6-4": "Land-Launched Exocet Available",
    "6-5": "AR Submarine Detection Advantage",
    "6-6": "AR Surprise Submarine Attack",
}


def draw(st, uk, *more, default=None):
    """End the AR Submarine Phase so the Random Event Phase rolls ``uk`` then the AR die, the first
    of ``more`` (FS 11.2; a Decisive Leader marker held, it is asked after the UK die alone)."""
    set_phase(st, "AR Submarine")
    return play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(uk, *more, default=default))


def drawn(out) -> str:
    (e,) = events_of(out, "RandomEventDrawn")
    return e["result"]


def phase(st, name):
    st = {**st, "pending": []}
    return set_phase(st, name)


def seq_of(out, roll) -> int:
    """The seq ``fold_all`` gave an outcome (as the aggregate numbers recorded events)."""
    return next(i for i, o in enumerate(out, start=1) if o is roll)


# ------------------------------------------------------------------------------- 11.1 / 11.2 ---
@pytest.mark.parametrize("uk, ar", [(u, a) for u in range(1, 7) for a in range(1, 7)])
def test_fs_11_2_every_result_reads_the_uk_die_first_then_the_ar_die(uk, ar):
    out, after = draw(empty(), uk, ar, default=1)
    first, second = rolls_of(out)[:2]
    assert (first.seat, first.values, first.rule) == (UK, [uk], "FS 11.2")
    assert (second.seat, second.values, second.rule) == (AR, [ar], "FS 11.2")
    (e,) = events_of(out, "RandomEventDrawn")
    # the title; on an empty board a free attack's says it has nothing to attack (FS 11.2)
    assert e["result"] == f"{uk}-{ar}" and e["title"].split(": no effect, ")[0] == TEXT[e["result"]]
    assert e["rule"] == f"FS 11.3 {uk}-{ar}"


def test_fs_11_1_the_random_event_phase_ends_every_turn():
    out, after = draw(empty(), 6, 3)  # Peru with nothing to replace: no effect
    assert names(out)[0] == "PhaseAdvanced" and events_of(out, "PhaseAdvanced")[0]["phase"] == "Random Event"
    assert events_of(out, "TurnAdvanced")[0]["turn"] == 2
    assert after["phase"] == "UK Operations" and after["turn"] == 2


def test_fs_11_2_no_effect_is_not_rerolled():
    out, after = draw(empty(), 2, 1)  # surface detection with no contested sea area
    assert len(rolls_of(out)) == 2 and "DecisionPending" not in names(out)
    assert after["phase"] == "UK Operations"


# --------------------------------------------------------------------------------- 1-1 .. 1-5 ---
@pytest.mark.parametrize("ar", [1, 2, 3, 4, 5])
def test_fs_11_3_1_1_to_1_5_two_uk_operations_for_the_price_of_one(ar):
    st = empty()
    place(st, "glamorgan", "sa4")
    out, st = draw(st, 1, ar)
    assert events_of(out, "EffectGained")[0]["effect"] == "uk_operational_superiority"
    assert st["phase"] == "UK Operations" and st["phase_ops"]["allowed"] == 2
    left = st["uk_operations_left"]
    out, st = play(st, UK, op(20, units=["glamorgan"], destination="sa5"))
    assert events_of(out, "OperationBegun")[0]["free"] is True and st["uk_operations_left"] == left
    assert st["phase"] == "UK Operations" and st["active"] == [UK]  # the second op need not be announced first
    out, st = play(st, UK, op(20, units=["glamorgan"], destination=SEA))
    assert events_of(out, "OperationBegun")[0]["free"] is False and st["uk_operations_left"] == left - 1
    assert events_of(out, "EffectSpent")[0]["effect"] == "uk_operational_superiority"
    assert st["phase"] == "AR Operations"


# ---------------------------------------------------------------------------------------- 1-6 ---
def staff_work():
    out, st = draw(empty(), 1, 6)
    assert "poor_uk_staff_work" in st["effects"][UK] and st["phase"] == "UK Operations"
    return st


def test_fs_11_3_1_6_no_uk_air_sea_or_land_movement():
    st = staff_work()
    place(st, "glamorgan", "sa4")
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "3_para", FLAT)
    control(st, UK, FLAT, FLAT2)
    for order in (op(20, units=["glamorgan"], destination=SEA), op(16, units=["2_para"], area=FLAT),
                  op(22, units=["3_para"], origin=FLAT, destination=FLAT2)):
        assert refused(st, UK, order).rule == "FS 11.3 1-6"
    lafonia = staff_work()
    place(lafonia, "3_para", "lafonia")
    control(lafonia, UK, "lafonia")
    assert refused(lafonia, UK, op(24, units=["3_para"], origin="lafonia", destination="goose_green")).rule == \
        "FS 11.3 1-6"


def test_fs_11_3_1_6_battles_may_be_fought_in_areas_already_contested(monkeypatch):
    for u in ("glamorgan", "drummond", "2_para", "ri_12"):
        with_factor(monkeypatch, u, surface=3, ground=3)
    st = staff_work()
    place(st, "glamorgan", SEA)
    place(st, "drummond", SEA)
    place(st, "2_para", FLAT)
    place(st, "ri_12", FLAT)
    control(st, AR, FLAT)
    for order in (op(20, units=["glamorgan"], destination=SEA, attack=True, fire=fire(("glamorgan", "drummond"))),
                  op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))),
                  op(24, units=["2_para"], origin=FLAT, destination=FLAT, attack=True, fire=fire(("2_para", "ri_12"))),
                  op(15, area=FLAT, units=["2_para"], fire=fire(("2_para", "ri_12")))):
        out, after = play(st, UK, order)
        assert events_of(out, "BattleBegun") and not events_of(out, "UnitMoved")


def test_fs_11_3_1_6_a_carrier_strikes_where_it_is_contested_black_buck_is_air_movement(monkeypatch):
    # One reading: no UK unit moves or reaches into another area; battles only where already
    # contested, by units already there. Op #9's Vulcans fly an air mission: refused.
    for u in ("hermes", "glamorgan"):
        with_factor(monkeypatch, u, surface=3, ground=3)
    st = staff_work()
    place(st, "hermes", SEA)
    place(st, "drummond", SEA)
    place(st, "pucara_1", "port_stanley")
    assert R.operation_template(st, UK, 18)["choices"]["area"][SEA]["carriers"] == ["hermes"]
    out, _ = play(st, UK, op(18, area=SEA, carriers=["hermes"], fire="auto"))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["hermes"]
    assert refused(st, UK, op(9)).rule == "FS 11.3 1-6" and R.operation_template(st, UK, 9) is None
    near = staff_work()
    place(near, "hermes", sorted(DATA.sea_adjacent(SEA))[0])
    place(near, "drummond", SEA)
    assert refused(near, UK, op(18, area=SEA, carriers=["hermes"], fire="auto")).rule == "FS 11.3 1-6"
    assert R.operation_template(near, UK, 18) is None
    # Ships in the Falkland Islands Sea Area bombard a contested land area, not an uncontested one.
    shore = staff_work()
    place(shore, "glamorgan", "falklands")
    place(shore, "ri_12", FLAT)
    place(shore, "ri_25", FLAT2)
    place(shore, "2_para", FLAT2)
    control(shore, AR, FLAT, FLAT2)
    assert refused(shore, UK, op(21, units=["glamorgan"], area=FLAT, fire="auto")).rule == "FS 11.3 1-6"
    assert R.operation_template(shore, UK, 21)["choices"]["area"] == [FLAT2]
    out, _ = play(shore, UK, op(21, units=["glamorgan"], area=FLAT2, fire="auto"), FixedDice(6))
    assert events_of(out, "BattleBegun")[0]["area"] == FLAT2


def test_fs_11_3_1_6_lasts_the_next_uk_operations_phase_only_submarines_move():
    st = staff_work()
    place(st, "spartan", "sa4")
    out, st = play(st, UK, {"kind": "pass"})
    assert {"side": UK, "effect": "poor_uk_staff_work", "rule": "FS 11.3"} in events_of(out, "EffectSpent")
    assert "poor_uk_staff_work" not in st["effects"][UK]
    st = phase(st, "UK Submarine")
    out, st = play(st, UK, {"kind": "submarines", "moves": {"spartan": SEA}})
    assert S.where(st, "spartan") == SEA


# --------------------------------------------------------------------------------- 2-1 .. 2-3 ---
@pytest.mark.parametrize("ar", [1, 2, 3])
def test_fs_11_3_2_1_to_2_3_a_free_uk_attack_on_ar_surface_ships_in_a_contested_sea_area(monkeypatch, ar):
    st = empty()
    for u in ("glamorgan", "drummond", "salta"):
        place(st, u, SEA)
        with_factor(monkeypatch, u, surface=3, sub=3)
    place(st, "granville", "sa4")  # alone: not contested, not offered
    left = st["uk_operations_left"]
    out, st = draw(st, 2, ar)
    d = pending(st)
    assert (d["kind"], d["seat"], d["rule"]) == ("free_attack", UK, f"FS 11.3 2-{ar}")
    assert list(d["options"]["areas"]) == [SEA] and d["options"]["areas"][SEA]["targets"] == ["drummond"]
    out, st = answer(st, UK, {"area": SEA, "units": ["glamorgan"], "fire": fire(("glamorgan", "drummond"))})
    assert pending(st)["kind"] == "defensive_fire" and pending(st)["seat"] == AR  # normal defensive fire
    out, after = answer(st, AR, {"fire": fire(("drummond", "glamorgan"))}, FixedDice(1, 6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["drummond"]
    assert [e["rule"] for e in events_of(out, "VPScored")] == ["FS 4.4(3)"]  # sunk in the TEZ
    assert not events_of(out, "OperationBegun") and after["uk_operations_left"] == left
    assert after["phase"] == "UK Operations" and after["turn"] == 2


NOTHING = {  # the free attacks, what their line says when there is nothing to attack (FS 11.2)
    (2, 1): "no AR surface ship in a contested sea area that UK units can attack",
    (2, 5): "no AR submarine in a contested sea area that UK units can attack",
    (3, 4): "no AR surface vessel in a sea area with UK submarines that can attack it",
    (4, 4): "no UK surface ship in a contested sea area that AR units can attack",
    (6, 5): "no UK submarine in a contested sea area that AR units can attack",
    (6, 6): "no UK surface vessel in a sea area with AR submarines that can attack it",
}


@pytest.mark.parametrize("dice", sorted(NOTHING))
def test_fs_11_2_a_free_attack_with_nothing_to_attack_says_why_it_has_no_effect(dice):
    """"Circumstances otherwise permitting" (FS 11.2): a free attack with no target is no effect; the
    log's line said only the event's title, so the reader could not tell why nothing followed."""
    st = empty()
    place(st, "glamorgan", SEA)  # a ship of each side, in two sea areas: nothing contested
    place(st, "drummond", "sa4")
    out, after = draw(st, *dice)
    (e,) = events_of(out, "RandomEventDrawn")
    title = DATA.events[f"{dice[0]}{dice[1]}"]["title"]
    assert e["title"] == f"{title}: no effect, {NOTHING[dice]}"
    line = describe({"game_id": "g", "seq": 1, "type": "RandomEventDrawn", "data": e}, R)
    assert line == f"Random event {dice[0]}-{dice[1]}: {title}: no effect, {NOTHING[dice]}"
    assert not pending(after) and after["turn"] == 2


def test_fs_11_2_a_free_attack_with_a_target_reads_as_its_title_alone(monkeypatch):
    st = empty()
    for u in ("glamorgan", "drummond"):
        place(st, u, SEA)
        with_factor(monkeypatch, u, surface=3)
    out, st = draw(st, 2, 1)
    assert events_of(out, "RandomEventDrawn")[0]["title"] == DATA.events["21"]["title"]
    assert pending(st)["kind"] == "free_attack"


def test_fs_11_2_no_activated_event_may_be_declined_the_free_attack_is_made(monkeypatch):
    # FS 11.2 "no activated event may be declined": 2-1's "may" chooses how (which area, which
    # units flown in, their targets), not whether.
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "drummond", SEA)
    with_factor(monkeypatch, "glamorgan", surface=3)
    out, st = draw(st, 2, 1)
    assert "decline" not in pending(st)["options"]
    for choice in ({"decline": True}, {}, {"area": None}):
        with pytest.raises(RuleViolation) as e:
            answer(st, UK, choice)
        assert e.value.rule == "FS 11.3 2-1"
    out, after = answer(st, UK, {"area": SEA, "fire": "auto"})
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["glamorgan"]


# ---------------------------------------------------------------------------------------- 2-4 ---
def compromised():
    st = empty()
    place(st, "sas_d", FLAT)
    place(st, "ri_12", FLAT)
    place(st, "cdo_601", FLAT2)
    place(st, "2_para", FLAT2)
    place(st, "sas_g", "lafonia")  # alone, uncontested: never chosen
    place(st, "cdo_602", "pebble_island")
    control(st, UK, "lafonia")
    control(st, AR, FLAT, FLAT2, "pebble_island")
    return st


@pytest.mark.parametrize("die", [1, 2, 3, 4, 5, 6])
def test_fs_11_3_2_4_sf_team_compromised_the_unaffected_player_chooses(die):
    affected = UK if die <= 3 else AR
    victim = "sas_d" if affected == UK else "cdo_601"
    out, st = draw(compromised(), 2, 4, die)
    r = rolls_of(out)[2]
    assert (r.seat, r.values, r.rule) == (UK, [die], "FS 11.3 2-4")
    d = pending(st)
    assert (d["kind"], d["seat"], d["options"]) == ("sf_compromised", S.other(affected), {"unit": [victim]})
    out, after = answer(st, S.other(affected), {"unit": victim})
    assert events_of(out, "UnitEliminated") == [{"unit": victim, "rule": "FS 11.3 2-4", "roll": None}]
    assert not S.alive(after, victim)


def test_fs_11_3_2_4_only_an_sf_unit_in_a_contested_land_area():
    out, st = draw(compromised(), 2, 4, 1)
    with pytest.raises(RuleViolation) as e:
        answer(st, AR, {"unit": "sas_g"})
    assert e.value.rule == "FS 11.3 2-4"


def test_fs_11_3_2_4_no_such_sf_unit_no_effect():
    st = empty()
    place(st, "sas_d", FLAT)
    control(st, UK, FLAT)
    out, after = draw(st, 2, 4, 2)
    assert "DecisionPending" not in names(out) and S.alive(after, "sas_d") and after["turn"] == 2


# ------------------------------------------------------------------------------ 2-5 2-6 3-1 ---
@pytest.mark.parametrize("uk, ar", [(2, 5), (2, 6), (3, 1)])
def test_fs_11_3_2_5_2_6_3_1_free_uk_attack_on_ar_submarines_carriers_only_in_the_same_area(monkeypatch, uk, ar):
    near = sorted(DATA.sea_adjacent(SEA))[0]
    st = empty()
    for u in ("spartan", "salta", "hermes"):
        place(st, u, SEA)
        with_factor(monkeypatch, u, sub=3)
    place(st, "invincible", near)
    place(st, "drummond", SEA)
    out, st = draw(st, uk, ar)
    d = pending(st)
    rule = f"FS 11.3 {uk}-{ar}"
    assert d["rule"] == rule
    assert d["options"]["areas"][SEA] == {"units": ["spartan"], "carriers": ["hermes"], "aircraft": [],
                                          "targets": ["salta"]}
    with pytest.raises(RuleViolation) as e:
        answer(st, UK, {"area": SEA, "units": ["spartan"], "carriers": ["invincible"],
                        "fire": fire(("spartan", "salta"), ("invincible", "salta"))})
    assert e.value.rule == rule
    with pytest.raises(RuleViolation) as e:  # FS 10.9: a carrier fires once at submarines
        answer(st, UK, {"area": SEA, "carriers": ["hermes"], "fire": fire(("hermes", "salta"), ("hermes", "salta"))})
    assert e.value.rule == "FS 10.9"
    out, st = answer(st, UK, {"area": SEA, "units": ["spartan"], "carriers": ["hermes"],
                              "fire": fire(("spartan", "salta"), ("hermes", "salta"))})
    assert pending(st)["kind"] == "defensive_fire"  # normal defensive fire
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6, default=6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["salta"]
    assert [e["delta"] for e in events_of(out, "VPScored")] == [-1]
    assert after["uk_operations_left"] == empty()["uk_operations_left"]


# --------------------------------------------------------------------------------- 3-2 / 3-3 ---
def opportunity(monkeypatch, ar=2):
    st = empty()
    for u in ("hermes", "glamorgan", "drummond"):
        place(st, u, SEA)
    place(st, "a4_1", "port_stanley")
    for u in ("drummond", "a4_1"):
        with_factor(monkeypatch, u, surface=3)
    out, st = draw(st, 3, ar)
    assert events_of(out, "EffectGained")[0]["effect"] == "ar_target_of_opportunity"
    return phase(st, "AR Operations")


@pytest.mark.parametrize("ar", [2, 3])
def test_fs_11_3_3_2_3_3_ar_may_attack_one_protected_ship_without_the_unprotected_ones(monkeypatch, ar):
    st = opportunity(monkeypatch, ar)
    order = op(18, area=SEA, aircraft=["a4_1"], fire=fire(("a4_1", "hermes")))
    assert refused(st, AR, order).rule == "FS 10.4"  # not named as the target of opportunity
    out, st = play(st, AR, {**order, "target_of_opportunity": "hermes"})
    assert events_of(out, "OperationBegun") and pending(st)["kind"] == "interception"  # accepted; Hermes intercepts


def test_fs_11_3_3_2_the_waiver_serves_surface_attacks_too(monkeypatch):
    st = opportunity(monkeypatch)
    for order in (op(14, area=SEA, units=["drummond"], fire=fire(("drummond", "hermes")), target_of_opportunity="hermes"),
                  op(20, support=["drummond"], destination=SEA, attack=True, fire=fire(("drummond", "hermes")),
                     target_of_opportunity="hermes")):
        out, after = play(st, AR, order)
        assert events_of(out, "BattleBegun")[0]["defenders"] == ["hermes", "glamorgan"]
        assert pending(after)["kind"] == "defensive_fire"  # the targeted ship fires back normally


def test_fs_11_3_3_2_only_for_the_next_ar_operation(monkeypatch):
    st = opportunity(monkeypatch)
    out, after = play(st, AR, {"kind": "pass"})
    assert "ar_target_of_opportunity" not in after["effects"][AR]
    after = phase(after, "AR Operations")
    assert refused(after, AR, op(14, area=SEA, units=["drummond"], fire=fire(("drummond", "hermes")))).rule == "FS 10.4"
    # naming the spent target of opportunity is refused under the event itself, not dropped
    assert refused(after, AR, op(14, area=SEA, units=["drummond"], fire=fire(("drummond", "hermes")),
                                 target_of_opportunity="hermes")).rule == "FS 11.3 3-2"


def test_fs_11_3_3_2_the_target_of_opportunity_is_a_protected_ship(monkeypatch):
    st = opportunity(monkeypatch)
    assert refused(st, AR, op(14, area=SEA, units=["drummond"], fire=fire(("drummond", "glamorgan")),
                              target_of_opportunity="glamorgan")).rule == "FS 11.3 3-2"


# ------------------------------------------------------------------------- 3-4..3-6 and 6-6 ---
@pytest.mark.parametrize("ar", [4, 5, 6])
def test_fs_11_3_3_4_to_3_6_uk_surprise_sub_attack_without_defensive_fire(monkeypatch, ar):
    st = empty()
    for u in ("spartan", "25_de_mayo", "drummond"):
        place(st, u, SEA)
        with_factor(monkeypatch, u, surface=3, sub=3)
    place(st, "granville", "sa4")  # no UK submarine there
    left = st["uk_operations_left"]
    out, st = draw(st, 3, ar)
    d = pending(st)
    assert d["rule"] == f"FS 11.3 3-{ar}"
    assert d["options"]["areas"] == {SEA: {"units": ["spartan"], "targets": ["25_de_mayo", "drummond"]}}
    out, after = answer(st, UK, {"area": SEA, "units": ["spartan"], "target": "25_de_mayo"}, FixedDice(1))
    assert "DecisionPending" not in names(out) and [r.seat for r in rolls_of(out)] == [UK]
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["25_de_mayo"]  # protected or not
    assert [e["delta"] for e in events_of(out, "VPScored")] == [-2]  # normal VP: FS 4.4(3)
    assert after["uk_operations_left"] == left and not events_of(out, "OperationBegun")


def test_fs_11_3_6_6_ar_surprise_submarine_attack_without_defensive_fire(monkeypatch):
    st = empty()
    for u in ("salta", "hermes", "glamorgan"):
        place(st, u, SEA)
        with_factor(monkeypatch, u, surface=3, sub=3)
    out, st = draw(st, 6, 6)
    d = pending(st)
    assert (d["seat"], d["rule"]) == (AR, "FS 11.3 6-6")
    out, after = answer(st, AR, {"area": SEA, "units": ["salta"], "target": "hermes"}, FixedDice(1))
    assert "DecisionPending" not in names(out) and [r.seat for r in rolls_of(out)] == [AR]
    assert events_of(out, "UnitHit")[0]["unit"] == "hermes"
    out2, after2 = answer(st, AR, {"area": SEA, "units": ["salta"], "target": "hermes"}, FixedDice(6))
    assert not events_of(out2, "UnitHit")


# --------------------------------------------------------------------------- 4-1 4-2 4-3 ---
def battle_with_leader(monkeypatch, holder, face=5):
    """Glamorgan fires at Drummond and Drummond back: Glamorgan's die, ``face`` (a 5 misses, a 1 hits),
    is rolled and waits: a die the holder may dislike."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "drummond", SEA)
    for u in ("glamorgan", "drummond"):
        with_factor(monkeypatch, u, surface=3)
    st["markers"][holder] = [f"{holder.lower()}_decisive_leader"]
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    out, st = answer(st, AR, {"fire": fire(("drummond", "glamorgan"))}, FixedDice(face))
    return out, st


@pytest.mark.parametrize("ar, side", [(1, UK), (2, UK), (3, AR)])
def test_fs_11_3_4_1_4_2_4_3_decisive_leadership_marker_is_taken(ar, side):
    out, st = draw(empty(), 4, ar)
    assert events_of(out, "MarkerGained") == [{"side": side, "marker": f"{side.lower()}_decisive_leader",
                                               "rule": f"FS 11.3 4-{ar}"}]
    assert st["markers"][side] == [f"{side.lower()}_decisive_leader"]


def test_fs_11_3_4_1_the_holder_may_have_a_die_rolled_again_right_after_it_is_rolled(monkeypatch):
    """"He may play that marker after any die roll": each die is offered as it is rolled, knowing
    it and the dice before it, not those after (the AR's die is not rolled yet)."""
    out, st = battle_with_leader(monkeypatch, UK)
    d = pending(st)
    assert (d["kind"], d["seat"], d["rule"]) == ("leadership", UK, "FS 11.3 4-1")
    assert [(o["die"], o["side"], o["value"]) for o in d["options"]["reroll"]] == [(0, UK, 5)]
    assert len(rolls_of(out)) == 1
    out, st = answer(st, UK, {"reroll": None}, FixedDice(1))  # Glamorgan's 5 stands; the AR's die: 1
    d = pending(st)
    assert [(o["die"], o["side"], o["value"]) for o in d["options"]["reroll"]] == [(1, AR, 1)]
    assert not events_of(out, "UnitHit")  # no hit takes effect before the decision
    (ar_roll,) = rolls_of(out)
    out2, after = answer(st, UK, {"reroll": 1}, FixedDice(6))  # the AR's die, which hit Glamorgan
    assert events_of(out2, "MarkerPlayed") == [{"side": UK, "marker": "uk_decisive_leader", "rule": "FS 11.3 4-1"}]
    (again,) = rolls_of(out2)
    assert again.seat == AR and again.rule == "FS 11.3 4-1"
    assert again.replaces == seq_of(out, ar_roll)  # the re-roll names the roll it replaces
    assert not events_of(out2, "UnitHit") and after["units"]["glamorgan"]["steps"] == 2
    assert after["markers"][UK] == []


def test_fs_11_3_4_3_the_ar_holder_may_re_roll_too_and_may_keep_the_dice(monkeypatch):
    out, st = battle_with_leader(monkeypatch, AR, face=1)  # Glamorgan hits Drummond
    assert pending(st)["seat"] == AR and pending(st)["rule"] == "FS 11.3 4-3"
    for wrong in (7, 1):  # no such die; the AR's die, not rolled yet
        with pytest.raises(InvalidOrder) as e:
            answer(st, AR, {"reroll": wrong})
        assert e.value.rule == "FS 11.3 4-3"  # the AR's own event
    out, st = keep_dice(st, AR, 6)  # the hit stands; Drummond's die, his own miss, is asked about
    out2, after = answer(st, AR, {"reroll": None})
    assert not rolls_of(out2) and [e["unit"] for e in events_of(out2, "UnitEliminated")] == ["drummond"]
    assert after["markers"][AR] == ["ar_decisive_leader"]  # kept for another roll


@pytest.mark.parametrize("holder, die, asked", [(UK, 1, True), (UK, 6, False), (AR, 1, False), (AR, 6, True)])
def test_fs_11_3_4_1_4_3_the_exocet_die_is_asked_about_only_when_it_went_against_the_holder(holder, die, asked):
    """"any die roll ... that he doesn't like" (docs/rulesets.md): 6-4's one die, a hit on three, is
    the UK holder's to dislike when it hits, the AR holder's when it misses; else no question."""
    st = empty()
    place(st, "glamorgan", "falklands")
    st["markers"][holder] = [f"{holder.lower()}_decisive_leader"]
    out, st = draw(st, 6)
    out, st = keep_dice(st, holder, 4)  # the event's dice, each asked about as before: 6-4
    out, st = answer(st, holder, {"reroll": None})
    out, st = answer(st, AR, {"target": "glamorgan"}, FixedDice(die))
    d = pending(st)
    assert (d is not None and (d["kind"], d["seat"], d["rule"])) == (
        asked and ("leadership", holder, "FS 11.3 4-1" if holder == UK else "FS 11.3 4-3"))
    if not asked:
        assert len(events_of(out, "UnitHit")) == (die == 1) and st["markers"][holder]


@pytest.mark.parametrize("holder, die, asked", [(UK, 6, True), (UK, 5, False), (AR, 5, True), (AR, 6, False)])
def test_fs_11_3_4_1_4_3_the_raids_die_is_asked_about_only_when_it_went_against_the_holder(holder, die, asked):
    """Op #7's withdrawal die ("On a result of six, the involved UK SF unit is eliminated"): the UK
    holder's to dislike on a six, the AR holder's on any other face; else no question."""
    st = empty()
    place(st, "sas_d", aboard="hermes")
    place(st, "hermes", "sa4")
    place(st, "pucara_1", "port_stanley")
    st["markers"][holder] = [f"{holder.lower()}_decisive_leader"]
    out, after = play(st, UK, op(7, sf="sas_d", target="pucara_1"), FixedDice(die))
    d = pending(after)
    assert (d is not None and (d["kind"], d["seat"])) == (asked and ("leadership", holder))
    if not asked:
        assert S.alive(after, "sas_d") == (die != 6) and after["markers"][holder]


def test_fs_11_3_4_3_a_raids_die_asked_about_before_this_reading_takes_its_answer():
    """Event sourcing: the code before asked about the raid's die whatever it showed; a question
    recorded then about a six (the AR's way) still takes its answer: the marker is played."""
    st = empty()
    place(st, "sas_d", aboard="hermes")
    place(st, "hermes", "sa4")
    place(st, "pucara_1", "port_stanley")
    st["markers"][AR] = ["ar_decisive_leader"]
    out, st = play(st, UK, op(7, sf="sas_d", target="pucara_1"), FixedDice(5))
    (raid,) = [f for f in pending(st)["context"]["stack"] if f.get("step") == "sf_raid"]
    raid["shots"][0]["value"] = 6  # as recorded by the code that asked about every face
    out, after = answer(st, AR, {"reroll": 0}, FixedDice(2))
    assert events_of(out, "MarkerPlayed") == [{"side": AR, "marker": "ar_decisive_leader", "rule": "FS 11.3 4-3"}]
    assert S.alive(after, "sas_d") and not after["pending"]


def test_fs_11_3_4_1_a_battle_recorded_before_each_die_was_offered_offers_one_re_roll_after_all_its_dice(monkeypatch):
    """Event sourcing: a battle waiting in a recorded DecisionPending from before the re-roll was
    offered die by die (its frame without "leader_each_die") rolls all its dice and then offers any
    one of them, as the code of then did."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "drummond", SEA)
    for u in ("glamorgan", "drummond"):
        with_factor(monkeypatch, u, surface=3)
    st["markers"][UK] = ["uk_decisive_leader"]
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))))
    for frame in pending(st)["context"]["stack"]:
        frame.pop("leader_each_die", None)
    out, st = answer(st, AR, {"fire": fire(("drummond", "glamorgan"))}, FixedDice(5, 1))
    assert [(o["die"], o["value"]) for o in pending(st)["options"]["reroll"]] == [(0, 5), (1, 1)]
    out, after = answer(st, UK, {"reroll": 0}, FixedDice(2))
    assert rolls_of(out)[0].seat == UK and events_of(out, "UnitEliminated")[0]["unit"] == "drummond"


def test_fs_11_3_4_1_the_marker_re_rolls_the_random_event_dice_too():
    st = empty()
    st["markers"][UK] = ["uk_decisive_leader"]
    out, st = draw(st, 5)  # severe weather...
    assert pending(st)["kind"] == "leadership" and not events_of(out, "RandomEventDrawn")
    out, st = keep_dice(st, UK, 3)
    second = rolls_of(out)[0]
    out2, after = answer(st, UK, {"reroll": 1}, FixedDice(1))  # ... the AR die again: 5-1
    assert rolls_of(out2)[0].replaces == seq_of(out, second)
    assert events_of(out2, "RandomEventDrawn")[0]["result"] == "5-1"


def test_fs_11_3_4_1_the_uk_die_of_the_event_is_re_rolled_before_the_ar_die_is_rolled():
    """"After any die roll": the UK die (the first digit) is offered alone; once re-rolled, the marker
    is played and the AR die follows without another offer."""
    st = empty()
    st["markers"][AR] = ["ar_decisive_leader"]
    out, st = draw(st, 1)  # UK Operational Superiority, were the AR die 1-5...
    d = pending(st)
    assert (d["seat"], [o["die"] for o in d["options"]["reroll"]]) == (AR, [0])
    first = rolls_of(out)[0]
    out2, after = answer(st, AR, {"reroll": 0}, FixedDice(5, 3))  # ... the UK die again, then the AR die
    again, ar_die = rolls_of(out2)
    assert again.replaces == seq_of(out, first) and again.seat == UK and ar_die.replaces is None
    assert events_of(out2, "RandomEventDrawn")[0]["result"] == "5-3" and not pending(after)


@pytest.mark.parametrize("ar, gaining, rival", [(1, UK, AR), (2, UK, AR), (3, AR, UK)])
def test_fs_11_3_4_1_to_4_3_the_rivals_marker_is_taken_away_and_both_are_out(ar, gaining, rival):
    st = empty()
    st["markers"][rival] = [f"{rival.lower()}_decisive_leader"]
    out, after = draw(st, 4)
    # The holder may first have each of the event's dice rolled again (he keeps them here).
    assert pending(after)["kind"] == "leadership" and pending(after)["seat"] == rival
    out, after = keep_dice(after, rival, ar)
    out, after = answer(after, rival, {"reroll": None})
    assert events_of(out, "MarkerPlayed") == [{"side": rival, "marker": f"{rival.lower()}_decisive_leader",
                                               "rule": f"FS 11.3 4-{ar}"}]
    assert not events_of(out, "MarkerGained")
    assert after["markers"] == {UK: [], AR: []}


# ---------------------------------------------------------------------------------------- 4-4 ---
def test_fs_11_3_4_4_free_ar_attack_on_uk_surface_ships_with_aircraft_and_25_de_mayo_in_range(monkeypatch):
    near = sorted(DATA.sea_adjacent(SEA))[0]
    st = empty()
    for u in ("drummond", "glamorgan"):
        place(st, u, SEA)
    place(st, "25_de_mayo", near)
    place(st, "a4_1", "port_stanley")
    for u in ("drummond", "glamorgan", "25_de_mayo", "a4_1"):
        with_factor(monkeypatch, u, surface=3, air=3)
    out, st = draw(st, 4, 4)
    d = pending(st)
    assert (d["seat"], d["rule"]) == (AR, "FS 11.3 4-4")
    assert d["options"]["areas"][SEA] == {"units": ["drummond"], "carriers": ["25_de_mayo"], "aircraft": ["a4_1"],
                                          "targets": ["glamorgan"]}
    out, st = answer(st, AR, {"area": SEA, "units": ["drummond"], "carriers": ["25_de_mayo"], "aircraft": ["a4_1"],
                              "fire": fire(("drummond", "glamorgan"), ("25_de_mayo", "glamorgan"),
                                           ("a4_1", "glamorgan"))})
    assert pending(st)["kind"] == "defensive_fire"
    assert pending(st)["options"]["fire"] == {"glamorgan": ["drummond", "a4_1"]}
    out, after = answer(st, UK, {"fire": "auto"}, FixedDice(1, 1, 6, default=6))
    assert events_of(out, "UnitEliminated")[0]["unit"] == "glamorgan"
    assert [e["delta"] for e in events_of(out, "VPScored")] == [1]
    assert not events_of(out, "OperationBegun")


# ---------------------------------------------------------------------------------------- 4-5 ---
def pressured():
    out, st = draw(empty(), 4, 5)
    assert events_of(out, "EffectGained")[0]["detail"] == {"ops_left": 3}
    place(st, "glamorgan", SEA)  # keeps FS 4.4(1) quiet
    return st


def uk_op(st, order=None):
    st = phase(st, "UK Operations")
    return play(st, UK, order or {"kind": "pass"})


def test_fs_11_3_4_5_two_vp_if_no_landing_or_ground_attack_within_three_uk_operations():
    st = pressured()
    vp = st["vp"]["VP"]
    for _ in range(2):
        out, st = uk_op(st)
        assert not events_of(out, "VPScored")
    out, st = uk_op(st)
    assert events_of(out, "VPScored") == [{"side": "VP", "delta": 2, "total": vp + 2,
                                           "reason": events_of(out, "VPScored")[0]["reason"], "rule": "FS 11.3 4-5"}]
    assert st["political_pressure"] is None
    out, st = uk_op(st)
    assert not events_of(out, "VPScored")  # once


@pytest.mark.parametrize("which", ["landing", "ground attack", "helicopter attack"])
def test_fs_11_3_4_5_a_landing_or_ground_attack_lifts_the_pressure(monkeypatch, which):
    st = pressured()
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "3_para", FLAT2)
    place(st, "45_cdo", FLAT)
    place(st, "ri_12", FLAT)
    control(st, AR, FLAT)
    control(st, UK, FLAT2)
    with_factor(monkeypatch, "45_cdo", ground=3)
    with_factor(monkeypatch, "3_para", ground=3)
    out, st = uk_op(st)  # one op without
    order = {"landing": op(16, units=["2_para"], area=FLAT),
             "ground attack": op(15, area=FLAT, units=["45_cdo"], fire=fire(("45_cdo", "ri_12"))),
             "helicopter attack": op(22, units=["3_para"], origin=FLAT2, destination=FLAT, attack=True,
                                     fire=fire(("3_para", "ri_12")))}[which]
    out, st = uk_op(st, order)
    if pending(st):
        out, st = answer(st, AR, {"fire": "auto"}, FixedDice(6, default=6))
    assert st["political_pressure"] is None
    assert not any(e["rule"] == "FS 11.3 4-5" for e in events_of(out, "VPScored"))
    out, st = uk_op(st)
    out, st = uk_op(st)
    assert not any(e["rule"] == "FS 11.3 4-5" for e in events_of(out, "VPScored"))


# ---------------------------------------------------------------------------------------- 4-6 ---
def test_fs_11_3_4_6_no_ar_aircraft_move_or_fight_in_the_next_ar_operations_phase(monkeypatch):
    out, st = draw(empty(), 4, 6)
    st = phase(st, "AR Operations")
    place(st, "a4_1", "port_stanley")
    place(st, "drummond", SEA)
    place(st, "glamorgan", SEA)
    place(st, "2_para", FLAT)
    place(st, "ri_12", FLAT)
    with_factor(monkeypatch, "drummond", surface=3)
    for order in (op(18, area=SEA, aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))),
                  op(19, area=FLAT, aircraft=["a4_1"], fire=fire(("a4_1", "2_para"))),
                  op(3, aircraft=["a4_1"], origin="port_stanley", destination="argentina"),
                  op(20, support=["drummond"], destination=SEA, attack=True, aircraft=["a4_1"],
                     fire=fire(("a4_1", "glamorgan"))),
                  op(15, area=FLAT, units=["ri_12"], aircraft=["a4_1"], fire=fire(("a4_1", "2_para")))):
        assert refused(st, AR, order).rule == "FS 11.3 4-6"
    out, after = play(st, AR, op(20, support=["drummond"], destination=SEA, attack=True,
                                 fire=fire(("drummond", "glamorgan"))))
    assert events_of(out, "BattleBegun")  # ships still fight
    out, after = play(st, AR, {"kind": "pass"})
    assert "ar_air_mechanical" not in after["effects"][AR]


def test_fs_11_3_4_6_the_25_de_mayo_is_a_ship_it_may_strike_aircraft_may_not(monkeypatch):
    # "may not move or fight any aircraft units": the carrier is a ship, in Op #18 as in Op #14/#20.
    out, st = draw(empty(), 4, 6)
    st = phase(st, "AR Operations")
    place(st, "25_de_mayo", SEA)
    place(st, "glamorgan", SEA)
    place(st, "a4_1", "port_stanley")
    with_factor(monkeypatch, "25_de_mayo", surface=3)
    offer = R.operation_template(st, AR, 18)
    assert offer["choices"]["area"][SEA]["aircraft"] == [] and offer["choices"]["area"][SEA]["carriers"] == ["25_de_mayo"]
    assert refused(st, AR, op(18, area=SEA, aircraft=["a4_1"], carriers=["25_de_mayo"])).rule == "FS 11.3 4-6"
    assert R.operation_template(st, AR, 3) is None
    out, after = play(st, AR, op(18, area=SEA, carriers=["25_de_mayo"], fire="auto"))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["25_de_mayo"]


# --------------------------------------------------------------------------------- 5-1 / 5-2 ---
@pytest.mark.parametrize("ar", [1, 2])
def test_fs_11_3_5_1_5_2_no_ar_attack_of_any_kind_in_the_next_ar_operations_phase(monkeypatch, ar):
    out, st = draw(empty(), 5, ar)
    st = phase(st, "AR Operations")
    place(st, "drummond", SEA)
    place(st, "glamorgan", SEA)
    place(st, "ri_12", FLAT)
    place(st, "ri_25", FLAT2)
    place(st, "2_para", FLAT)
    control(st, AR, FLAT, FLAT2)
    with_factor(monkeypatch, "drummond", surface=3)
    with_factor(monkeypatch, "ri_12", ground=3)
    attacks = (op(14, area=SEA, units=["drummond"], fire=fire(("drummond", "glamorgan"))),
               op(15, area=FLAT, units=["ri_12"], fire=fire(("ri_12", "2_para"))),
               op(20, support=["drummond"], destination=SEA, attack=True, fire=fire(("drummond", "glamorgan"))),
               op(24, units=["ri_12"], origin=FLAT, destination=FLAT, attack=True, fire=fire(("ri_12", "2_para"))),
               op(22, units=["ri_25"], origin=FLAT2, destination=FLAT, attack=True, fire=fire(("ri_25", "2_para"))))
    for order in attacks:
        assert refused(st, AR, order).rule == "FS 11.3 5-1"
    out, after = play(st, AR, op(20, units=["drummond"], destination="sa4"))  # moving is allowed
    assert S.where(after, "drummond") == "sa4"


# --------------------------------------------------------------------------------- 5-3 .. 5-5 ---
@pytest.mark.parametrize("ar", [3, 4, 5])
def test_fs_11_3_5_3_to_5_5_severe_weather_spends_a_uk_operation(ar):
    st = empty()
    left = st["uk_operations_left"]
    out, after = draw(st, 5, ar)
    (done,) = events_of(out, "OperationCompleted")
    assert done["side"] == UK and done["op"] == "weather" and done["uk_operations_left"] == left - 1
    assert after["uk_operations_left"] == left - 1
    # It does not cancel the next UK Operations Phase.
    assert after["phase"] == "UK Operations" and after["phase_ops"]["allowed"] == 1


def test_fs_11_3_5_3_weather_on_the_last_uk_operation_ends_the_game():
    st = empty()
    st["uk_operations_left"] = 1
    out, after = draw(st, 5, 3)
    assert after["uk_operations_left"] == 0
    assert events_of(out, "GameEnded")[0]["rule"] == "FS 4.2"  # AR holds Port Stanley


# ------------------------------------------------------------------------------ 5-6 6-1 6-2 ---
@pytest.mark.parametrize("uk, ar", [(5, 6), (6, 1), (6, 2)])
def test_fs_11_3_5_6_6_1_6_2_panache_two_ar_operations_of_aircraft_only(monkeypatch, uk, ar):
    st = empty()
    place(st, "a4_1", "port_stanley")
    place(st, "a4_2", "argentina")
    place(st, "ri_2", "argentina")
    place(st, "drummond", "sa4")
    control(st, AR, "port_stanley")
    out, st = draw(st, uk, ar)
    st = phase(st, "AR Operations")
    assert st["phase_ops"]["allowed"] == 2
    out, st = play(st, AR, op(3, aircraft=["a4_1"], origin="port_stanley", destination="argentina"))
    assert st["phase"] == "AR Operations"
    assert refused(st, AR, op(20, units=["drummond"], destination="sa5")).rule == "FS 11.3 5-6"
    out, st = play(st, AR, op(1, units=["ri_2"]))  # FS 11.3 5-6: "Op #1 is allowed"
    assert st["phase"] == "UK Submarine" and "ar_air_panache" not in st["effects"][AR]


def test_fs_11_3_5_6_panache_does_not_forbid_one_ordinary_operation():
    # FS 11.3 5-6 reads "may conduct two ops instead of one ..., provided they're both ops
    # involving only aircraft": a non-air op remains possible, as the phase's only one.
    st = empty()
    place(st, "drummond", "sa4")
    out, st = draw(st, 5, 6)
    st = phase(st, "AR Operations")
    out, after = play(st, AR, op(20, units=["drummond"], destination="sa5"))
    assert S.where(after, "drummond") == "sa5" and after["phase"] == "UK Submarine"


# ---------------------------------------------------------------------------------------- 6-3 ---
def test_fs_11_3_6_3_peru_replaces_one_eliminated_non_stealth_aircraft_in_argentina():
    st = empty()
    for u in ("a4_1", "dagger_1", "super_etendard"):
        st["units"][u].update(eliminated=True, in_play=True, steps=0)
    out, st = draw(st, 6, 3)
    d = pending(st)
    assert (d["kind"], d["seat"]) == ("peru_replacement", AR)
    assert sorted(d["options"]["unit"]) == ["a4_1", "dagger_1"]  # never the stealth aircraft
    assert "decline" not in d["options"]
    for choice in ({"unit": "super_etendard"}, {"unit": None}, {}):  # FS 11.2: not declined either
        with pytest.raises(RuleViolation) as e:
            answer(st, AR, choice)
        assert e.value.rule == "FS 11.3 6-3"
    out, after = answer(st, AR, {"unit": "dagger_1"})
    assert events_of(out, "UnitEntered") == [{"unit": "dagger_1", "area": "argentina", "aboard": None,
                                              "rule": "FS 11.3 6-3"}]
    assert S.alive(after, "dagger_1") and not S.alive(after, "a4_1")
    assert not events_of(out, "OperationBegun") and after["phase"] == "UK Operations"


def test_fs_11_3_6_3_nothing_to_replace_no_effect():
    out, after = draw(empty(), 6, 3)
    assert "DecisionPending" not in names(out) and not events_of(out, "UnitEntered")


# ---------------------------------------------------------------------------------------- 6-4 ---
def exocet_position():
    st = empty()
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    return st


@pytest.mark.parametrize("die, hit", [(3, True), (4, False)])
def test_fs_11_3_6_4_exocet_fired_at_once_is_free_and_hits_on_three(die, hit):
    out, st = draw(exocet_position(), 6, 4)
    d = pending(st)
    assert (d["kind"], d["seat"]) == ("exocet", AR)
    assert sorted(d["options"]["target"]) == ["glamorgan", "hermes"]  # any UK surface vessel there
    out, after = answer(st, AR, {"target": "hermes"}, FixedDice(die))
    (r,) = rolls_of(out)
    assert r.seat == AR and r.units == ["hermes"] and r.target["hit_number"] == 3 == DATA.exocet_hit_number
    assert [e["unit"] for e in events_of(out, "UnitHit")] == (["hermes"] if hit else [])
    assert after["exocet"] == "used" and not events_of(out, "OperationBegun")
    assert after["phase"] == "UK Operations"


def test_fs_11_2_the_exocet_may_not_be_held_while_a_target_is_there():
    out, st = draw(exocet_position(), 6, 4)
    assert "hold" not in pending(st)["options"]
    for choice in ({"hold": True}, {"target": None}, {"target": "sheffield"}):
        with pytest.raises(RuleViolation) as e:
            answer(st, AR, choice)
        assert e.value.rule == "FS 11.3 6-4"


def test_fs_11_3_6_4_exocet_held_then_used_later_as_an_ar_operation():
    # Held only because no target was there when it was rolled (FS 11.3 6-4, FS 11.2).
    out, st = draw(empty(), 6, 4)
    assert st["exocet"] == "held" and st["phase"] == "UK Operations"
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    st = phase(st, "AR Operations")
    place(st, "sheffield", "sa4")
    assert refused(st, AR, op("exocet", target="sheffield")).rule == "FS 11.3 6-4"  # not in the Falklands area
    out, after = play(st, AR, op("exocet", target="glamorgan"), FixedDice(1))
    assert events_of(out, "OperationBegun")[0]["op"] == "exocet"  # it costs the AR operation
    assert events_of(out, "UnitHit")[0]["unit"] == "glamorgan" and after["exocet"] == "used"
    assert after["phase"] == "UK Submarine"
    after = phase(after, "AR Operations")
    assert refused(after, AR, op("exocet", target="hermes")).rule == "FS 11.3 6-4"


def test_fs_11_3_6_4_no_target_now_the_exocet_is_held():
    st = empty()
    place(st, "glamorgan", SEA)
    out, after = draw(st, 6, 4)
    assert "DecisionPending" not in names(out)
    assert events_of(out, "EffectGained")[0]["detail"] == {"status": "held"} and after["exocet"] == "held"


@pytest.mark.parametrize("status", ["held", "used"])
def test_fs_11_3_6_4_once_per_game_no_event_if_rolled_again(status):
    st = exocet_position()
    st["exocet"] = status
    out, after = draw(st, 6, 4)
    assert not events_of(out, "EffectGained") and "DecisionPending" not in names(out)
    assert after["exocet"] == status


# ---------------------------------------------------------------------------------------- 6-5 ---
def test_fs_11_3_6_5_free_ar_attack_on_uk_submarines_25_de_mayo_only_in_the_same_area(monkeypatch):
    near = sorted(DATA.sea_adjacent(SEA))[0]
    st = empty()
    for u in ("spartan", "salta"):
        place(st, u, SEA)
    place(st, "25_de_mayo", near)
    place(st, "a4_1", "port_stanley")
    for u in ("spartan", "salta", "a4_1", "25_de_mayo"):
        with_factor(monkeypatch, u, sub=3)
    out, st2 = draw(st, 6, 5)
    d = pending(st2)
    assert (d["seat"], d["rule"]) == (AR, "FS 11.3 6-5")
    assert d["options"]["areas"][SEA] == {"units": ["salta"], "carriers": [], "aircraft": ["a4_1"],
                                          "targets": ["spartan"]}
    place(st, "25_de_mayo", SEA)
    out, st = draw(st, 6, 5)
    assert pending(st)["options"]["areas"][SEA]["carriers"] == ["25_de_mayo"]
    assert pending(st)["options"]["areas"][SEA]["units"] == ["salta"]
    with pytest.raises(RuleViolation) as e:  # Salta is in the area: it may not be withheld (FS 10.2)
        answer(st, AR, {"area": SEA, "aircraft": ["a4_1"], "carriers": ["25_de_mayo"],
                        "fire": fire(("a4_1", "spartan"), ("25_de_mayo", "spartan"))})
    assert e.value.rule == "FS 10.2"
    out, st = answer(st, AR, {"area": SEA, "aircraft": ["a4_1"], "carriers": ["25_de_mayo"],
                              "fire": fire(("a4_1", "spartan"), ("25_de_mayo", "spartan"), ("salta", "spartan"))})
    assert pending(st)["kind"] == "defensive_fire" and pending(st)["seat"] == UK
    out, after = answer(st, UK, {"fire": "auto"}, FixedDice(1, 1, 6, default=6))
    assert events_of(out, "UnitEliminated")[0]["unit"] == "spartan"
    assert [e["delta"] for e in events_of(out, "VPScored")] == [1]  # FS 4.4(4)


@pytest.mark.parametrize("uk, ar, units", [
    (2, 5, ("spartan", "salta")),     # UK Submarine Detection Advantage: "in any one presently contested sea area"
    (6, 5, ("salta", "spartan")),     # AR Submarine Detection Advantage: the same
    (6, 6, ("salta", "glamorgan")),   # AR Surprise Submarine Attack: "co-located in any sea zone"
])
def test_fs_11_3_and_3_7_no_free_attack_in_the_south_georgia_box(monkeypatch, uk, ar, units):
    """FS 3.7: "the box is neither a sea nor a land area", and these events attack in a sea area or
    zone; the same units in a sea area are attacked there."""
    for where, attacked in ((S.SOUTH_GEORGIA, False), (SEA, True)):
        st = empty()
        for u in units:
            place(st, u, where)
            with_factor(monkeypatch, u, surface=3, sub=3)
        out, st = draw(st, uk, ar)
        assert drawn(out) == f"{uk}-{ar}"
        d = pending(st)
        assert (d is not None and d["rule"] == f"FS 11.3 {uk}-{ar}") is attacked, (where, d)
        if attacked:
            assert list(d["options"]["areas"]) == [SEA]
