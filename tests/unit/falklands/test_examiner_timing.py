"""Falklands Showdown read for TIME, as an examiner would: every effect of the text that lasts or
ends ("next Operations Phase", "next operation", "within his next three operations", "thereafter",
"for the rest of the game", "until", "once per game", "after which it's simply removed", the last
operation). Each test plays through the real turn sequence (FS 5.2: UK Operations, AR Operations,
UK Submarine, AR Submarine, Random Event) with real orders, across the phase or turn boundary where
the effect should start and where it should end, and checks the state on both sides of it.
Each docstring quotes the text; positions are small and synthetic (helpers.py), dice fixed."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T

from .helpers import (
    AR, R, UK, FixedDice, answer, control, empty, events_of, fire, keep_dice, names, op, pending, place, play,
    refused,
    with_factor,
)

TEZ_SHIP = "broadsword"  # a UK surface ship in the TEZ: FS 4.4(1) stays quiet at the end of UK operations
SEA = "sa7"              # a TEZ sea area
OUTSIDE = "sa4"          # a sea area outside the TEZ
QUIET = (3, 4)           # event 3-4 with no UK submarine beside an AR ship: no effect (FS 11.2 "circumstances permitting")


def board(phase: str = "UK Operations", **kw) -> dict:
    st = empty(phase, **kw)
    place(st, TEZ_SHIP, SEA)
    return st


def through(st: dict, seat: str, order: dict, dice=None) -> tuple[list, dict]:
    """Play an order, answering every defensive-fire decision with automatic fire (misses unless the
    dice say otherwise)."""
    out, st = play(st, seat, order, dice)
    while pending(st) and pending(st)["kind"] == "defensive_fire":
        more, st = answer(st, pending(st)["seat"], {"fire": "auto"}, dice or FixedDice(default=6))
        out = [*out, *more]
    return out, st


def to_ar_ops(st: dict, uk_order: dict | None = None, dice=None) -> tuple[list, dict]:
    assert st["phase"] == "UK Operations"
    out, st = through(st, UK, uk_order or {"kind": "pass"}, dice)
    assert st["phase"] == "AR Operations", st["phase"]
    return out, st


def end_turn(st: dict, ar_order: dict | None = None, event: tuple = QUIET, uk_subs: dict | None = None,
             dice=None) -> tuple[list, dict]:
    """From the AR Operations Phase: the AR order (a pass unless given), both Submarine Phases, and
    the Random Event Phase rolling ``event`` (FS 11.2: UK die, then AR die)."""
    assert st["phase"] == "AR Operations"
    out, st = through(st, AR, ar_order or {"kind": "pass"}, dice)
    more, st = finish(st, event, uk_subs)
    return out + more, st


def finish(st: dict, event: tuple = QUIET, uk_subs: dict | None = None) -> tuple[list, dict]:
    """From the UK Submarine Phase to the end of the turn's Random Event Phase."""
    assert st["phase"] == "UK Submarine", st["phase"]
    out, st = play(st, UK, {"kind": "submarines", "moves": uk_subs or {}})
    assert st["phase"] == "AR Submarine"
    more, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(*event))
    return out + more, st


def whole_turn(st: dict, uk_order=None, ar_order=None, event=QUIET) -> tuple[list, dict]:
    turn = st["turn"]
    out, st = to_ar_ops(st, uk_order)
    more, st = end_turn(st, ar_order, event)
    if not pending(st):
        assert st["turn"] == turn + 1 and st["phase"] == "UK Operations"
    return out + more, st


def vp(st: dict) -> int:
    return st["vp"][S.TRACK]


def vp_by(out, rule: str) -> list[int]:
    return [e["delta"] for e in events_of(out, "VPScored") if e["rule"] == rule]


