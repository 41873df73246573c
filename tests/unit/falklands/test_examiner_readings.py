"""Falklands Showdown: the readings earlier examiners left open, each settled from the text read in
context (its wording elsewhere, the designer's notes, the examples, the sequence of play). Each
docstring quotes the sentences that decide the case and says why the reading taken is the better
one; docs/rulesets.md ("Interpretations where the text is open") states each in a line.
Positions are small and synthetic (helpers.py), dice fixed."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, R, UK, FixedDice, answer, broken, control, empty, events_of, fire, op, pending, place, play, refused,
    set_phase, uk, with_factor,
)
from .test_examiner_timing import end_turn, through, to_ar_ops, whole_turn

SEA = "sa7"               # a TEZ sea area (FS 2.2)
SHIP_IN_TEZ = "broadsword"  # keeps FS 4.4(1) quiet at the end of a UK operation
PASS = {"kind": "pass"}


def draw(st: dict, uk_die: int, ar_die: int, *more: int) -> tuple[list, dict]:
    """End the AR Submarine Phase so the Random Event Phase rolls ``uk_die`` then ``ar_die`` (FS 11.2)."""
    set_phase(st, "AR Submarine")
    return play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(uk_die, ar_die, *more))


def vp_of(out, rule: str) -> list[int]:
    return [e["delta"] for e in events_of(out, "VPScored") if e["rule"] == rule]


# ================================================================ FS 6.2(1) with 6.2(2), 6.5 ===
def test_fs_6_2_2_an_sf_team_aboard_a_full_uk_transport_is_over_its_five_steps():
    """FS 6.2(1) "Every surface ship has the ability to transport one friendly SF unit" gives the
    SF team a ride on ships that carry nothing else; on an A or T ship it is one of the units the
    ship transports: 6.2(2) "The maximums those vessels may transport are shown on their counters
    in terms of steps for the UK ... Fearless and Intrepid can each carry up to five steps", and 6.5
    "Ground units may generally only go to sea in 'A' or 'T' transport ships ... For the exception,
    see 6.2(1)" - the exception is for the other ships. Fearless with five steps aboard takes no SF
    team; with four it takes one, and a destroyer still carries one."""
    st = uk()
    for ship in ("fearless", "canberra", "glamorgan"):
        place(st, ship, "sa4")
    place(st, "2_para", aboard="fearless")
    place(st, "40_cdo", aboard="fearless")
    place(st, "3_para", aboard="fearless", steps=1)  # a Hit unit: one step (2.8) - five in all
    place(st, "sas_g", aboard="canberra")
    place(st, "sbs", aboard="canberra")
    err = broken(st, UK, op(12, moves={"sas_g": "fearless"}), "FS 6.2(2)")
    assert "at most 5 steps" in err.detail
    place(st, "3_para", aboard="canberra", steps=1)  # four steps left aboard Fearless
    out, after = play(st, UK, op(12, moves={"sas_g": "fearless"}))
    assert after["units"]["sas_g"]["aboard"] == "fearless"
    broken(st, UK, op(12, moves={"sas_g": "fearless", "sbs": "fearless"}), "FS 6.2(2)")  # six steps
    out, after = play(st, UK, op(12, moves={"sbs": "glamorgan"}))  # 6.2(1): a destroyer, one SF
    assert after["units"]["sbs"]["aboard"] == "glamorgan"


def test_fs_6_2_2_cabo_san_antonio_carries_two_units_sf_included():
    """FS 6.2(2): "The AR amphibious assault ship Cabo San Antonio can carry up to two units (only
    infantry, heavy machinegun and SF)" - the SF unit is one of the two, not a third riding free
    (6.2(1)). With two infantry aboard, an SF unit is refused there, and not offered; a destroyer
    in port takes it."""
    st = empty("AR Operations")
    place(st, "cabo_san_antonio", S.ARGENTINA)
    place(st, "ri_3", aboard="cabo_san_antonio")
    place(st, "ri_4", aboard="cabo_san_antonio")
    place(st, "cdo_601", S.ARGENTINA)
    err = broken(st, AR, op(23, loads={"cdo_601": "cabo_san_antonio"}), "FS 6.2(2)")
    assert "at most 2 units" in err.detail
    assert R.operation_template(st, AR, 23) is None  # no ship in port has room for it
    place(st, "drummond", S.ARGENTINA)
    out, after = play(st, AR, op(23, loads={"cdo_601": "drummond"}))
    assert after["units"]["cdo_601"]["aboard"] == "drummond"
    place(st, "ri_4", S.ARGENTINA)  # one infantry aboard: the SF unit is the second
    out, after = play(st, AR, op(23, loads={"cdo_601": "cabo_san_antonio"}))
    assert after["units"]["cdo_601"]["aboard"] == "cabo_san_antonio"


# =========================================================== FS 11.3 5-3 .. 5-5 severe weather ===
def test_fs_11_3_5_3_the_weathers_operation_scores_no_tez_vp():
    """FS 11.3 5-3: "Mark one UK operation as having been expended with no effect ... the bad weather
    has worked to double its cost in time" - the next operation costs two; the weather's one is no
    operation the UK completes (FS 4.4(1) "every time a UK operation is completed"), and "with no
    effect" scores nothing. With no UK ship in the TEZ, a UK pass scores the AR point; the weather
    spends an operation and scores none."""
    st = empty()
    out, after = play(st, UK, PASS)
    assert vp_of(out, "FS 4.4(1)") == [1]  # the same position scores when an operation is completed
    left = st["uk_operations_left"]
    out, after = draw(st, 5, 3)
    assert after["uk_operations_left"] == left - 1
    assert not events_of(out, "VPScored") and after["vp"] == st["vp"]


def test_fs_11_3_5_3_the_weathers_operation_is_not_one_of_4_5s_next_three():
    """FS 11.3 4-5: "The UK player must conduct an amphibious landing and/or ground attack sometime
    within his next three operations" - operations he conducts; 5-3's is "expended with no effect",
    doubling the cost of his next one (as 1-1's two operations "for the price of one" are two of
    the three). Rolled after one UK operation, the weather leaves two to go: the two VP come at the
    end of the UK's third conducted operation, not the second."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    out, st = draw(st, 4, 5)
    out, st = play(st, UK, PASS)  # the first of the three
    out, st = draw(st, 5, 4)  # severe weather
    assert events_of(out, "OperationCompleted")[0]["op"] == "weather"
    assert st["political_pressure"]["ops_left"] == 2 and not vp_of(out, "FS 11.3 4-5")
    out, st = play(st, UK, PASS)  # the second
    assert not vp_of(out, "FS 11.3 4-5") and st["political_pressure"]["ops_left"] == 1
    set_phase(st, "UK Operations", turn=st["turn"] + 1)
    out, st = play(st, UK, PASS)  # the third
    assert vp_of(out, "FS 11.3 4-5") == [2] and st["political_pressure"] is None


