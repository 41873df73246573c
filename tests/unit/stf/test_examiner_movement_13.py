"""Examiner-style checks of STF 5.x-7.x (the GameSystem's deployment and movement) and 13.x, each
written from the sentence it quotes, on the G-I-UK Gap map's open water (columns 14-23, rows 1-12,
where hex "CCRR" and "(CC+d)RR" are d hexes apart). Not a repeat of test_movement.py or
test_examiner_rules_1_7.py: the positions here are the conditions and exceptions those leave out."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import maps, movement
from tests.unit.stf.helpers import FixedDice, events_of, play, run_step
from tests.unit.stf.test_movement import add, player_tf, ship

M = "giuk"


# ---- built states (as test_movement.py's, repeated so this file stands alone) -----------------------
def state(*, invader=None, target=None, phase="Movement", turn=2) -> dict:
    from tests.unit.stf.helpers import at_phase, initial
    st = at_phase(initial(), phase, turn=turn)
    st["campaign"].update({"map": M, "player_side": "US", "system_side": "Soviet", "invader": invader,
                           "mission": {"Player": "US Inv", "system": "Sov Inv"}.get(invader, "Battle"),
                           "invasion_target": target})
    return st


def sag(st, gid, hex_, speed=3):
    """A Precise GameSystem surface action group of two destroyers (no carrier)."""
    return add(st, gid, "system", "tf", hex_, [ship(f"{gid}-1", speed=speed), ship(f"{gid}-2", speed=speed)],
               intel="precise")


def cv_tf(st, gid, hex_, speed=3):
    units = [ship(f"{gid}-cv", "CV", speed, air={"H": 2, "L": 2}), ship(f"{gid}-1", "FF", speed, asw=2),
             ship(f"{gid}-2", "FF", speed, asw=2), ship(f"{gid}-3", "FF", speed, asw=2)]
    return add(st, gid, "system", "tf", hex_, units, intel="precise")


def moves(out: list) -> list[dict]:
    return events_of(out, "GroupMoved")


def path_of(out: list, gid: str) -> list[str]:
    return [h for m in moves(out) if m["group"] == gid for h in m["path"]]


def d(a: str, b: str) -> int:
    return maps.distance(M, a, b)


# ---- STF 7.10 ---------------------------------------------------------------------------------------
def test_stf_7_10_a_task_force_already_beside_a_bb_task_force_never_enters_another_hex_beside_it():
    """STF 7.10: "A GameSystem task force will never enter a hex or adjacent hex of a player task
    force containing a BB". The Player moved his BB task force P1 next to TF1; TF1 hunts P2 (STF
    7.5) beyond P1: every hex toward P2 is beside P1, so it enters none of them."""
    st = state()
    add(st, "P1", "Player", "tf", "1506", [ship("bb", "BB"), ship("dd")])  # two ships: not 7.5's target
    player_tf(st, "P2", "1106")  # four ships, the other side of P1
    sag(st, "TF1", "1606")
    assert d("1606", "1506") == 1
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert all(d(h, "1506") >= 2 for h in path_of(out, "TF1"))


def test_stf_7_10_a_task_force_beside_a_bb_task_force_may_still_move_off_toward_its_target():
    """STF 7.10 forbids only hexes in or beside the BB task force: TF1, beside P1, goes on toward P2
    (STF 7.5) through hexes two and more away from P1."""
    st = state()
    add(st, "P1", "Player", "tf", "1506", [ship("bb", "BB"), ship("dd")])
    player_tf(st, "P2", "2006")
    sag(st, "TF1", "1606")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    path = path_of(out, "TF1")
    assert path and all(d(h, "1506") >= 2 for h in path)
    assert d(st2["groups"]["TF1"]["hex"], "2006") < d("1606", "2006")


def test_stf_7_10_a_task_force_the_bb_task_force_sailed_onto_still_steps_off_toward_its_target():
    """STF 7.10 keeps a task force out of the BB task force's hex and the hexes beside it; one the
    Player's BB task force moved onto is not held there: it steps off, each hex farther from P1,
    toward P2 (STF 7.5), and ends two or more hexes from P1."""
    st = state()
    add(st, "P1", "Player", "tf", "1506", [ship("bb", "BB"), ship("dd")])
    player_tf(st, "P2", "2006")
    sag(st, "TF1", "1506")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    path = path_of(out, "TF1")
    assert d(path[0], "1506") == 1 and all(d(h, "1506") >= 2 for h in path[1:])
    assert d(st2["groups"]["TF1"]["hex"], "1506") >= 2 and d(st2["groups"]["TF1"]["hex"], "2006") < d("1506", "2006")


def test_stf_7_10_a_subron_is_no_task_force_and_closes_on_a_bb_task_force():
    """STF 7.10 binds "A GameSystem task force"; STF 7.5: "all subrons, move at maximum speed towards
    the nearest player task force of four or more ships": a subron enters the BB task force's hex."""
    st = state()
    player_tf(st, "P1", "1506", cls="BB")
    add(st, "SR1", "system", "subron", "1706")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.5" and st2["groups"]["SR1"]["hex"] == "1506"


