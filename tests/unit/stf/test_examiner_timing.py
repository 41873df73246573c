"""Time and order, against the STF text (../shared/rules/003_74ca0e4e298164eb.txt), as an examiner
would: each test plays through the moment a rule should act and the moment after (ending phases
with ``end_phase`` as the Player does, answering what the GameSystem asks), and checks the state
before and after, and which dice are rolled when, for what."""

from __future__ import annotations

from tests.unit.stf.helpers import (FixedDice, add_group, combat_state, events_of, pending, play, pool_of, ship,
                                    system_group)


def finish(st: dict, dice, *, event: str = "none", sunk: dict | None = None) -> tuple[list, dict]:
    """End the Player's part of the phase (STF 6.7) and answer what the GameSystem's steps ask: the
    random event (``event``, STF 5.1), and the base game's combat results (``sunk``: {prompt
    fragment: unit sunk}, else nothing sunk and the combat ended by the base game)."""
    sunk = dict(sunk or {})
    outs, (out, st) = [], play(st, {"kind": "end_phase"}, dice)
    outs += out
    while pending(st):
        d = pending(st)
        if d["kind"] == "declare":
            order = {"kind": "declare", "decision": d["id"], "value": event}
        else:
            hit = next((k for k in sunk if k in d["prompt"]), None)
            choice = {"sunk": sunk.pop(hit)} if hit else (
                {"sunk": None} if "sunk;" in d["prompt"] else {"ended": True})
            order = {"kind": "decide", "decision": d["id"], "choice": choice}
        out, st = play(st, order, dice)
        outs += out
    return outs, st


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 7.6, 11.3: a group whose target was sunk earlier in the phase engages the next one ------
def test_stf_11_3_a_group_whose_target_another_group_sank_this_phase_fights_the_player_task_force_left_in_its_hex():
    """7.6: "When within range, a GameSystem task force or subron will attempt to engage in battle";
    11.3: it fires when it has as many ships with A guns as the Player's task force. TF1 and TF2
    both stand in the hex of P1 and P2; TF1's gunnery sinks P1 in the first round. TF2 had picked
    P1 too (5 VP against 4) when the Combat phase began, and the code dropped TF2's combat once P1
    was gone, though P2 was still in its hex: the target was fixed before TF1's results were in."""
    st = combat_state("Combat")
    add_group(st, "P1", "Player", "1405", {"p1": ship("DD", 5, nation="US", gun="A")})
    add_group(st, "P2", "Player", "1405", {"p2": ship("DD", 4, nation="US", gun="A")})
    add_group(st, "TF1", "system", "1405", {"k1": ship("CG", 8, gun="A")})
    add_group(st, "TF2", "system", "1405", {"k2": ship("CG", 8, gun="A")})
    out, after = finish(st, FixedDice(default=1), sunk={"TF1's gunnery round 1": "p1"})
    fired = [(e["detail"]["group"], e["detail"]["target_group"]) for e in acts(out, "gunnery") if e["detail"]["fire"]]
    assert fired == [("TF1", "P1"), ("TF2", "P2")]
    assert after["units"]["p1"]["sunk"] is True and after["phase"] == "Terminal"


