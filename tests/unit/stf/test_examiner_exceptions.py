"""Examiner-style checks of the STF text's exceptions and qualifiers ("except", "unless",
"however", "only", "never", "at most", "irrespective", the notes under the tables), each written
from the sentence it quotes (../shared/rules/003_74ca0e4e298164eb.txt): the exception case itself,
not the main rule the other files already prove."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import forces, maps, movement
from tests.unit.stf.helpers import FixedDice, NoDice, answer_waves, at_phase, events_of, play, rolls_of, run_step
from tests.unit.stf.test_air import SYS, add, built, player_strike_state, precise_cv_state, ship, strikes
from tests.unit.stf.test_examiner_movement_13 import add_freighter, cv_tf, d, moves, sag, state
from tests.unit.stf.test_movement import add as move_add
from tests.unit.stf.test_movement import player_tf
from tests.unit.stf.test_movement import ship as move_ship


def refused(st: dict, order: dict, rule: str) -> str:
    with pytest.raises(RuleViolation) as err:
        play(st, order)
    assert err.value.rule == rule, err.value
    return str(err.value)


# ---- STF 8.7 / 2.6.1: a Precise group stays Precise ------------------------------------------------
def test_stf_8_7_an_lbna_patrols_precise_report_leaves_a_group_already_precise_as_it_is():
    """8.7: "When a taskforce has been Precisely identified ... the force remains Precisely
    identified for the rest of the game" (and 8.6: "If the target is already Precisely identified,
    then no effect"). A Soviet Player's patrol (2.6.1, "for a Precise search report") over a
    megahex holding a Precise task force rolls no false contact for it: it is not removed."""
    st = built(player="Soviet", phase="Patrol")
    st["campaign"]["system_side"] = "US"
    add(st, "TF1", "system", SYS, [ship("dd", "DD", nation="US")], intel="precise", chit=None, size="small")
    mh = int(maps.megahex_number("giuk", SYS))
    out, after = play(st, {"kind": "lbna_patrol", "unit": "badger", "megahex": mh}, FixedDice(2))
    assert rolls_of(out) == []
    g = after["groups"]["TF1"]
    assert (g["status"], g["hex"], g["intel"], g["units"]) == ("on map", SYS, "precise", ["dd"])
    assert events_of(out, "PlayerAirAction")[0]["detail"]["false_contacts"] == []


# ---- STF 7.8: the BB exceptions of the 3-hex and 2-hex bands in an invasion ---------------------------
def _invading_cv_beside_a_bb(distance: int, target: int) -> dict:
    st = state(invader="system", target=target)
    move_add(st, "P1", "Player", "tf", "1506", [move_ship("bb", "BB"), move_ship("p1"), move_ship("p2"), move_ship("p3")])
    cv_tf(st, "TF1", f"{15 + distance:02d}06")
    return add_freighter(st, "TF1")  # on the invasion (STF 7.4), not known to carry no freighter (7.5)


@pytest.mark.parametrize("target", [45, 30])
def test_stf_7_8_an_invading_cv_3_hexes_from_a_bb_goes_for_the_objective_no_closer_than_4_hexes(target):
    """7.8, 3 hexes: "If a BB is in the player task force, move 1 hex away from task force (battle) or
    move as many hexes as possible towards objective hex, but no closer than 4 hexes to player BB task
    force (invasion)": not the battle's one hex away, and not 'move to 1 hex and launch SSMs'."""
    st = _invading_cv_beside_a_bb(3, target)
    objective = maps.sea_hexes_of("giuk", target)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    move = moves(out)[0]
    end = st2["groups"]["TF1"]["hex"]
    assert move["rule"] == "STF 7.8" and len(move["path"]) == 3  # as many hexes as possible: its speed
    assert all(d(h, "1506") >= 3 for h in move["path"]) and d(end, "1506") >= 4
    assert movement.nearest("giuk", end, objective) == movement.nearest("giuk", "1806", objective) - 3


def _best_end_4_off_the_bb(start: str, bb: str, objective: list[str], speed: int) -> tuple[int, int]:
    """(water distance to the objective, hexes moved) of the best end of every path of at most
    ``speed`` sea hexes from ``start`` that never steps closer to ``bb`` than it is while inside 4
    hexes of it (nor beside it, 7.10) and ends 4 or more hexes from it: all paths, enumerated."""
    water = movement.water_distances("giuk", objective)
    found, paths = [], [[start]]
    while paths:
        p = paths.pop()
        if len(p) > 1 and d(p[-1], bb) >= 4:
            found.append((water[p[-1]], len(p) - 1))
        if len(p) <= speed:
            paths += [p + [n] for n in maps.sea_neighbours("giuk", p[-1])
                      if d(n, bb) >= 2 and (d(n, bb) >= 4 or d(n, bb) >= d(p[-1], bb))]
    return min(found)