# ---- STF 7.9 ----------------------------------------------------------------------------------------
def test_stf_7_9_only_a_cv_task_force_keeps_three_hexes_from_a_player_subron():
    """STF 7.9: "A GameSystem CV task force will try to move so as to be no closer than 3 hexes from
    a player subron": a task force without a carrier heads for P1 straight past the Player's subron."""
    st = state()
    player_tf(st, "P1", "1206")
    add(st, "P2", "Player", "subron", "1806", [ship("ssn", "SSN", 2)])
    sag(st, "TF1", "2106")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert min(d(h, "1806") for h in path_of(out, "TF1")) < 3
    assert "STF 7.9" not in moves(out)[0]["why"]


# ---- STF 7.3 ----------------------------------------------------------------------------------------
def test_stf_7_3_a_player_subron_close_by_does_not_take_a_gamesystem_subron_out_of_deep():
    """STF 7.3: "A GameSystem subron will not leave Deep mode unless it is within two hexes of a
    player task force": a Player subron one hex away is no task force."""
    st = state(phase="Group Mode")
    add(st, "P2", "Player", "subron", "1506", [ship("ssn", "SSN", 2)])
    add(st, "SR1", "system", "subron", "1606")
    out, st2 = run_step(st, "group_modes")
    assert st2["groups"]["SR1"]["mode"] == "deep" and events_of(out, "GroupChanged") == []


# ---- STF 7.4, 7.5 -----------------------------------------------------------------------------------
def test_stf_7_5_in_a_gamesystem_invasion_its_subrons_hunt_the_nearest_player_task_force():
    """STF 7.4: "all GameSystem task forces move at full speed towards the target Megahex (Exception
    7.5)"; STF 7.5: "... and all subrons, move at maximum speed towards the nearest player task force
    of four or more ships": a subron in an invasion ignores the target megahex."""
    st = state(invader="system", target=43)
    player_tf(st, "P1", "1512")
    add(st, "SR1", "system", "subron", "2304")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.5" and "P1" in moves(out)[0]["why"]
    assert d(st2["groups"]["SR1"]["hex"], "1512") == d("2304", "1512") - 2


def test_stf_7_4_the_task_force_carrying_the_invasion_freighters_makes_for_the_target_not_the_player():
    """STF 7.4: an invading task force moves "at full speed towards the target Megahex"; its full
    speed is its slowest ship's (the freighter's 2). The Player's task force beside it is no lure:
    only a task force "known to contain no invasion freighters" follows 7.5."""
    st = state(invader="system", target=43)
    player_tf(st, "P1", "2506")
    add(st, "TF1", "system", "tf", "2306", [ship("x1"), ship("fr1", "FR", speed=2, invasion=True)], intel="precise")
    objective = maps.sea_hexes_of(M, 43)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.4" and len(moves(out)[0]["path"]) == 2
    assert movement.nearest(M, st2["groups"]["TF1"]["hex"], objective) == movement.nearest(M, "2306", objective) - 2