# ============================================================ 11.3 "next Operations Phase" ===
def test_fs_11_3_1_6_lasts_the_next_uk_operations_phase_not_the_uk_submarine_phase_nor_the_next_turn():
    """FS 11.3 1-6: "The UK player may not conduct any air, sea or land movement during his next
    Operations Phase ... the UK Submarine Movement Phase isn't affected." Rolled at the end of
    turn 1: turn 2's UK Operations Phase may not move; its UK Submarine Phase may; turn 3 may."""
    st = board()
    place(st, "glamorgan", OUTSIDE)
    place(st, "spartan", SEA)
    out, st = whole_turn(st, event=(1, 6))
    assert st["turn"] == 2 and "poor_uk_staff_work" in st["effects"][UK]
    assert refused(st, UK, op(20, units=["glamorgan"], destination="sa5")).rule == "FS 11.3 1-6"
    out, st = to_ar_ops(st)
    assert "poor_uk_staff_work" not in st["effects"][UK]
    out, st = end_turn(st, uk_subs={"spartan": "sa6"})
    assert S.where(st, "spartan") == "sa6"
    assert st["turn"] == 3
    out, st = play(st, UK, op(20, units=["glamorgan"], destination="sa5"))
    assert S.where(st, "glamorgan") == "sa5"


def test_fs_11_3_4_6_grounds_the_aircraft_in_the_next_ar_operations_phase_only():
    """FS 11.3 4-6: "The AR player may not move or fight any aircraft units during his next
    Operations Phase." Rolled at the end of turn 1: Op #3 is refused in turn 2's AR Operations
    Phase and allowed again in turn 3's."""
    st = board()
    place(st, "a4_1", "argentina")
    rebase = op(3, aircraft=["a4_1"], origin="argentina", destination="port_stanley", refuel=["a4_1"])
    out, st = whole_turn(st, event=(4, 6))
    out, st = to_ar_ops(st)
    assert "ar_air_mechanical" in st["effects"][AR]
    assert refused(st, AR, rebase).rule == "FS 11.3 4-6"
    assert 3 not in [o.get("op") for o in R.legal_orders(st, AR)]
    out, st = end_turn(st)
    assert "ar_air_mechanical" not in st["effects"][AR]
    out, st = to_ar_ops(st)
    out, st = play(st, AR, rebase)
    assert S.where(st, "a4_1") == "port_stanley"


def test_fs_11_3_5_1_forbids_attacks_in_the_next_ar_operations_phase_only(monkeypatch):
    """FS 11.3 5-1: "The AR player may not conduct any kind of attack during his next Operations
    Phase." Rolled at the end of turn 1: an Op #14 is refused in turn 2's AR phase, allowed in
    turn 3's."""
    with_factor(monkeypatch, "drummond", surface=1)
    st = board()
    place(st, "drummond", OUTSIDE)
    place(st, "glamorgan", OUTSIDE)
    attack = op(14, area=OUTSIDE, units=["drummond"], fire=fire(("drummond", "glamorgan")))
    out, st = whole_turn(st, event=(5, 1))
    out, st = to_ar_ops(st)
    assert refused(st, AR, attack).rule == "FS 11.3 5-1"
    out, st = end_turn(st)
    out, st = to_ar_ops(st)
    out, st = through(st, AR, attack, FixedDice(6, default=6))
    assert events_of(out, "BattleBegun") and st["phase"] == "UK Submarine"


def test_fs_11_3_5_6_two_air_operations_in_the_next_ar_phase_then_one_again():
    """FS 11.3 5-6: "The AR player may conduct two ops instead of one during his next Operations
    Phase, provided they're both ops involving only ... aircraft." Turn 2's AR phase takes two
    Op #3s; turn 3's ends after one."""
    st = board()
    for u in ("a4_1", "a4_2"):
        place(st, u, "argentina")
    out, st = whole_turn(st, event=(5, 6))
    out, st = to_ar_ops(st)
    assert st["phase_ops"]["allowed"] == 2
    out, st = play(st, AR, op(3, aircraft=["a4_1"], origin="argentina", destination="port_stanley", refuel=["a4_1"]))
    assert st["phase"] == "AR Operations"
    out, st = play(st, AR, op(3, aircraft=["a4_2"], origin="argentina", destination="port_stanley", refuel=["a4_2"]))
    assert st["phase"] == "UK Submarine" and "ar_air_panache" not in st["effects"][AR]
    out, st = finish(st)
    out, st = to_ar_ops(st)
    assert st["phase_ops"]["allowed"] == 1
    out, st = play(st, AR, op(3, aircraft=["a4_1"], origin="port_stanley", destination="argentina"))
    assert st["phase"] == "UK Submarine"