def test_fs_11_3_5_3_op_6_weather_op_6_is_still_chosen_twice_in_a_row():
    """FS 7.1 Op #6: "nor may it ever be chosen twice in a row" - the UK's choices; the weather's
    operation is none ("Mark one UK operation as having been expended", 5-3), so the UK's next
    choice after an Op #6 and the weather is still the one after Op #6. A UK pass, which the UK
    chooses in its Operations Phase and which spends an operation (FS 5.3), does break the row
    (test_rules_ops_1_13: never twice in a row)."""
    st = uk()
    st["ops_log"][UK] = [20, 20]
    out, st = play(st, UK, op(6))
    assert st["groups_entered"] == ["R1"]
    out, st = draw(st, 5, 5)
    assert st["phase"] == "UK Operations" and events_of(out, "OperationCompleted")[0]["op"] == "weather"
    err = refused(st, UK, op(6))
    assert err.rule == "FS 7.1 Op #6" and "twice in a row" in err.detail
    assert all(o.get("op") != 6 for o in R.legal_orders(st, UK))


# ===================================================================== FS 11.3 3-2 and a pass ===
def test_fs_11_3_3_2_an_ar_pass_is_his_next_operation_the_target_is_gone(monkeypatch):
    """FS 11.3 3-2: "As his next operation, the AR player may choose to attack any one protected UK
    surface vessel" - a chance for the AR's next operation, like 4-6/5-1's "during his next
    Operations Phase"; an AR who passes in that phase has let it go: a turn later Hermes is a
    protected target again (FS 10.4)."""
    with_factor(monkeypatch, "drummond", surface=1)
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    for u in ("drummond", "hermes", "glamorgan"):
        place(st, u, "sa4")
    attack = op(14, area="sa4", units=["drummond"], fire=fire(("drummond", "hermes")), target_of_opportunity="hermes")
    out, st = whole_turn(st, event=(3, 2))
    out, st = to_ar_ops(st)
    assert "ar_target_of_opportunity" in st["effects"][AR]
    out, st = end_turn(st)  # the AR passes
    assert "ar_target_of_opportunity" not in st["effects"][AR]
    out, st = to_ar_ops(st)
    assert refused(st, AR, attack).rule == "FS 11.3 3-2"
    assert refused(st, AR, {**attack, "target_of_opportunity": None}).rule == "FS 10.4"