def test_stf_11_2_a_group_whose_ssm_target_is_sunk_before_its_salvo_fires_at_the_next_task_force_in_range():
    """11.2: a GameSystem task force "will fire every SSM it can"; 7.6: within range it engages.
    TF1 and TF2 (8 SSM each) are both in range of P1 and P2. TF1's first wave sinks P1's only
    ship; TF2's salvo goes to P2, not nowhere."""
    st = combat_state("Combat")
    add_group(st, "P1", "Player", "1405", {"p1": ship("DD", 5, nation="US")})
    add_group(st, "P2", "Player", "1406", {"p2": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "1505", {"k1": ship("CG", 8, ssm=8, ssm_loads=1)})
    add_group(st, "TF2", "system", "1506", {"k2": ship("CG", 8, ssm=8, ssm_loads=1)})
    out, after = finish(st, FixedDice(default=1), sunk={"TF1's SSM wave 1": "p1"})
    waves = [(e["detail"]["group"], e["detail"]["target_group"]) for e in acts(out, "SSM wave")]
    assert ("TF1", "P1") in waves and ("TF2", "P2") in waves
    assert all(g != "TF2" or t == "P2" for g, t in waves)


def rolled(dice: FixedDice) -> list[tuple[str, str]]:
    """(rule, purpose) of each roll made so far, and forget them."""
    out = [(c["rule"], c["purpose"]) for c in dice.calls]
    dice.calls.clear()
    return out


# ---- STF 8.14: revealed in the Movement phase; Deep until the next Group Mode; an action lost next turn
def test_stf_8_14_a_subron_revealed_by_proximity_stays_deep_this_turn_goes_shallow_next_group_mode_and_costs_one_move_next_turn():
    """8.14: "each ... becomes Precisely known, but the player task force loses one action in the
    following turn ... NOTE: The GameSystem subron will remain at Deep until the following Group Mode
    Phase, when it will move to Shallow for the rest of the game." Turn 2: SR1 closes within two
    hexes of P1 in the Movement phase and is revealed then (its size and composition rolled then,
    not before); it stays Deep through turn 2; turn 3's Group Mode phase puts it in Shallow; in turn
    3 P1, the task force SR1 came close to, may not move (P2 may), in turn 4 both move again."""
    st = combat_state("Movement", commitment=45)
    add_group(st, "P1", "Player", "1405", {"p1": ship("DD", 4, nation="US")})
    add_group(st, "P2", "Player", "1410", {"p2": ship("DD", 4, nation="US")})
    st["groups"]["SR1"] = system_group("SR1", "subron", hex="1805")
    st["pool"] = pool_of("Soviet", SS=4)
    dice = FixedDice(default=1)
    out, st = finish(st, dice)  # turn 2, Movement: the Player moves nothing, the GameSystem moves
    rules = [r for r, _ in rolled(dice)]
    assert "STF 8.6" in rules and "STF 8.7" in rules  # size and composition, now
    sr1 = st["groups"]["SR1"]
    assert (sr1["intel"], sr1["mode"]) == ("precise", "deep")
    assert st["campaign"]["actions_lost"] == {"turn": 3, "count": 1, "rules": {"STF 8.14": 1}, "groups": {"P1": 1}}
    while (st["turn"], st["phase"]) != (3, "Group Mode"):
        out, st = finish(st, dice)
        assert st["groups"]["SR1"]["mode"] == "deep"
    assert not any(r in ("STF 8.6", "STF 8.7") for r, _ in rolled(dice))  # never rolled again
    out, st = finish(st, dice)  # turn 3's Group Mode phase
    assert (st["phase"], st["groups"]["SR1"]["mode"]) == ("Movement", "shallow")
    assert [e["rule"] for e in events_of(out, "GroupChanged") if e["group"] == "SR1"] == ["STF 8.14"]
    _, st = play(st, {"kind": "move", "group": "P2", "path": ["1409"]}, dice)
    refused = None
    try:
        play(st, {"kind": "move", "group": "P1", "path": ["1404"]}, dice)
    except Exception as e:  # noqa: BLE001 - the refusal names its rule
        refused = e
    assert refused is not None and refused.rule == "STF 8.14"
    while (st["turn"], st["phase"]) != (4, "Movement"):
        out, st = finish(st, dice)
    _, st = play(st, {"kind": "move", "group": "P1", "path": ["1404"]}, dice)
    _, st = play(st, {"kind": "move", "group": "P2", "path": ["1408"]}, dice)  # turn 4: both move
    assert st["groups"]["P1"]["hex"] == "1404" and st["groups"]["P2"]["hex"] == "1408"


# ---- STF 12.5: the retirement die is rolled in the Terminal Phase, each turn the index exceeds ----
def test_stf_12_5_losses_reported_in_combat_roll_no_die_until_the_terminal_phase_then_one_each_turn():
    """12.5: "In the Terminal Phase of each turn that the retirement index exceeds the retirement
    limit, roll 1D6. If the result is a '1' then all the GameSystem units retire". Commitment 45,
    limit 22.5: 24 VP sunk in the Combat phase of turn 2 roll nothing then; the Terminal phase
    rolls once (a 2: it fights on); turn 3's Terminal phase rolls again (a 1: it retires); turn
    4's rolls no retirement die."""
    st = combat_state("Combat", commitment=45)
    add_group(st, "P1", "Player", "1405", {"p1": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "2005", {f"k{i}": ship("CG", 8) for i in range(3)})
    add_group(st, "TF2", "system", "2010", {"k4": ship("DD", 4, gun="C")})
    dice = FixedDice(default=1)
    _, st = play(st, {"kind": "report", "sunk": ["k0", "k1", "k2"]}, dice)
    _, st = finish(st, dice)  # the Combat phase ends
    assert st["phase"] == "Terminal" and "STF 12.5" not in [r for r, _ in rolled(dice)]
    dice.faces = [2]
    out, st = finish(st, dice)
    assert [r for r, _ in rolled(dice)].count("STF 12.5") == 1 and not st["campaign"].get("system_retiring")
    while st["phase"] != "Terminal":
        _, st = finish(st, dice)
    rolled(dice)
    dice.faces = [1]
    out, st = finish(st, dice)
    assert [r for r, _ in rolled(dice)].count("STF 12.5") == 1
    assert st["campaign"]["system_retiring"] == 3 and st["groups"]["TF2"]["retiring"] is True
    while st["phase"] != "Terminal":
        _, st = finish(st, dice)
    rolled(dice)
    _, st = finish(st, dice)
    assert "STF 12.5" not in [r for r, _ in rolled(dice)]


class DiceBy(FixedDice):
    """Every die shows 1, except those whose purpose contains a key of ``faces`` (its face)."""

    def __init__(self, **faces: int):
        super().__init__(default=1)
        self.by = {k.replace("_", " "): v for k, v in faces.items()}

    def roll(self, count, sides, **kw):
        face = next((v for k, v in self.by.items() if k in kw["purpose"]), None)
        if face is not None:
            self.faces = [face] * count
        return super().roll(count, sides, **kw)


# ---- STF 10.13 and 10.2: a strike in turn 2, none in turn 3, again in turn 4; CAP back in turn 4 ----
def test_stf_10_13_and_10_2_the_turn_after_a_strike_no_launch_roll_and_its_squadrons_fly_no_cap_then_both_return():
    """10.13: "A single GameSystem task force may not launch air strikes on consecutive turns";
    10.2: CAP is "half (round up) the L and M aircraft not on air strikes in this turn or the
    previous turn". Turn 2: the Kiev's task force strikes (Soviet table, a 3: 1 strike, 1 escort:
    its H and its L). Turn 3: the Player strikes it and meets a CAP of its M alone (3: 2); the
    GameSystem's Strike phase rolls nothing for it. Turn 4: its CAP is L and M again (7: 4) and it
    strikes again."""
    from tests.unit.stf.test_air import precise_cv_state
    st = precise_cv_state()
    st["turn"] = 2
    dice = DiceBy(Air_Attack_Table=3)
    out, st = finish(st, dice)  # turn 2, the Strike phase ends: the GameSystem's air attacks
    flown = [e for e in acts(out, "air strike") if e["detail"]["group"] == "TF1"]
    assert [(e["detail"]["strike"], e["detail"]["escort"]) for e in flown] == [(["kiev:H"], ["kiev:L"])]
    assert st["strikes"]["TF1"] == 2
    while (st["turn"], st["phase"]) != (3, "Strike"):
        _, st = finish(st, dice)
    rolled(dice)
    out, st3 = play(st, {"kind": "air_strike", "from": "P1", "target": "TF1"}, dice)
    cap = events_of(out, "PlayerAirAction")[0]["detail"]["cap"]
    assert (cap["squadrons"], cap["strength"]) == (["kiev:M"], 2)
    out, st3 = finish(st3, dice)
    assert not [e for e in acts(out, "air strike") if e["detail"]["group"] == "TF1"]
    assert not [p for _, p in rolled(dice) if p.startswith("TF1")]
    assert st3["strikes"]["TF1"] == 2
    while (st3["turn"], st3["phase"]) != (4, "Strike"):
        _, st3 = finish(st3, dice)
    out, st4 = play(st3, {"kind": "air_strike", "from": "P1", "target": "TF1"}, dice)
    cap = events_of(out, "PlayerAirAction")[0]["detail"]["cap"]
    assert (sorted(cap["squadrons"]), cap["strength"]) == (["kiev:L", "kiev:M"], 4)
    out, st4 = finish(st4, dice)
    assert [e["detail"]["group"] for e in acts(out, "air strike")] == ["TF1"] and st4["strikes"]["TF1"] == 4


# ---- STF 9.4, 9.5: hits reported in a Strike phase ground the airbase that phase and the next turn --
def test_stf_9_4_and_9_5_an_airbase_hit_three_times_launches_nothing_that_turn_nor_the_next_and_again_after_one_repair():
    """9.4: "All hits on airbases are cumulative. If an airbase suffers 3 hits it cannot launch
    aircraft." 9.5: "Airbases repair 1 hit per turn if they are not attacked that turn." Turn 2:
    the Player's strike on Latakia scores 3 hits, reported in the Strike phase; the GameSystem's
    part of that phase launches nothing from it, and the Terminal phase repairs nothing (attacked
    this turn). Turn 3: still 3 hits, nothing launched; its Terminal phase repairs one. Turn 4:
    with 2 hits it strikes the Player's carrier again."""
    from tests.unit.stf.test_air import player_strike_state
    st = player_strike_state()
    del st["groups"]["TF1"]
    st["turn"] = 2
    st["campaign"]["ground_aviation"] = {"Player": 0, "system": 2}
    dice = DiceBy()
    _, st = play(st, {"kind": "air_strike", "from": "P1", "target": "Latakia"}, dice)
    _, st = play(st, {"kind": "report", "airbase_hits": {"Latakia": 3}}, dice)
    seen = []
    while (st["turn"], st["phase"]) != (4, "Combat"):
        at = (st["turn"], st["phase"])
        out, st = finish(st, dice)
        seen.append((at, st["airbases"]["Latakia"]["hits"], [e["detail"]["group"] for e in acts(out, "air strike")]))
    strikes_by_turn = {t: g for (t, ph), _, g in seen if ph == "Strike"}
    hits_after_terminal = {t: h for (t, ph), h, _ in seen if ph == "Terminal"}
    assert strikes_by_turn == {2: [], 3: [], 4: ["Latakia"]}
    assert hits_after_terminal == {2: 3, 3: 2}


# ---- STF 6.3, 6.4: a false contact found in turn 2 comes back in turn 3's Random Events Phase -------
def test_stf_6_3_a_false_contact_removed_in_the_patrol_phase_is_redeployed_only_in_the_next_turns_random_events_phase():
    """6.3: "A task force or subron counter which was removed in the preceding turn (due to
    searching showing that it was a false report) can be redeployed." 6.4: "Each turn after the
    first, during the Random Events Phase, deploy one third of all task forces and subrons which
    are currently off the map (round fractions up)"; 6.5 a die for the outer hex; 6.6 EMCON side
    up. Turn 2, Patrol: a search of TF3 reads Approximate and the false-contact die is even: TF3
    leaves the map, and no die places it in the rest of turn 2. Turn 3's Random Events Phase, once
    the random event is declared: the Starting Megahex Table's d10 and the outer hex's d6 put it
    back, a new contact with no chit."""
    from tests.unit.stf.helpers import search_state
    st = search_state(system_group("TF3", hex="1805"), commitment={"Player": {"points": 14, "carriers": 1},
                                                                   "system": 45})
    st["turn"] = 2
    dice = DiceBy(search_TF3=5, a_false_or_a_hostile_contact=2)
    _, st = play(st, {"kind": "search", "group": "TF3", "search_value": 5}, dice)
    assert st["groups"]["TF3"]["status"] == "false contact" and st["groups"]["TF3"]["hex"] is None
    rolled(dice)
    while st["phase"] != "Random Events":
        _, st = finish(st, dice)
        assert st["groups"]["TF3"]["hex"] is None
    assert st["turn"] == 3 and not [p for _, p in rolled(dice) if "TF3" in p]
    out, st = finish(st, dice)
    assert [(r, "TF3" in p) for r, p in rolled(dice) if "TF3" in p] == [("STF 6.3", True), ("STF 6.5", True)]
    tf3 = st["groups"]["TF3"]
    assert (tf3["status"], tf3["intel"], tf3["chit"], tf3["emcon"]) == ("on map", "unknown", None, True)
    assert [e["rule"] for e in events_of(out, "GroupPlaced")] == ["STF 6.3"]


# ---- STF 1.11: the GameSystem's invasion ends when the surface limit is reached with no CV revealed --
def test_stf_1_11_the_invasion_is_off_from_the_search_that_reaches_the_surface_limit_and_the_next_movement_is_7_5():
    """1.11: "If the GameSystem is conducting the invasion, the freighters are in the task force of
    the first revealed CV. If no CV is revealed by the time the surface commitment limit is reached,
    there is no Invasion." 7.4 then no longer applies. Commitment 45 (15 kept for submarines,
    1.10): a search makes TF1 Accurate and large (30 points, 8.12) with no CV revealed: from that
    search on there is no invasion, and in the next Movement phase TF1 makes for the Player's task
    force (7.5), not for the target megahex (7.4)."""
    from tests.unit.stf.helpers import search_state
    st = search_state(system_group("TF1", hex="2005", chit="Tracked", intel="good"), invader="system",
                      mission="Sov Inv", invasion_target=12)
    st["groups"]["P1"]["units"] = ["p1"]
    st["units"]["p1"] = {**ship("DD", 4, nation="US"), "id": "p1", "group": "P1"}
    st["groups"]["P1"]["hex"] = "1405"
    dice = DiceBy(search_TF1=6, its_size=6)  # 6 - 2 (Tracked) = 4: Accurate
    out, st = play(st, {"kind": "search", "group": "TF1", "search_value": 6}, dice)
    assert st["groups"]["TF1"]["intel"] == "accurate" and st["deployment"]["total"] == 30
    assert st["campaign"]["invader"] is None and st["campaign"]["invasion_cancelled"] is True
    while st["phase"] != "Movement":
        _, st = finish(st, dice)
    out, st = finish(st, dice)
    assert [e["rule"] for e in events_of(out, "GroupMoved") if e["group"] == "TF1"] == ["STF 7.5"]