def test_fs_11_3_3_2_the_target_of_opportunity_is_for_the_next_ar_operation_only(monkeypatch):
    """FS 11.3 3-2: "As his next operation, the AR player may choose to attack any one protected
    UK surface vessel without having to also engage unprotected targets." Rolled at the end of
    turn 1: turn 2's AR Op #14 may fire at Hermes alone; turn 3's may not."""
    with_factor(monkeypatch, "drummond", surface=1)
    st = board()
    place(st, "drummond", OUTSIDE)
    place(st, "hermes", OUTSIDE)
    place(st, "glamorgan", OUTSIDE)
    attack = op(14, area=OUTSIDE, units=["drummond"], fire=fire(("drummond", "hermes")), target_of_opportunity="hermes")
    out, st = whole_turn(st, event=(3, 2))
    out, st = to_ar_ops(st)
    assert "ar_target_of_opportunity" in st["effects"][AR]
    out, st = through(st, AR, attack, FixedDice(6, default=6))
    assert events_of(out, "BattleBegun") and "ar_target_of_opportunity" not in st["effects"][AR]
    out, st = finish(st)
    out, st = to_ar_ops(st)
    assert refused(st, AR, attack).rule == "FS 11.3 3-2"
    no_waiver = op(14, area=OUTSIDE, units=["drummond"], fire=fire(("drummond", "hermes")))
    assert refused(st, AR, no_waiver).rule == "FS 10.4"


def test_fs_11_3_1_1_rolled_again_two_operations_next_phase_for_one_then_one_again():
    """FS 11.3 1-1: "When next up, the UK player may conduct any two operations for the price of
    one." Rolled at the end of turn 1: turn 2's UK phase takes two operations and the track moves
    down one; turn 3's phase ends after one."""
    st = board()
    place(st, "glamorgan", OUTSIDE)
    out, st = whole_turn(st, event=(1, 3))
    left = st["uk_operations_left"]
    assert st["phase_ops"]["allowed"] == 2
    out, st = play(st, UK, op(20, units=["glamorgan"], destination="sa5"))
    assert st["phase"] == "UK Operations" and st["uk_operations_left"] == left
    out, st = play(st, UK, op(20, units=["glamorgan"], destination="sa4"))
    assert st["phase"] == "AR Operations" and st["uk_operations_left"] == left - 1
    assert "uk_operational_superiority" not in st["effects"][UK]
    out, st = end_turn(st)
    assert st["phase_ops"]["allowed"] == 1
    out, st = play(st, UK, op(20, units=["glamorgan"], destination="sa5"))
    assert st["phase"] == "AR Operations" and st["uk_operations_left"] == left - 2


# ====================================================== 11.3 4-5 "within his next three" ===
def test_fs_11_3_4_5_two_vp_at_the_end_of_the_third_uk_operation_three_turns_later_then_over():
    """FS 11.3 4-5: "The UK player must conduct an amphibious landing and/or ground attack
    sometime within his next three operations or the AR player is awarded two VP at the end of
    that third UK operation." Rolled at the end of turn 1: nothing after turns 2 and 3's UK
    operations, two VP at the end of turn 4's, and nothing after turn 5's."""
    st = board()
    out, st = whole_turn(st, event=(4, 5))
    start = vp(st)
    for turn in (2, 3):
        out, st = whole_turn(st)
        assert not vp_by(out, "FS 11.3 4-5") and st["political_pressure"] is not None
    out, st = to_ar_ops(st)
    assert vp_by(out, "FS 11.3 4-5") == [2] and vp(st) == start + 2
    assert st["political_pressure"] is None and "political_pressure" not in st["effects"][UK]
    more, st = end_turn(st)
    out, st = to_ar_ops(st)
    assert not vp_by(out, "FS 11.3 4-5") and vp(st) == start + 2