# =========================================================== FS 11.3 4-6 with 9.6 ===
def test_fs_11_3_4_6_aircraft_stranded_in_the_ar_phase_still_rebase_at_once():
    """FS 9.6: "emergency rebasing must take place immediately ... Emergency rebasing doesn't count
    as an operation" against 4-6 "The AR player may not move or fight any aircraft units during his
    next Operations Phase": 4-6 forbids what the AR chooses to do with his aircraft; 9.6 is not
    his choice but what "must" happen when the UK alone holds their base (6.3: "At that time the AR
    player must perform emergency rebasing"), and the text gives no third way (no aircraft may
    stay at a UK-held base, none is lost for it). Under 4-6 the AR marches his last infantry out of
    a contested Goose Green: the UK takes it and the Pucara there rebases."""
    out, st = draw(empty(), 4, 6)
    st = {**st, "pending": []}
    set_phase(st, "AR Operations")
    assert "ar_air_mechanical" in st["effects"][AR]
    place(st, "ri_12", "goose_green")
    place(st, "2_para", "goose_green")
    place(st, "pucara_1", "goose_green")
    control(st, AR, "goose_green", "lafonia", "port_stanley")
    out, st = play(st, AR, op(24, units=["ri_12"], origin="goose_green", destination="lafonia"))
    assert st["control"]["goose_green"] == UK
    assert pending(st)["kind"] == "emergency_rebase" and pending(st)["seat"] == AR
    out, st = answer(st, AR, {"destinations": {"pucara_1": "port_stanley"}})
    assert S.where(st, "pucara_1") == "port_stanley" and events_of(out, "UnitMoved")[0]["rule"] == "FS 9.6"


