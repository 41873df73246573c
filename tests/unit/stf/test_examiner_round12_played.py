"""Examiner round 12: rules errors found by reading whole played campaigns (the random Player of
domain/rulesets/stf/play.py, fixed seeds) as an umpire reads a log, each pinned on a small scenario."""

from __future__ import annotations

from domain.rulesets.stf import maps
from tests.unit.stf.helpers import R, FixedDice, events_of, play, rolls_of, run_step
from tests.unit.stf.test_air import add as add_air
from tests.unit.stf.test_air import built, ship as air_ship
from tests.unit.stf.test_examiner_stf_doubts import off_map, placed
from tests.unit.stf.test_movement import M, add, deployment_state, ship, state


# ---- STF 6.3, 6.4: the one false contact off the map comes back, and is not marked as kept off ----------
def test_stf_6_3_the_only_false_contact_off_the_map_comes_back_and_is_not_marked_never_redeployable():
    """Seen in a Mediterranean campaign: TF5, found false in turn 3 and the only counter off the map,
    was recorded in turn 4 as "not redeployed in the turn after its removal ... redeployable no"
    (STF 6.3) and then placed in the same step. 6.4's third of 1 is 1: it comes back (no draw), so
    nothing is left over for 6.3 to keep off the map; the record must not say it was kept off."""
    out, after = run_step(off_map(turn=4, TF5="false contact"), "reinforcements", FixedDice(default=1))
    assert placed(out) == ["TF5"]
    assert [e for e in events_of(out, "GroupChanged") if "redeployable" in e["changes"]] == []
    assert [r.rule for r in rolls_of(out)] == ["STF 6.3", "STF 6.5"]  # the megahex and outer hex only
    assert after["groups"]["TF5"]["status"] == "on map" and after["groups"]["TF5"].get("redeployable", True)


# ---- STF 2.6.1: a patrol "against any Megahex": every megahex with a contact is offered ------------------
def test_stf_2_6_1_every_megahex_holding_a_gamesystem_group_is_offered_for_the_lbna_patrol():
    """Seen in a G-I-UK Gap campaign (Soviet Player invading): the offer held patrols over the three
    lowest-numbered megahexes with contacts only (9, 10, 12), never megahex 53 or 61, where the
    contacts closing on the Player's task forces were. 2.6.1: "a maximum of one Backfire or one
    Badger patrol per turn against any Megahex": each megahex holding a GameSystem group is offered,
    with 2.6.2's missiles at each task force there, and each offered patrol is taken."""

    st = built(player="Soviet", phase="Patrol")
    st["campaign"]["system_side"] = "US"
    for gid, hex_ in (("TF1", "0303"), ("TF2", "0510"), ("TF3", "0614"), ("TF4", "2008")):
        add_air(st, gid, "system", hex_, [air_ship(f"dd{gid}", "DD")], intel="precise", chit="Captain")
    add_air(st, "SR1", "system", "2207", kind="subron")
    wanted = {maps.megahex_number("giuk", h) for h in ("0303", "0510", "0614", "2008", "2207")}
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "lbna_patrol"]
    assert {o["megahex"] for o in offered} == wanted == {1, 12, 14, 53, 61}
    assert {(o["megahex"], o["target"]) for o in offered if o["unit"] == "badger" and o.get("target")} == {
        (1, "TF1"), (12, "TF2"), (14, "TF3"), (53, "TF4")}
    for o in (o for o in offered if o["megahex"] in (53, 61)):
        play(st, {k: v for k, v in o.items() if k not in ("title", "rule")}, FixedDice(default=1))  # taken