def test_fs_11_3_4_5_a_landing_in_the_third_operation_meets_it():
    """FS 11.3 4-5 "sometime within his next three operations": a landing (Op #16) as the third
    operation, in turn 4, meets it: no VP, and the pressure is over."""
    st = board()
    place(st, "hermes", "falklands")
    place(st, "sas_d", aboard="hermes")
    out, st = whole_turn(st, event=(4, 5))
    start = vp(st)
    for turn in (2, 3):
        out, st = whole_turn(st)
    out, st = to_ar_ops(st, op(16, units=["sas_d"], area="lafonia"))
    assert not vp_by(out, "FS 11.3 4-5") and vp(st) == start - 0
    assert st["political_pressure"] is None


# ====================================================== Op #10 "during the attack operation" ===
def test_fs_7_1_op_10_ends_with_its_operation_the_second_of_1_1_scores_4_4_2_again(monkeypatch):
    """FS 7.1 Op #10: "during the attack operation when this TEZ expansion is in effect, all AR
    sinkings, no matter in which sea area they occur, generate the negative VP described in 4.4/3."
    With 1-1, Op #14 with Op #10 sinks Drummond in Sea Area 4 (-1); the second operation sinks
    Granville there: the expansion is over, FS 4.4(2) gives the AR +1."""
    with_factor(monkeypatch, "glamorgan", surface=5)
    st = board(superiority=True)
    place(st, "glamorgan", OUTSIDE)
    place(st, "drummond", OUTSIDE)
    place(st, "granville", OUTSIDE)
    out, st = through(st, UK, op(14, area=OUTSIDE, units=["glamorgan"], fire=fire(("glamorgan", "drummond")),
                                 with_op_10=True), FixedDice(1, default=6))
    assert vp_by(out, "FS 7.1 Op #10") == [-1] and "tez_expanded" not in st["effects"][UK]
    assert st["phase"] == "UK Operations"
    out, st = through(st, UK, op(14, area=OUTSIDE, units=["glamorgan"], fire=fire(("glamorgan", "granville"))),
                      FixedDice(1, default=6))
    assert vp_by(out, "FS 4.4(2)") == [1]
    # "This TEZ expansion may be chosen only once per game": a turn later it is refused.
    out, st = to_ar_ops(st) if st["phase"] == "UK Operations" else (out, st)
    out, st = end_turn(st)
    place(st, "drummond", OUTSIDE)
    e = refused(st, UK, op(14, area=OUTSIDE, units=["glamorgan"], fire=fire(("glamorgan", "drummond")),
                           with_op_10=True))
    assert e.rule == "FS 7.1 Op #10"


# ======================================== 4.4(2) "during the operation when 4-1 is in effect" ===
def to_the_event_dice(monkeypatch, dice) -> tuple[list, dict]:
    """Glamorgan (surface 3) and Drummond in Sea Area OUTSIDE, the UK holding its Decisive Leader
    marker: play on to the next turn's Random Event Phase and roll its dice with ``dice``."""
    with_factor(monkeypatch, "glamorgan", surface=3)
    st = board()
    st["markers"][UK] = ["uk_decisive_leader"]
    place(st, "glamorgan", OUTSIDE)
    place(st, "drummond", OUTSIDE)
    out, st = to_ar_ops(st)
    out, st = through(st, AR, {"kind": "pass"})
    out, st = play(st, UK, {"kind": "submarines", "moves": {}})
    return play(st, AR, {"kind": "submarines", "moves": {}}, dice)