# ========================================================================= FS 9.3 from port ===
def test_fs_9_3_the_25_de_mayo_in_port_strikes_nothing():
    """FS 9.3: "All aircraft carriers have a strike range of one sea area. That is, attacking into a
    sea area adjacent to the one from which it's located is considered a range of one" - the range
    is counted from the sea area the carrier is in (Op #20: "carriers in adjacent sea areas"), and
    a ship in Argentina is "in port" (9.7), in no sea area. Open: 10.1 says carriers "project their
    combat factors into a land or sea area adjacent to their location". Kept: in port, no strike;
    at sea next door, it strikes."""
    st = empty("AR Operations")
    place(st, "25_de_mayo", S.ARGENTINA)
    place(st, "glamorgan", "sa1")
    assert "sa1" in DATA.sea_adjacent(S.ARGENTINA)
    strike = op(18, area="sa1", carriers=["25_de_mayo"], fire=fire(("25_de_mayo", "glamorgan")))
    assert refused(st, AR, strike).rule == "FS 9.3"
    assert R.operation_template(st, AR, 18) is None
    place(st, "25_de_mayo", "sa2")
    assert "sa1" in DATA.sea_adjacent("sa2")
    out, _ = play(st, AR, strike, FixedDice(6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["25_de_mayo"]


# ================================================================ FS 11.3 4-5 "ground attack" ===
def test_fs_11_3_4_5_air_to_ground_bombardment_and_sf_combat_are_no_ground_attack(monkeypatch):
    """FS 11.3 4-5: "an amphibious landing and/or ground attack". The text names its attacks by who
    attacks: Op #15 "Conduct Ground Attack" ("Use a friendly ground force"), Op #19 "Air-to-Ground
    Attack", Op #21 "Naval Shore Bombardment", and keeps SF combat apart: 10.8 "SF units may move
    as part of a force involved in a conventional ground op ... or via SF vs. SF combat in Op #25".
    So an Op #19, #21 or #25 is one of the three operations but does not meet 4-5."""
    for u in ("hermes", "glamorgan"):
        with_factor(monkeypatch, u, ground=3)
    st = empty()
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    place(st, "ri_12", "goose_green")
    place(st, "sas_d", "san_carlos")
    place(st, "cdo_601", "san_carlos")
    control(st, AR, "goose_green", "san_carlos")
    out, st = draw(st, 4, 5)
    orders = [op(19, area="goose_green", carriers=["hermes"], fire=fire(("hermes", "ri_12"))),
              op(21, area="goose_green", units=["glamorgan"], fire=fire(("glamorgan", "ri_12"))),
              op(25, area="san_carlos", fire=fire(("sas_d", "cdo_601")))]
    for n, order in enumerate(orders):
        set_phase(st, "UK Operations")
        out, st = through(st, UK, order, FixedDice(default=6))  # every shot misses
        assert events_of(out, "BattleBegun")
        if n < 2:
            assert st["political_pressure"]["ops_left"] == 2 - n
    assert vp_of(out, "FS 11.3 4-5") == [2] and st["political_pressure"] is None


# ============================================================ free attacks and FS 9.4 refuelling ===
def test_fs_11_3_4_4_no_aerial_refuelling_in_a_free_attack(monkeypatch):
    """FS 9.4: "in any one operation in which they're involved, up to four Argentina-based A-4 units
    may be designated as using aerial refueling"; 4-4's attack "doesn't count as using up an AR
    Operations Phase" (6-5: "doesn't count as an AR operation"). Open (the "in-range aircraft" of
    4-4 could be read with 9.4's refuelled range); kept: refuelling is designated in an operation,
    so an A-4 in Argentina does not reach the Falkland Islands Sea Area in a free attack; a
    Dagger (range line) does."""
    with_factor(monkeypatch, "drummond", surface=2)
    st = empty()
    place(st, "drummond", "falklands")
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", S.ARGENTINA)
    place(st, "dagger_1", S.ARGENTINA)
    out, st = draw(st, 4, 4)
    d = pending(st)
    assert d["kind"] == "free_attack" and d["options"]["areas"]["falklands"]["aircraft"] == ["dagger_1"]
    err = refused(st, AR, {"kind": "decide", "decision": d["id"],
                           "choice": {"area": "falklands", "aircraft": ["a4_1"], "fire": fire(("a4_1", "glamorgan"))}})
    assert err.rule == "FS 11.3 4-4"


# ============================================================== FS 11.3 1-6 and cross-decking ===
def test_fs_11_3_1_6_cross_decking_is_movement():
    """FS 11.3 1-6: "The UK player may not conduct any air, sea or land movement during his next
    Operations Phase. Battles may be fought in areas already contested" - and Op #12 is a movement
    of ground units by sea, in its own words: "You may switch around ground units from naval
    vessels to other naval vessels ... Forces may be moved about and stored as desired". Refused
    in that phase and not offered; allowed in the next."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "hermes", SEA)
    place(st, "sas_d", aboard="hermes")
    out, st = draw(st, 1, 6)
    assert "poor_uk_staff_work" in st["effects"][UK]
    cross = op(12, moves={"sas_d": SHIP_IN_TEZ})
    assert refused(st, UK, cross).rule == "FS 11.3 1-6"
    assert R.operation_template(st, UK, 12) is None
    out, st = to_ar_ops(st)
    out, st = end_turn(st)
    out, st = play(st, UK, cross)
    assert st["units"]["sas_d"]["aboard"] == SHIP_IN_TEZ
