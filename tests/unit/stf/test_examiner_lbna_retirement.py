"""STF 2.6-2.6.5 (land-based naval aviation) and 12.1-12.7 (retirement) played across turns, against
the text (../shared/rules/003_74ca0e4e298164eb.txt), as an examiner would: through the phase where
each acts and the turns after, checking which dice are rolled when, for what, and what persists."""

from __future__ import annotations

import pytest

from domain.rulesets.toolkit.engine import RuleViolation
from domain.rulesets.stf import maps
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, events_of, play, rolls_of, ship
from tests.unit.stf.test_examiner_timing import acts, finish, rolled


def _to(st: dict, dice, turn: int, phase: str) -> tuple[list, dict]:
    outs: list = []
    while (st["turn"], st["phase"]) != (turn, phase):
        out, st = finish(st, dice)
        outs += out
    return outs, st


def _lbna_state(phase: str, player: str = "US") -> dict:
    st = combat_state(phase, commitment=45, lbna_available=True, player_airbases=[], system_airbase=None,
                      ground_aviation={"Player": 0, "system": 0})
    if player == "Soviet":
        st["campaign"].update({"player_side": "Soviet", "system_side": "US"})
    return st


# ---- STF 2.6.3-2.6.5: the GameSystem's LBNA, turn after turn --------------------------------------
def test_stf_2_6_3_the_gamesystem_rolls_its_lbna_once_each_turn_in_the_strike_phase_and_2_6_5s_drm_carries_over():
    """2.6.3: "roll 1d6 each turn, in the Strike Segment. On 1-3, it is a Backfire, on 4-6 it is a
    Badger"; 2.6.4: "Again, roll 1d6. If a '1' is rolled, [it] locates the player task force closest
    to the Soviet map edge ... anything else ... is removed from the game"; 2.6.5: each Precise
    identification is -1 to subsequent LBNA search rolls. Two Player task forces: still one pair of
    dice a turn (not one per group), in the Strike phase only; turn 2 a Badger misses (removed, no
    drm); turn 3 a Backfire finds P1 on a natural 1; turn 4 a 2 less 1 locates again."""
    st = _lbna_state("Movement")
    add_group(st, "P1", "Player", "1405", {"p1": ship("DD", 4, nation="US")})
    add_group(st, "P2", "Player", "0405", {"p2": ship("DD", 4, nation="US")})
    dice = FixedDice(default=6)
    _, st = _to(st, dice, 2, "Strike")
    assert not [r for r, _ in rolled(dice) if r.startswith("STF 2.6")]  # nothing before the Strike phase
    dice.faces = [5, 2]
    out, st = finish(st, dice)  # turn 2's Strike phase
    assert [r for r, _ in rolled(dice) if r.startswith("STF 2.6")] == ["STF 2.6.3", "STF 2.6.4"]
    assert st["lbna"] == {"used": {"badger": 1}} and not acts(out, "LBNA missile attack")
    _, st = _to(st, dice, 3, "Strike")
    assert not [r for r, _ in rolled(dice) if r.startswith("STF 2.6")]  # none in the Terminal phase or after
    dice.faces = [2, 1]
    out, st = finish(st, dice)
    calls = [c for c in dice.calls if c["rule"].startswith("STF 2.6")]
    assert [c["rule"] for c in calls] == ["STF 2.6.3", "STF 2.6.4"]
    rolled(dice)
    attack = acts(out, "LBNA missile attack")
    assert len(attack) == 1 and attack[0]["detail"]["unit"] == "backfire"
    assert st["lbna"]["used"] == {"badger": 1, "backfire": 1} and st["lbna"]["located"] == [attack[0]["detail"]["target"]]
    _, st = _to(st, dice, 4, "Strike")
    dice.faces = [6, 2]  # a Badger; 2 - 1 = 1: located
    out, st = finish(st, dice)
    search = [r for r in rolls_of(out) if r.rule == "STF 2.6.4"]
    assert len(search) == 1 and search[0].target["modified"] == 1
    assert len(acts(out, "LBNA missile attack")) == 1
    assert st["lbna"]["used"] == {"badger": 2, "backfire": 1}