@pytest.mark.parametrize("target", [25, 37, 43, 27, 1])
def test_stf_7_8_an_invading_cv_3_hexes_from_a_bb_ends_its_move_no_closer_than_4_hexes(target):
    """7.8, 3 hexes: "move as many hexes as possible towards objective hex, but no closer than 4 hexes
    to player BB task force (invasion)": where the move ends. TF1 is 3 hexes from P1's BB: it never
    steps closer on the way and ends 4 or more off, at the hex nearest the objective by water any such
    path of its speed reaches (the fewest hexes moved of those); toward 25, 37 and 43 it gets nearer,
    toward 27 and 1 (behind the BB) none that near is nearer, so it moves out to 4 at the best one
    rather than staying 3 hexes off (before: it ran along the 3-hex ring or stayed there)."""
    st = _invading_cv_beside_a_bb(3, target)
    objective = maps.sea_hexes_of("giuk", target)
    water = movement.water_distances("giuk", objective)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    move = moves(out)[0]
    end = st2["groups"]["TF1"]["hex"]
    assert move["rule"] == "STF 7.8" and move["path"][-1] == end
    hexes = ["1806"] + move["path"]
    assert all(d(b, "1506") >= min(4, d(a, "1506")) for a, b in zip(hexes, hexes[1:]))
    assert d(end, "1506") >= 4
    assert (water[end], len(move["path"])) == _best_end_4_off_the_bb("1806", "1506", objective, 3)
    if target in (25, 37, 43):
        assert water[end] < water["1806"]
    else:
        assert water[end] >= water["1806"] and "moves out to the one nearest the objective" in move["why"]


def test_stf_7_8_an_invading_cv_2_hexes_from_a_bb_fires_its_ssms_then_goes_for_the_objective():
    """7.8, 2 or fewer hexes: "If a BB is in a player task force conduct any SSM attacks, then either
    move as many hexes away from the BB task force as possible ... (battle) or move as many hexes as
    possible towards the objective Megahex (invasion)": it holds in the Movement phase, fires in the
    Combat phase, then moves toward the objective, not toward its own edge, and fights no gunnery."""
    st = _invading_cv_beside_a_bb(2, 30)
    objective = maps.sea_hexes_of("giuk", 30)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out) == [] and st2["groups"]["TF1"]["hex"] == "1706"
    out, st3 = run_step({**st2, "phase": "Combat"}, "surface_combat", FixedDice(default=1))
    assert [e for e in events_of(out, "SystemActs") if e["what"] == "SSM wave"]
    more, st3 = answer_waves(st3, FixedDice(default=1))
    out += more
    assert not st3.get("pending")
    assert not [e for e in events_of(out, "SystemActs") if e["what"] == "gunnery"]
    run = [e for e in moves(out) if e["group"] == "TF1"]
    assert run and run[0]["rule"] == "STF 7.8"
    end = st3["groups"]["TF1"]["hex"]
    assert movement.nearest("giuk", end, objective) < movement.nearest("giuk", "1706", objective)


# ---- STF 1.12: "however it may continue to conduct air operations" -----------------------------------
def test_stf_1_12_a_carrier_short_of_its_escorts_withdraws_but_its_air_strike_is_still_accepted():
    """1.12: "If the aircraft carrier cannot meet this escort ship requirement, then it and its
    remaining escorts must withdraw as quickly as possible toward the nearest friendly 'Base',
    however it may continue to conduct air operations." P1, a US carrier with one frigate, breaks
    the requirement; its air strike on an Accurate task force in the Strike phase is accepted."""
    st = player_strike_state("accurate")
    assert forces.escort_shortfall(st, "P1")
    out, _ = play(st, {"kind": "air_strike", "from": "P1", "target": "TF1"})
    assert events_of(out, "PlayerAirAction")[0]["detail"]["from"] == "P1"


def test_stf_1_12_a_gamesystem_carrier_short_of_its_escorts_still_launches_its_air_strike():
    """1.12 for the GameSystem's carrier: withdrawing for want of escorts, "however it may continue
    to conduct air operations": a Precise carrier task force with one destroyer, a Player carrier
    task force 6 megahexes off, strikes it (10.7, the Air Attack Table)."""
    st = precise_cv_state()
    assert forces.escort_shortfall(st, "TF1")
    out, _ = run_step(st, "air_attacks", FixedDice(1, 1))
    assert strikes(out) and strikes(out)[0]["detail"]["group"] == "TF1"