def test_fs_4_4_2_a_marker_played_on_the_event_dice_does_not_last_into_the_free_attack(monkeypatch):
    """FS 4.4(2): AR ships sunk outside the TEZ score for the AR, "though, these VP aren't scored
    during the operation when random event 4-1/4-2/4-3 is in effect"; FS 11.3 2-1: "This attack
    doesn't count as using up a UK operation." The UK plays its Decisive Leader marker on the
    Random Event Phase's AR die (2-6 becomes 2-1) and so holds none; the free attack that follows
    is no operation and no marker is in effect: Drummond sunk in Sea Area 4 scores +1."""
    out, st = to_the_event_dice(monkeypatch, FixedDice(2))
    assert pending(st)["kind"] == "leadership"
    out, st = keep_dice(st, UK, 6)  # the UK die kept, the AR die a 6...
    out, st = answer(st, UK, {"reroll": 1}, FixedDice(1))  # ... rolled again at once
    assert "MarkerPlayed" in names(out) and st["markers"][UK] == []
    assert pending(st)["kind"] == "free_attack"
    start = vp(st)
    out, st = answer(st, UK, {"area": OUTSIDE, "units": ["glamorgan"], "fire": fire(("glamorgan", "drummond"))})
    out, st = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6))
    assert not S.alive(st, "drummond")
    assert vp_by(out, "FS 4.4(2)") == [1] and vp(st) == start + 1
    assert st["turn"] == 2 and st["phase"] == "UK Operations"


# ================================================ 10.9 "at the end of any UK operation" ===
def test_fs_10_9_rendezvous_at_the_end_of_the_first_of_two_operations_four_shots_in_the_second():
    """FS 10.9: "Once they've rendezvoused with the Conveyor - which is defined as all three ships
    being in the same sea area at the end of any UK operation - that number of shots is increased
    from three to four and the Conveyor is removed from play (without yielding any VP)." Under
    1-1 the Conveyor joins the carriers in the first operation: it is gone at once, and the
    carriers' Op #13 in the second operation fires four shots each."""
    st = board(superiority=True)
    for u in ("hermes", "invincible"):
        place(st, u, "falklands")
    place(st, T.CONVEYOR, OUTSIDE)
    for u in ("a4_1", "a4_2"):
        place(st, u, "port_stanley")
    start = vp(st)
    out, st = play(st, UK, op(20, units=[T.CONVEYOR], destination="falklands"))
    assert [e["unit"] for e in events_of(out, "UnitWithdrawn")] == [T.CONVEYOR]
    assert st["rendezvous"] and not S.alive(st, T.CONVEYOR) and vp(st) == start
    assert st["phase"] == "UK Operations"
    shots = fire(*[(c, t) for c in ("hermes", "invincible") for t in ("a4_1", "a4_2", "a4_1", "a4_2")])
    out, st = play(st, UK, op(13, carriers=["hermes", "invincible"], airbase="port_stanley", fire=shots),
                   FixedDice(default=6))
    assert len([r for r in out if type(r).__name__ == "Roll"]) == 8
    assert st["phase"] == "AR Operations"


# ====================================================== 4.5 and 5.3: the last operation ===
def test_fs_4_5_the_point_of_the_last_operation_reaching_plus_20_is_sudden_death_not_the_reckoning():
    """FS 4.5: "If the VP tally ever reaches +20, play stops immediately and the AR player is
    declared the winner ... this rule supercedes the Port Stanley capture precondition"; FS 4.4(1)
    scores at the end of each UK operation. The UK's last operation (he holds Port Stanley) ends
    with no UK surface ship in the TEZ at +19: +20, the AR wins by sudden death, once."""
    st = control(empty(uk_operations=1), UK, T.PORT_STANLEY)
    st["vp"][S.TRACK] = 19
    out, st = play(st, UK, {"kind": "pass"})
    assert vp_by(out, "FS 4.4(1)") == [1]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"], ended["rule"]) == (AR, "sudden death", "FS 4.5")
    assert st["ended"] and not events_of(out, "PhaseAdvanced")


def test_fs_5_3_the_last_turn_ends_with_its_first_phase_no_ar_phase_no_random_event():
    """FS 5.3: "Note that means the last turn will be truncated, ending immediately with the
    completion of its first phase." Two UK operations: turn 1 is whole (its Random Event Phase
    rolls), turn 2 ends after the UK's operation: nothing of the AR's, no event is rolled."""
    st = board(uk_operations=2)
    control(st, UK, T.PORT_STANLEY)
    st["vp"][S.TRACK] = 0
    out, st = whole_turn(st)
    assert events_of(out, "RandomEventDrawn") and st["uk_operations_left"] == 1
    out, st = play(st, UK, {"kind": "pass"}, FixedDice())
    assert st["ended"] and st["uk_operations_left"] == 0
    assert not events_of(out, "PhaseAdvanced") and not events_of(out, "RandomEventDrawn")
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.6")
    assert R.legal_orders(st, AR) == [] and R.legal_orders(st, UK) == []