# ---- STF 7.7 ----------------------------------------------------------------------------------------
def test_stf_7_7_the_cv_makes_for_half_way_to_the_invasion_force_closest_to_the_target_not_to_itself():
    """STF 7.7: "A GameSystem CV task force defending against an invasion will move toward a hex half
    way between (a) the target Megahex and (b) the player task force closest to the target Megahex
    that contains at least one invasion freighter." P2 is nearer the carrier, P1 nearer the target
    (centre 1804): the carrier makes for 2004, half way to P1 at 2204."""
    st = state(invader="Player", target=43)
    player_tf(st, "P1", "2204", extra=[ship("fr1", "FR", invasion=True)])
    player_tf(st, "P2", "1412", n=1, extra=[ship("fr2", "FR", invasion=True)])
    cv_tf(st, "TF1", "0515")
    assert d("1804", "2204") < d("1804", "1412") and d("0515", "1412") < d("0515", "2204")
    assert d("0515", "1412") > 7  # beyond STF 7.8's bands
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.7" and "2004" in moves(out)[0]["why"] and "P1" in moves(out)[0]["why"]


def test_stf_7_7_a_defending_surface_action_group_moves_into_the_invasion_forces_hex_to_engage():
    """STF 7.7: "surface action groups and subrons defending against an invasion will move toward the
    nearest player task force containing an invasion freighter and attempt to engage it in battle":
    within its speed, it ends in that task force's hex."""
    st = state(invader="Player", target=43)
    player_tf(st, "P1", "1706", n=1, extra=[ship("fr1", "FR", invasion=True)])
    sag(st, "TF1", "2006")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.7" and st2["groups"]["TF1"]["hex"] == "1706"


# ---- STF 7.8 in an invasion -------------------------------------------------------------------------
def cv_at(distance: int, target: int) -> dict:
    """The GameSystem invading: TF1, the CV task force with the invasion freighter (on the invasion,
    STF 7.4; one known to carry none moves by 7.5's battle column), ``distance`` hexes from P1."""
    st = state(invader="system", target=target)
    player_tf(st, "P1", "1506")
    cv_tf(st, "TF1", f"{15 + distance:02d}06")
    add_freighter(st, "TF1")
    return st


def add_freighter(st: dict, gid: str) -> dict:
    """An invasion freighter (STF 1.11) in group ``gid``, with no weapons of its own."""
    st["units"][f"{gid}-fr"] = {**ship(f"{gid}-fr", "FR", ssm=0, gun=None, invasion=True), "group": gid}
    st["groups"][gid]["units"].append(f"{gid}-fr")
    return st


def test_stf_7_8_an_invading_cv_at_seven_hexes_moves_2_hexes_toward_the_objective():
    """STF 7.8: "7 hexes from nearest task force - move 2 hexes towards ... objective hex (invasion)",
    though its ships move 3."""
    st = cv_at(7, 64)
    objective = maps.sea_hexes_of(M, 64)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.8" and len(moves(out)[0]["path"]) == 2
    assert movement.nearest(M, st2["groups"]["TF1"]["hex"], objective) == movement.nearest(M, "2206", objective) - 2


def test_stf_7_8_an_invading_cv_at_five_hexes_goes_for_the_objective_no_closer_than_5_to_a_player_tf():
    """STF 7.8: "5 hexes from nearest task force - ... as many hexes as possible towards objective hex,
    but not closer than 5 hexes to a player task force (invasion)"."""
    st = cv_at(5, 45)
    objective = maps.sea_hexes_of(M, 45)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.8"
    assert all(d(h, "1506") >= 5 for h in moves(out)[0]["path"])
    assert movement.nearest(M, st2["groups"]["TF1"]["hex"], objective) < movement.nearest(M, "2006", objective)


@pytest.mark.parametrize("distance, after", [(4, 5), (3, 1), (2, 0)])
def test_stf_7_8_an_invading_cv_close_to_a_player_tf_without_a_bb_follows_the_band(distance, after):
    """STF 7.8: "4 hexes - move 1 hex away from nearest task force (battle or invasion)"; "3 hexes -
    if no BB in player task force, move to 1 hex and launch SSMs"; "2 or fewer hexes - if no BB in
    player task force, move to the same hex and conduct SSM, gunnery and torpedo combat"."""
    st = cv_at(distance, 64)
    _, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert d(st2["groups"]["TF1"]["hex"], "1506") == after