# ---- STF 2.6.1, 2.6.2: the Player's LBNA, turn after turn -----------------------------------------
def test_stf_2_6_1_a_soviet_player_patrols_once_a_turn_again_next_turn_and_the_gamesystem_rolls_no_lbna():
    """2.6.1: "he may conduct a maximum of one Backfire or one Badger patrol per turn ... in the
    Patrol Segment"; 2.6: "These 12 units may only be used once each". Turn 2: a Badger patrols,
    a second patrol is refused; the US GameSystem rolls no LBNA dice (2.6.3 is the Soviet
    GameSystem's) in the Strike phase; turn 3: a Backfire may patrol, and the Badger stays used."""
    st = _lbna_state("Patrol", player="Soviet")
    add_group(st, "P1", "Player", "0105", {"p1": ship("DD", 4)})
    add_group(st, "TF1", "system", "2305", {"d1": ship("DD", 4, nation="US", gun="C")}, chit="Captain", size="small")
    mh = int(maps.megahex_number("giuk", "2305"))
    dice = FixedDice(default=1)
    _, st = play(st, {"kind": "lbna_patrol", "unit": "badger", "megahex": mh}, dice)
    assert st["lbna"] == {"used": {"badger": 1}, "patrol_turn": 2}
    with pytest.raises(RuleViolation) as err:
        play(st, {"kind": "lbna_patrol", "unit": "backfire", "megahex": mh}, dice)
    assert err.value.rule == "STF 2.6.1"
    out, st = _to(st, dice, 3, "Patrol")
    assert not [r for r, _ in rolled(dice) if r.startswith("STF 2.6")]
    mh = int(maps.megahex_number("giuk", st["groups"]["TF1"]["hex"]))
    out, st = play(st, {"kind": "lbna_patrol", "unit": "backfire", "megahex": mh}, dice)
    assert st["lbna"]["used"] == {"badger": 1, "backfire": 1} and st["lbna"]["patrol_turn"] == 3
    assert events_of(out, "PlayerAirAction")[0]["detail"]["groups"] == ["TF1"]


# ---- STF 12.7: a carrier retiring across turns ------------------------------------------------------
def test_stf_12_7_a_carrier_retires_over_turns_with_its_three_best_frigates_and_at_base_the_escorts_go_on():
    """12.7: "A CV ... with an inoperable flight deck, must retire. It will take with it the three best
    frigates ... Upon reaching the base the CV is removed from the task force and the escort force may
    continue in the game as a SAG"; 12.9: not destroyed for VPs. Turn 2's Terminal phase splits
    the carrier and its best three frigates (ASW 3, 2, 1) from the rest; it is not split again
    the turns after; it sails towards its base each Movement phase; there the CV leaves, with no
    VP to the index, and the frigates go on, no longer retiring."""
    from domain.rulesets.stf import retirement
    st = combat_state("Terminal", commitment=45)
    add_group(st, "P1", "Player", "0105", {"p1": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "2305", {"kv": ship("CV", 10, flight_deck_inoperable=True, air={"L": 2, "M": 2, "H": 2}),
                                            **{f"f{i}": ship("FF", 2, asw=i) for i in range(4)}, "cg": ship("CG", 5)})
    dice = FixedDice(default=3)
    out, st = finish(st, dice)
    assert st["groups"]["TF1"]["units"] == ["f0", "cg"]
    tf2 = st["groups"]["TF2"]
    assert sorted(tf2["units"]) == ["f1", "f2", "f3", "kv"] and tf2["retiring"] is True
    dest, start = tf2["destination"], tf2["hex"]
    assert any(dest in base for base in retirement.bases(st, "Soviet"))
    seen = []
    while "kv" in st["groups"]["TF2"]["units"]:
        assert st["turn"] < 8
        out, st = finish(st, dice)
        assert sorted(st["groups"]) == ["P1", "TF1", "TF2"]  # never split again
        seen.append(st["groups"]["TF2"]["hex"])
    tf2 = st["groups"]["TF2"]
    assert tf2["hex"] == dest and tf2["retiring"] is False and sorted(tf2["units"]) == ["f1", "f2", "f3"]
    assert st["units"]["kv"].get("retired") is True and not st["units"]["kv"].get("sunk")
    assert retirement.index(st) == 0
    _, st = _to(st, dice, st["turn"] + 1, "Terminal")
    assert sorted(st["groups"]["TF2"]["units"]) == ["f1", "f2", "f3"] and st["groups"]["TF2"]["status"] == "on map"


# ---- STF 12.5 with 12.7: the whole GameSystem retires while a carrier is already retiring ----------
def test_stf_12_5_when_all_retire_the_carriers_escorts_retire_with_it_and_leave_at_base():
    """12.5: on a '1' "all the GameSystem units retire towards their nearest 'Base' hex"; 12.9 "On
    reaching the 'Base' hex, retiring units are removed from the map". A carrier group retiring
    under 12.7 when the whole GameSystem retires: at the base its escorts do not go on as a SAG."""
    st = combat_state("Terminal", commitment=20)
    add_group(st, "P1", "Player", "0105", {"p1": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "2305", {"kv": ship("CV", 10, flight_deck_inoperable=True, air={"L": 2, "M": 2, "H": 2}),
                                            **{f"f{i}": ship("FF", 2, asw=i) for i in range(3)}})
    add_group(st, "TF9", "system", "2005", {"x1": ship("CG", 11), "x2": ship("CG", 11)})
    st["units"]["x1"]["sunk"] = st["units"]["x2"]["sunk"] = True  # index 22 > limit 10; net 22 >= 66% of 20
    dice = FixedDice(default=5)
    out, st = finish(st, dice)  # turn 2's Terminal phase: 12.6's die, a 5: all retire
    assert st["campaign"]["system_retiring"] == 2 and st["groups"]["TF1"]["retiring"] is True
    for _ in range(40):
        if st["groups"]["TF1"].get("status") != "on map":
            break
        out, st = finish(st, dice)
    assert st["groups"]["TF1"]["status"] == "retired"
    assert all(st["units"][u].get("retired") for u in ("kv", "f0", "f1", "f2"))