# ---- STF 1.8: SOSUS "in any Megahex which contains Shallow water" is offered there -----------------------
def test_stf_1_8_a_sosus_unit_is_offered_in_every_megahex_with_shallow_water():
    """Seen in a Mediterranean campaign (US Player, two SOSUS bought): the offer placed SOSUS in one
    megahex only, the map's first with shallow water (3), so both went there; 1.8 lets the Player
    "deploy them in any Megahex which contains Shallow water". The next SOSUS unit is offered in
    each such megahex (and in no deep-water one), and each offered placement is taken."""

    st = deployment_state()
    for uid in ("SOSUS1", "SOSUS2"):
        st["units"][uid] = {"id": uid, "class": "SOSUS", "nation": "US", "counter": None, "megahex": None}
    m = st["campaign"]["map"]
    shallow = {n for n in maps.megahex_numbers(m) if maps.megahex_is_shallow(m, n)}
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "deploy" and "sosus" in o]
    assert {o["sosus"] for o in offered} == {"SOSUS1"}  # one unit at a time, as before
    assert {o["megahex"] for o in offered} == shallow and len(shallow) > 1
    for o in offered[:: max(1, len(offered) // 5)]:
        _, after = play(st, o, FixedDice(default=1))
        assert after["units"]["SOSUS1"]["megahex"] == o["megahex"]


# ---- STF 7.1: a move at the group's speed is offered, not only one hex ----------------------------------
def test_stf_7_1_moves_of_up_to_the_groups_speed_are_offered_and_taken():
    """Read in every played campaign: the Player's groups moved one hex a turn while the GameSystem's
    moved two or three, because the offer held one-hex moves only and a group moves once a turn
    (its `moved`). 7.1 moves a group "at most its slowest unit's speed": the offer holds a path to
    each sea hex within that many steps by water (a speed-3 group on open sea: 36 hexes), each
    path of adjacent sea hexes and each taken."""

    st = state()
    add(st, "P1", "Player", "tf", "1811", [ship("dd1", speed=3), ship("ff1", speed=3)])
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "move" and o["group"] == "P1"]
    ends = {o["path"][-1] for o in offered}
    within = {h for h in maps.grid(M).names() if maps.is_sea(M, h) and 1 <= maps.distance(M, "1811", h) <= 3}
    assert max(len(o["path"]) for o in offered) == 3
    assert ends <= within and len(ends) == len(offered)
    if all(maps.is_sea(M, h) for h in within):  # open sea all round: every hex within 3 is reached
        assert ends == within
    for o in offered[::7]:
        _, after = play(st, o)
        assert after["groups"]["P1"]["hex"] == o["path"][-1]


# ---- STF 11.7 with 8.7: placing an Accurate task force draws its ships first -----------------------------
def test_stf_11_7_placing_an_accurate_task_force_holding_only_its_set_aside_cv_draws_its_ships():
    """Seen in a G-I-UK Gap campaign: TF3, an Accurate Rear Admiral task force known only by the
    Saratoga set aside for its strike (10.8), was placed on the tactical display as that one
    carrier in the centre ring. 11.7 places "its ships": as the Player's air strike (and an
    SSM hit, 11.1) on such a force draws its composition by 8.7's procedure before it is fought,
    so does a placement (Soviet Rear Admiral with a revealed air strength, +4: a 1 reads row 5,
    1CV 1CG 1DD 3FF); the Kiev set aside is its CV, and every ship is placed."""
    from tests.unit.stf.test_examiner_campaigns import accurate_tf_with_its_set_aside_cv

    st = accurate_tf_with_its_set_aside_cv()
    st["phase"] = "Strike"
    out, after = play(st, {"kind": "placement", "group": "TF1"}, FixedDice(1, default=1))
    g = after["groups"]["TF1"]
    assert g["intel"] == "precise"
    assert sorted(after["units"][u]["class"] for u in g["units"]) == ["CG", "CV", "DD", "FF", "FF", "FF"]
    placed_ships = [s["unit"] for e in events_of(out, "SystemActs") if e["what"] == "placement" for s in e["detail"]["ships"]]
    assert sorted(placed_ships) == sorted(g["units"]) and placed_ships[0] == "sov-cv-kiev"