# ---- STF 7.1 for the Player's subrons ----------------------------------------------------------------
def test_stf_7_1_a_players_conventional_sub_moves_one_hex_and_two_are_refused_naming_the_rule():
    """STF 7.1: "All Precisely identified conventional subs move at one hex per turn" (the Player's
    subron moves at its slowest unit's speed, the SS's 1): a two-hex move is refused."""
    st = state()
    add(st, "P2", "Player", "subron", "1506", [ship("ss", "SS", 1)])
    with pytest.raises(RuleViolation, match="STF 7.1"):
        play(st, {"kind": "move", "group": "P2", "path": ["1606", "1706"]})
    _, st2 = play(st, {"kind": "move", "group": "P2", "path": ["1606"]})
    assert st2["groups"]["P2"]["hex"] == "1606"


# ---- STF 7.11, 5.2 ----------------------------------------------------------------------------------
def test_stf_7_11_last_ditch_defence_a_cv_ignores_its_bands_and_its_distance_from_a_player_subron():
    """STF 7.11: a task force that can attack a Player task force with an invasion freighter that has
    entered the objective megahex "will ignore all other movement rules and will move at full speed
    towards that player task force": a carrier 3 hexes off goes into its hex (STF 7.8 would stop it
    at 1) past the Player's subron beside its path (STF 7.9 would keep it 3 hexes off)."""
    st = state(invader="Player", target=43)
    player_tf(st, "P1", "1804", extra=[ship("fr1", "FR", invasion=True)])  # 43's centre
    add(st, "P2", "Player", "subron", "1904", [ship("ssn", "SSN", 2)])
    cv_tf(st, "TF1", "2104")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.11" and st2["groups"]["TF1"]["hex"] == "1804"
    assert min(d(h, "1904") for h in path_of(out, "TF1")) < 3


def test_stf_5_2_a_command_control_loss_holds_a_cv_closing_by_its_band_to_one_hex():
    """STF 5.2: "all GameSystem task forces and subrons are limited to only one hex of movement
    during that turn": a carrier 3 hexes from P1, whose STF 7.8 band sends it to 1 hex, moves one."""
    st = state()
    player_tf(st, "P1", "1506")
    cv_tf(st, "TF1", "1806")
    st["campaign"]["system_ccl_turn"] = st["turn"]
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.8" and len(moves(out)[0]["path"]) == 1
    assert d(st2["groups"]["TF1"]["hex"], "1506") == 2


# ---- STF 13.1 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("counter_id, cls, vp", [("sov-cg-kirov", "Kirov", 8), ("sov-cg-frunze", "Kirov", 8),
                                                  ("us-bb-iowa", "Iowa", 10)])
def test_stf_13_1_an_iowa_or_kirov_drawn_from_the_countermix_and_sunk_scores_its_vp_for_the_player(counter_id, cls, vp):
    """STF 13.1: "use 10VP for Iowa-class BB and 8 VP for Kirov-class CG": a GameSystem Kirov made
    (an Iowa: a US GameSystem's) from its counter and sunk puts that many VP on the Player's track and
    in the net VP of STF 12.4."""
    from domain.rulesets.stf import combat, forces, retirement
    from domain.rulesets.stf import rules as stf_rules
    from domain.rulesets.toolkit.engine import Ctx
    st = state(phase="Combat")
    if cls == "Iowa":
        st["campaign"].update({"player_side": "Soviet", "system_side": "US"})
    unit = forces.unit_from_counter(st, counter_id, "k1")
    assert unit["ship_class"] == cls
    add(st, "TF1", "system", "tf", "1806", [unit], intel="precise")
    before = st["vp"]["Player"]
    ctx = Ctx(st, FixedDice(default=1), stf_rules.HOOKS)
    combat.sink(ctx, "k1", "the Player's report")
    assert ctx.state["vp"]["Player"] - before == vp and retirement.net_vp(ctx.state) == vp