# ==================================== 11.3 4-1 "out of play until rolled into effect again" ===
def test_fs_11_3_4_1_the_marker_is_held_across_turns_until_played_once_then_gone(monkeypatch):
    """FS 11.3 4-1: the UK takes the marker and "may play that marker after any die roll ...
    The effect is to make/allow the rolling player to roll that die again"; played, it is out of
    play until rolled into effect again. Taken at the end of turn 1, it is still held in turn 3's
    UK operation; played there, no re-roll is offered afterwards."""
    with_factor(monkeypatch, "glamorgan", surface=3)
    st = board()
    place(st, "glamorgan", OUTSIDE)
    place(st, "drummond", OUTSIDE)
    place(st, "granville", OUTSIDE)
    out, st = whole_turn(st, event=(4, 1))
    assert st["markers"][UK] == ["uk_decisive_leader"]
    out, st = whole_turn(st)  # turn 2: the event dice are offered for a re-roll, each as rolled, kept
    if pending(st):
        assert pending(st)["kind"] == "leadership"
        more, st = keep_dice(st, UK, QUIET[1])
        more, st = answer(st, UK, {"reroll": None})
    assert st["turn"] == 3 and st["markers"][UK] == ["uk_decisive_leader"]
    dice = FixedDice(6, 1, 6, 6)  # Glamorgan misses, its re-roll hits; Drummond and Granville miss
    out, st = play(st, UK, op(14, area=OUTSIDE, units=["glamorgan"], fire=fire(("glamorgan", "drummond"))), dice)
    out, st = answer(st, AR, {"fire": "auto"}, dice)
    assert pending(st)["kind"] == "leadership"
    out, st = answer(st, UK, {"reroll": 0}, dice)
    assert not S.alive(st, "drummond") and st["markers"][UK] == [] and st["markers"][AR] == []
    assert st["phase"] == "AR Operations"
    out, st = end_turn(st, event=QUIET)
    assert "DecisionPending" not in names(out)  # no marker: no re-roll offered on the event dice


# ============================================= 4.5 with 10.2: one battle's hits at one instant ===
OTHER_TEZ = "sa6"  # a TEZ sea area without the ship that keeps FS 4.4(1) quiet


def _both_sink_at_19(monkeypatch, attacker: str) -> tuple[list, dict]:
    """At +19, Drummond and Glamorgan (one step left) meet in a TEZ sea area and sink each other:
    Glamorgan gives the AR +1 (4.4(4)), Drummond the UK -1 (4.4(3))."""
    with_factor(monkeypatch, "drummond", surface=3)
    with_factor(monkeypatch, "glamorgan", surface=3)
    st = board("UK Operations" if attacker == UK else "AR Operations")
    st["vp"][S.TRACK] = 19
    place(st, "glamorgan", OTHER_TEZ, steps=1)
    place(st, "drummond", OTHER_TEZ)
    shooter, target = ("glamorgan", "drummond") if attacker == UK else ("drummond", "glamorgan")
    dice = FixedDice(1, 1)  # both hit
    out, st = play(st, attacker, op(14, area=OTHER_TEZ, units=[shooter], fire=fire((shooter, target))), dice)
    more, st = answer(st, S.other(attacker), {"fire": "auto"}, dice)
    return out + more, st