# ---- STF 1.13: "all on the same turn" -----------------------------------------------------------------
def test_stf_1_13_a_gamesystem_task_force_moves_strikes_and_fires_its_ssms_in_one_turn_whatever_its_leader():
    """1.13: "Leaders are not used to determine actions for the GameSystem. The GameSystem task force
    or subron may conduct air strikes, move, conduct SSM, gunnery and torpedo combat all on the same
    turn." A Precise carrier task force with no leader chit, 3 hexes from the Player's carrier task
    force: in turn 3 it moves to 1 hex (7.8), launches its air strike (10.7) and fires its SSMs
    (11.2), none of them barred by another."""
    st = state(phase="Movement", turn=3)
    st["campaign"].update({"player_airbases": [], "system_airbase": None, "lbna_available": True,
                           "ground_aviation": {"Player": 0, "system": 0}})
    move_add(st, "P1", "Player", "tf", "1506", [move_ship("pcv", "CV", nation="US"), move_ship("p1", "FF"),
                                                move_ship("p2", "FF"), move_ship("p3", "FF")])
    cv_tf(st, "TF1", "1806")
    assert st["groups"]["TF1"]["chit"] is None
    out, st = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["group"] == "TF1" and d(st["groups"]["TF1"]["hex"], "1506") == 1
    out, st = run_step(at_phase(st, "Strike", turn=3), "air_attacks", FixedDice(default=1))
    assert [e["detail"]["group"] for e in events_of(out, "SystemActs") if e["what"] == "air strike"] == ["TF1"]
    out, st = run_step(at_phase(st, "Combat", turn=3), "surface_combat", FixedDice(default=1))
    waves = [e for e in events_of(out, "SystemActs") if e["what"] == "SSM wave"]
    assert waves and waves[0]["detail"]["group"] == "TF1"


# ---- STF 7.11 over 7.10: "will ignore all other movement rules" ----------------------------------------
def test_stf_7_11_last_ditch_defence_enters_the_hex_of_an_invasion_force_holding_a_bb():
    """7.10: "A GameSystem task force will never enter a hex or adjacent hex of a player task force
    containing a BB"; 7.11: a task force defending against an invasion that can attack a player task
    force (with an invasion freighter) that has entered the objective megahex "will ignore all other
    movement rules and will move at full speed towards that player task force, and engage": a surface
    action group 3 hexes off goes into the hex of P1, whose BB 7.10 would keep it 2 hexes from."""
    st = state(invader="Player", target=43)
    player_tf(st, "P1", "1804", extra=[move_ship("fr1", "FR", invasion=True), move_ship("bb", "BB")])  # 43's centre
    sag(st, "TF1", "2104")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.11" and st2["groups"]["TF1"]["hex"] == "1804"


# ---- STF 9.5: "if they are not attacked that turn" ------------------------------------------------------
@pytest.mark.parametrize("order, phase", [
    ({"kind": "air_strike", "from": "P2", "target": "Latakia", "tomahawk": True}, "Combat"),  # 9.7
    ({"kind": "air_strike", "from": "P1", "target": "Latakia"}, "Strike"),                     # 9.2, 9.6
    ({"kind": "bombard", "from": "P2", "target": "Latakia"}, "Combat"),                        # 9.8
])
def test_stf_9_5_an_airbase_attacked_this_turn_by_tomahawks_aircraft_or_guns_repairs_no_hit(order, phase):
    """9.5: "Airbases repair 1 hit per turn if they are not attacked that turn." The GameSystem's
    airbase with 2 hits, attacked in turn 3 by Tomahawks (9.7), by the Player's carrier aircraft
    (9.2) or by gunfire (9.8), keeps its 2 hits in that turn's Terminal phase; not attacked, 1."""
    st = at_phase(player_strike_state("accurate"), phase, turn=3)
    st["groups"]["P1"]["hex"] = "4410"  # the carrier within range of Latakia
    st["airbases"] = {"Latakia": {"owner": "system", "hits": 2, "attacked": 1}}
    _, quiet = run_step(at_phase(st, "Terminal", turn=3), "airbase_repair", NoDice())
    assert quiet["airbases"]["Latakia"]["hits"] == 1
    _, after = play(st, order)
    _, after = run_step(at_phase(after, "Terminal", turn=3), "airbase_repair", NoDice())
    assert after["airbases"]["Latakia"]["hits"] == 2