def test_fs_4_5_and_10_2_ships_sunk_in_one_battle_score_at_one_instant_whoever_fired_first(monkeypatch):
    """FS 10.2: "All fire in a given battle is considered to be taking place simultaneously ...
    There's no advantage to rolling your combat resolution die rolls before the other player. All
    combat dice are rolled by both players before any hits take effect"; FS 4.5: "If the VP tally
    ever reaches +20, play stops immediately." At +19 an AR attack and its UK defensive fire sink
    one ship each (+1 and -1 at the same instant): the tally stays at +19 and play goes on, as it
    does when the UK is the attacker and fires first."""
    for attacker in (UK, AR):
        out, st = _both_sink_at_19(monkeypatch, attacker)
        assert not S.alive(st, "drummond") and not S.alive(st, "glamorgan")
        assert sorted(e["delta"] for e in events_of(out, "VPScored")) == [-1, 1]
        assert vp(st) == 19 and not events_of(out, "GameEnded") and not st.get("ended"), attacker
        assert st["phase"] == ("AR Operations" if attacker == UK else "UK Submarine")


def test_fs_4_5_a_battle_whose_net_result_reaches_plus_20_ends_the_game_after_its_hits(monkeypatch):
    """FS 4.5 "play stops immediately" once the battle's hits have taken effect (10.2): at +18 the
    AR sinks Glamorgan (+1) and Sheffield (+1) while Drummond is sunk in the TEZ (-1): +19, no end;
    at +19 the same battle ends the game at +20 with every hit of the battle applied."""
    for start, ends in ((18, False), (19, True)):
        for u, f in (("drummond", {"surface": 3}), ("granville", {"surface": 3}), ("glamorgan", {"surface": 3}),
                     ("sheffield", {"surface": 3})):
            with_factor(monkeypatch, u, **f)
        st = board("AR Operations")
        st["vp"][S.TRACK] = start
        for u in ("glamorgan", "sheffield"):
            place(st, u, OTHER_TEZ, steps=1)
        place(st, "drummond", OTHER_TEZ)
        place(st, "granville", OTHER_TEZ)
        dice = FixedDice(1, 1, 1, 6)  # Drummond and Granville hit; Glamorgan hits, Sheffield misses
        out, st = play(st, AR, op(14, area=OTHER_TEZ, units=["drummond", "granville"],
                                  fire=fire(("drummond", "glamorgan"), ("granville", "sheffield"))), dice)
        more, st = answer(st, UK, {"fire": fire(("glamorgan", "drummond"), ("sheffield", "granville"))}, dice)
        out += more
        assert not S.alive(st, "glamorgan") and not S.alive(st, "sheffield") and not S.alive(st, "drummond")
        assert vp(st) == start + 1
        assert bool(events_of(out, "GameEnded")) is ends and bool(st.get("ended")) is ends
        if ends:
            (ended,) = events_of(out, "GameEnded")
            assert (ended["winner"], ended["level"], ended["rule"]) == (AR, "sudden death", "FS 4.5")
            assert names(out).index("GameEnded") > max(i for i, n in enumerate(names(out)) if n == "UnitEliminated")


def test_fs_4_4_2_a_marker_played_in_the_free_attack_itself_stops_no_vp_there(monkeypatch):
    """FS 4.4(2) "these VP aren't scored during the operation when random event 4-1/4-2/4-3 is in
    effect"; FS 11.3 2-1: the free attack "doesn't count as using up a UK operation". The UK keeps
    its marker through the event dice, then plays it in the free attack's battle to have its
    missed die rolled again: Drummond sinks in Sea Area 4 in no operation, with no marker held:
    +1 for the AR."""
    out, st = to_the_event_dice(monkeypatch, FixedDice(2))
    out, st = keep_dice(st, UK, 1)
    out, st = answer(st, UK, {"reroll": None})  # the event dice are kept, each as rolled: 2-1
    assert pending(st)["kind"] == "free_attack"
    start = vp(st)
    out, st = answer(st, UK, {"area": OUTSIDE, "units": ["glamorgan"], "fire": fire(("glamorgan", "drummond"))})
    dice = FixedDice(6, 1, 6)  # Glamorgan misses, the re-roll (asked at once) hits, Drummond misses
    out, st = answer(st, AR, {"fire": "auto"}, dice)
    assert pending(st)["kind"] == "leadership"
    out, st = answer(st, UK, {"reroll": 0}, dice)
    assert "MarkerPlayed" in names(out) and not S.alive(st, "drummond")
    assert vp_by(out, "FS 4.4(2)") == [1] and vp(st) == start + 1
