"""Examiner's audit of every table of Solitaire Task Force (../shared/rules/003_74ca0e4e298164eb.txt):
each row (every die, every modifier that moves the roll, the ends of the table) played THROUGH the rules
code with fixed dice, checking what the game then does (the mission, the limits, the level, the number
of squadrons, the megahex a counter is placed in, the units drawn, the squadrons an air strike sends).

The tables' data are already checked row by row against the text in test_campaign.py, test_composition.py,
test_air.py and test_movement.py; this file does not repeat that: here the text's rows are copied as
expected values and compared with what the game does."""

from __future__ import annotations

import copy
import math
from collections import Counter

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import air, campaign as C, composition, maps, movement
from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.toolkit.engine import Ctx
from tests.unit.stf.helpers import (FixedDice, at_phase, counter, events_of, initial, play, rolls_of, run_step,
                                    search_state, system_group)


class RuleDice(FixedDice):
    """Dice answering by the rule a roll is made for: ``RuleDice({"STF 1.2": [4], "STF 2.1": [3, 5]})``;
    a roll of a rule not given (or past its faces) comes up ``default``."""

    def __init__(self, faces: dict, default: int = 1):
        super().__init__(default=default)
        self.by_rule = {k: list(v) for k, v in faces.items()}

    def roll(self, count, sides, *, seat, purpose, rule=None, units=(), replaces=None, notation=None):
        queue = self.by_rule.get(rule) or []
        self.faces = [queue.pop(0) if queue else self.default for _ in range(count)]
        return super().roll(count, sides, seat=seat, purpose=purpose, rule=rule, units=units, replaces=replaces,
                            notation=notation)


def play_campaign(map_name: str, side: str, faces: dict) -> tuple[list, dict]:
    """The Player's campaign order on a named map, with no airbase to choose (``airbases: []``)."""
    return play(initial(), {"kind": "campaign", "map": map_name, "side": side, "airbases": []}, RuleDice(faces))


def rolls(out: list, rule: str) -> list:
    return [r for r in rolls_of(out) if r.rule == rule]


BATTLE_DIE = {"caribbean": 6, "giuk": 2, "mediterranean": 3}  # a die the map's modifier turns into a Battle
MAPS = ("caribbean", "giuk", "mediterranean")
SIDES = ("US", "Soviet")


# ---- STF 1.2: the Mission Table, through the campaign order ----------------------------------------------
MISSION_ROW = ["US Inv", "US Inv", "Battle", "Battle", "Sov Inv", "Sov Inv"]   # the text's dice 1-6
MISSION_MODIFIER = {"caribbean": -2, "giuk": 1, "mediterranean": 0}            # "Caribbean -2; GIUK +1; Mediterranean +0"


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("map_name", MAPS)
def test_stf_table_mission_every_die_on_every_map_through_the_campaign(map_name, die):
    """1.2: "Determine the type of mission, by rolling 1D6, modified by the following: Caribbean -2;
    GIUK +1; Mediterranean +0". A modified roll below 1 or above 6 reads the end row (the only row
    such a roll can mean: below 1 is no other mission than the lowest)."""
    modified = die + MISSION_MODIFIER[map_name]
    mission = MISSION_ROW[min(max(modified, 1), 6) - 1]
    for side in SIDES:
        out, st = play_campaign(map_name, side, {"STF 1.2": [die]})
        (roll,) = rolls(out, "STF 1.2")
        assert roll.values == [die] and roll.target["modified"] == modified
        assert st["campaign"]["mission"] == mission
        invading = {"US Inv": "US", "Sov Inv": "Soviet", "Battle": None}[mission]
        assert st["campaign"]["invader"] == (None if invading is None else "Player" if invading == side else "system")
        assert len(rolls(out, "STF 1.11")) == (0 if invading is None else 1)   # only an invasion rolls a target


# ---- STF 1.5, 1.6: the Commitment Limit Table, through the campaign order ------------------------------
COMMITMENT_ROWS = {2: (24, 0, 28), 3: (28, 0, 32), 4: (32, 0, 36), 5: (14, 1, 45), 6: (17, 1, 48), 7: (21, 1, 52),
                   8: (35, 1, 66), 9: (35, 2, 93), 10: (40, 2, 98), 11: (50, 2, 108), 12: (55, 2, 113)}


def two_dice(total: int) -> list[int]:
    return [1, total - 1] if total <= 7 else [total - 6, 6]


@pytest.mark.parametrize("total", sorted(COMMITMENT_ROWS))
@pytest.mark.parametrize("map_name, side", [("giuk", "US"), ("mediterranean", "Soviet"), ("caribbean", "US"),
                                            ("caribbean", "Soviet")])
def test_stf_table_commitment_limit_every_2d6_total_with_the_caribbean_adjustment(map_name, side, total):
    """1.5: "Roll the 2D6 once and read across for both commitment limits" (X/Y: X points for units
    other than carriers, Y carriers); 1.6: "If using the Caribbean Map, the US commitment limit is
    increased by 5 and the Soviet commitment limit is decreased by 5" (the carriers, Y, unchanged)."""
    points, carriers, system = COMMITMENT_ROWS[total]
    out, st = play_campaign(map_name, side, {"STF 1.2": [BATTLE_DIE[map_name]], "STF 1.5": two_dice(total)})
    (roll,) = rolls(out, "STF 1.5")
    assert roll.notation == "2d6" and roll.target["row"] == str(total)
    us, soviet = (5, -5) if map_name == "caribbean" else (0, 0)
    player_adjust, system_adjust = (us, soviet) if side == "US" else (soviet, us)
    assert st["campaign"]["commitment"] == {"Player": {"points": points + player_adjust, "carriers": carriers},
                                            "system": system + system_adjust,
                                            "system_submarines": (system + system_adjust) // 3}   # STF 1.10


@pytest.mark.parametrize("total", sorted(COMMITMENT_ROWS))
def test_stf_table_commitment_limit_the_player_draws_y_carriers_and_buys_within_x_points(total):
    """1.5: "Y is the number of aircraft carriers in your force", X "the number of points that may be
    spent on units other than aircraft carriers": the Forces phase draws Y carriers (none offered at
    0) and refuses a purchase over X."""
    points, carriers, _ = COMMITMENT_ROWS[total]
    _, st = play_campaign("giuk", "US", {"STF 1.2": [2], "STF 1.5": two_dice(total)})
    assert st["phase"] == "Forces"
    offered = [o for o in stf_rules_legal(st) if o["kind"] == "draw_carriers"]
    if carriers == 0:
        assert offered == []
        with pytest.raises(RuleViolation) as refused:
            play(st, {"kind": "draw_carriers"}, FixedDice(default=1))
        assert refused.value.rule == "STF 1.5"
    else:
        out, st = play(st, {"kind": "draw_carriers"}, FixedDice(default=1))
        assert len(st["campaign"]["player_carriers"]) == carriers
        assert all(st["units"][c]["class"] == "CV" for c in st["campaign"]["player_carriers"])
    # X: units other than carriers bought for X points are accepted, for X + 1 or more refused
    from domain.rulesets.stf import forces
    pool = st.get("pool") or forces.pool_from_countermix()
    nation = st["campaign"].get("player_nation", "US")
    cheap = sorted((c for c, u in pool.items() if u["nation"] == nation and u["class"] not in ("CV", "FR")),
                   key=lambda c: (forces.value(pool[c]), c))
    over, cost = [], 0
    for c in cheap:
        over.append(c)
        cost += forces.value(pool[c])
        if cost > points:
            break
    assert cost > points
    with pytest.raises(RuleViolation) as refused:
        play(st, {"kind": "buy", "units": over}, FixedDice(default=1))
    assert refused.value.rule == "STF 1.5" and f"over the commitment limit of {points}" in str(refused.value)


def stf_rules_legal(st: dict) -> list[dict]:
    from tests.unit.stf.helpers import R
    return R.legal_orders(st, "Player")


# ---- STF 1.11: the Invasion Target Megahex Table, through the campaign order ---------------------------
INVASION_ROWS = {  # the text's columns: (map, invading nation) -> dice 1-6 (a mark: its footnote)
    ("caribbean", "US"): ["19", "19", "19", "19", "13", "13"],
    ("giuk", "US"): ["64", "64", "64", "30", "12*", "12*"],
    ("giuk", "Soviet"): ["12", "12", "12", "12", "30", "30"],
    ("mediterranean", "US"): ["99**", "128", "61", "159", "136", "165"],
    ("mediterranean", "Soviet"): ["136", "170", "42", "26", "26", "26"],
}
FOOTNOTE = {"*": "Neskaupstadur", "**": "Suda Bay"}   # "* Cannot use Neskaupstadur airbase", "** Cannot use Suda Bay airbase"
MISSION_DIE = {("caribbean", "US"): 1, ("giuk", "US"): 1, ("giuk", "Soviet"): 6, ("mediterranean", "US"): 1,
               ("mediterranean", "Soviet"): 6}


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("map_name, invading", sorted(INVASION_ROWS))
def test_stf_table_invasion_target_every_die_in_every_column_through_the_campaign(map_name, invading, die):
    """1.11: "The side conducting an Invasion rolls on the Invasion Target Megahex Table"; its
    footnotes: "* Cannot use Neskaupstadur airbase", "** Cannot use Suda Bay airbase" (the invader's)."""
    cell = INVASION_ROWS[(map_name, invading)][die - 1]
    number, mark = int(cell.rstrip("*")), cell[len(cell.rstrip("*")):]
    for side in SIDES:
        out, st = play_campaign(map_name, side, {"STF 1.2": [MISSION_DIE[(map_name, invading)]], "STF 1.11": [die]})
        invader = "Player" if side == invading else "system"
        assert st["campaign"]["invader"] == invader
        (roll,) = rolls(out, "STF 1.11")
        assert roll.target["column"] == f"{C.MAPS[map_name]['column']} {'US' if invading == 'US' else 'Sov'}"
        assert st["campaign"]["invasion_target"] == number
        assert number in maps.megahex_numbers(map_name)        # a megahex the map has: the one the invaders make for
        barred = st["campaign"].get("airbase_barred")
        if mark:
            assert barred["seat"] == invader and barred["airbase"] == FOOTNOTE[mark]
            assert FOOTNOTE[mark] not in C.allowed_airbases(st, invader)
            assert FOOTNOTE[mark] not in (st["campaign"].get("player_airbases") or []) + [st["campaign"]["system_airbase"]]
        else:
            assert barred is None


# ---- STF 2.1: the Ground Aviation Table, through the campaign order and the GameSystem's airbase --------
GROUND_AVIATION_ROWS = {  # (map, nation) -> dice 1-6
    ("caribbean", "US"): [0, 1, 1, 2, 2, 2], ("caribbean", "Soviet"): [0, 1, 2, 2, 2, 2],
    ("giuk", "US"): [0, 1, 1, 2, 2, 3], ("giuk", "Soviet"): [0, 0, 0, 0, 0, 0],
    ("mediterranean", "US"): [1, 1, 2, 2, 3, 3], ("mediterranean", "Soviet"): [1, 2, 2, 2, 2, 2],
}


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("side", SIDES)
def test_stf_table_ground_aviation_every_die_for_each_side_and_the_squadrons_the_gamesystem_flies(side, map_name, die):
    """2.1: "roll 1D6 once for each side on the relevant ground aviation table, which determines the
    number of squadrons available for ground aviation": the Player's die and the GameSystem's die
    each read the column of its own map and nationality, and the GameSystem's one airbase (2.2)
    then has that many squadrons to fly."""
    other = 7 - die
    system_side = "Soviet" if side == "US" else "US"
    _, st = play_campaign(map_name, side, {"STF 1.2": [BATTLE_DIE[map_name]], "STF 2.1": [die, other]})
    assert st["campaign"]["ground_aviation"] == {"Player": GROUND_AVIATION_ROWS[(map_name, side)][die - 1],
                                                 "system": GROUND_AVIATION_ROWS[(map_name, system_side)][other - 1]}
    base = st["campaign"]["system_airbase"]
    if base is not None:
        st["campaign"]["system_side"] = st["campaign"]["system_side"] or "US"
        assert len(air.squadrons(st, base)) == GROUND_AVIATION_ROWS[(map_name, system_side)][other - 1]


# ---- STF 3.1: the Surveillance Table, through the campaign order -----------------------------------------
SURVEILLANCE_ROWS = {
    ("caribbean", "US"): ["A", "H", "H", "VH", "VH", "VH"], ("caribbean", "Soviet"): ["L", "A", "A", "A", "H", "H"],
    ("giuk", "US"): ["L", "A", "A", "H", "H", "VH"], ("giuk", "Soviet"): ["A", "A", "H", "H", "H", "VH"],
    ("mediterranean", "US"): ["A", "A", "H", "H", "H", "VH"],
    ("mediterranean", "Soviet"): ["A", "A", "H", "H", "VH", "VH"],
}


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("side", SIDES)
def test_stf_table_surveillance_every_die_for_the_players_side(side, map_name, die):
    """3.1: "roll 1D6 for the player only on the relevant surveillance table": one roll, in the
    column of the map and the Player's nationality."""
    out, st = play_campaign(map_name, side, {"STF 1.2": [BATTLE_DIE[map_name]], "STF 3.1": [die]})
    assert len(rolls(out, "STF 3.1")) == 1
    assert st["campaign"]["surveillance"] == SURVEILLANCE_ROWS[(map_name, side)][die - 1]


# ---- STF 4.1: the Tactical Coordination Value Table, through the campaign order --------------------------
TACTICAL_ROWS = {"US": [1, 2, 2, 2, 2, 3], "Soviet": [2, 2, 3, 3, 4, 4]}


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("side", SIDES)
def test_stf_table_tactical_coordination_every_die_for_each_side(side, die):
    """4.1: "roll 1D6 once for each side on the relevant tactical coordination value table" (a US
    and a Sov column, whatever the map)."""
    other = 7 - die
    system_side = "Soviet" if side == "US" else "US"
    for map_name in MAPS:
        _, st = play_campaign(map_name, side, {"STF 1.2": [BATTLE_DIE[map_name]], "STF 4.1": [die, other]})
        assert st["campaign"]["tactical"] == {"Player": TACTICAL_ROWS[side][die - 1],
                                              "system": TACTICAL_ROWS[system_side][other - 1]}


# ---- STF 6.1, 6.2, 6.4: the Starting Megahex Table -------------------------------------------------------
STARTING_ROWS = {  # map -> rows 1-10 of the text: US TF, US Sub, Sov TF, Sov Sub
    "caribbean": [(9, 10, 19, 19), (15, 17, 14, 18), (16, 24, 20, 19), (23, 18, 18, 18), (54, 47, 12, 12),
                  (62, 55, 13, 20), (61, 52, 7, 28), (68, 59, 28, 6), (60, 66, 11, 11), (53, 51, 19, 17)],
    "giuk": [(1, 13, 63, 49), (3, 14, 64, 50), (4, 15, 60, 51), (6, 20, 61, 52), (7, 21, 62, 58), (8, 22, 55, 41),
             (9, 23, 56, 42), (46, 28, 57, 43), (47, 53, 49, 44), (54, 45, 50, 35)],
    "mediterranean": [(26, 46, 80, 77), (36, 37, 88, 78), (27, 28, 89, 79), (17, 19, 98, 70), (37, 47, 108, 90),
                      (28, 38, 98, 139), (176, 161, 128, 130), (170, 152, 119, 121), (163, 143, 129, 112),
                      (162, 151, 120, 131)],
}
STARTING_COLUMN = {("US", "tf"): 0, ("US", "subron"): 1, ("Soviet", "tf"): 2, ("Soviet", "subron"): 3}


def placed(st: dict, map_name: str, gid: str, kind: str, die: int, rule: str = "STF 6.2") -> dict:
    ctx = Ctx(copy.deepcopy(st), FixedDice(die, 1), stf_rules.HOOKS)
    movement.place_system_group(ctx, map_name, gid, kind, rule)
    (event,) = events_of(ctx.out, "GroupPlaced")
    return event["group"]


@pytest.mark.parametrize("die", range(1, 11))
@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("system_side", ["Soviet", "US", "NATO", None])
def test_stf_table_starting_megahex_every_row_places_the_gamesystems_tf_and_subron_in_its_column(system_side, map_name, die):
    """6.2: "the GameSystem has 6 task forces and 5 subrons placed according to the appropriate
    Starting Megahex Table": a task force by the TF column, a subron by the Sub column, of its nation
    (US for US and NATO; a Soviet Player's enemy not yet known reads the US columns: whichever it
    turns out to be, US or NATO, is western)."""
    st = at_phase(initial(), "Deployment", turn=0)
    st["campaign"].update({"map": map_name, "player_side": "US" if system_side == "Soviet" else "Soviet",
                           "system_side": system_side})
    column_nation = "Soviet" if system_side == "Soviet" else "US"
    for gid, kind in (("TF1", "tf"), ("SR1", "subron")):
        group = placed(st, map_name, gid, kind, die)
        expected = STARTING_ROWS[map_name][die - 1][STARTING_COLUMN[(column_nation, kind)]]
        assert maps.megahex_number(map_name, group["hex"]) == expected, (gid, group["placed"])
        assert group["placed"].startswith(f"megahex {expected},")
        assert not maps.is_land(map_name, group["hex"])


@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("side", SIDES)
def test_stf_table_starting_megahex_the_player_deploys_in_any_megahex_of_his_column_and_no_other(side, map_name):
    """6.1: "Friendly task forces and subrons are placed first, and may be placed in ANY of the
    relevant Megahexes for that country listed on the Starting Megahex Table"."""
    for kind, column in (("tf", "TF"), ("subron", "Sub")):
        listed = {row[STARTING_COLUMN[(side, kind)]] for row in STARTING_ROWS[map_name]}
        assert set(movement.starting_megahexes(map_name, side, column)) == listed
        st = at_phase(initial(), "Deployment", turn=0)
        st["campaign"].update({"map": map_name, "player_side": side, "system_side": None})
        st["groups"] = {"P1": {"id": "P1", "owner": "Player", "kind": kind, "hex": None, "units": [],
                               "status": "on map"},
                        "P2": {"id": "P2", "owner": "Player", "kind": kind, "hex": None, "units": [],
                               "status": "on map"}}
        for number in sorted(listed):
            _, after = play(st, {"kind": "deploy", "group": "P1", "megahex": number})
            assert maps.megahex_number(map_name, after["groups"]["P1"]["hex"]) == number
        other = {row[c] for row in STARTING_ROWS[map_name] for c in range(4)} - listed
        for number in sorted(other):
            with pytest.raises(RuleViolation) as refused:
                play(st, {"kind": "deploy", "group": "P1", "megahex": number})
            assert refused.value.rule == "STF 6.1"


# ---- STF 8.7: the Precise Composition Tables, through composition.reveal -------------------------------
US_ROWS = {  # the text's rows 1-10: Captain TF, Captain Sub, Commodore TF, Commodore Sub, Rear Admiral TF, Rear Admiral Sub
    1: ["3FF", "1SSN", "1DD 1FF", "1SSN", "3DD 3FF", "1SSN"],
    2: ["3FF", "1SSN", "1DD 2FF", "1SSN", "1CG 3DD 3FF", "2SSN"],
    3: ["3FF", "1SSN", "1DD 3FF", "1SSN", "2CG 3DD 3FF", "2SSN"],
    4: ["4FF", "1SSN", "2DD 2FF", "1SSN", "1BB 2CG 3DD 4FF", "2SSN"],
    5: ["4FF", "1SSN", "2DD 3FF", "2SSN", "3CG 3DD 3FF", "3SSN"],
    6: ["6FF", "1SSN", "1CG 1DD 3FF", "2SSN", "1CV 2CG 2DD 3FF", "3SSN"],
    7: ["1DD 1FF", "1SSN", "2CG 2DD 2FF", "2SSN", "1CV 1BB 2CG 3DD 4FF", "3SSN"],
    8: ["1DD 2FF", "2SSN", "1BB 1CG 2DD 2FF", "2SSN", "1CV 1BB 2CG 4DD 4FF", "3SSN"],
    9: ["1DD 3FF", "2SSN", "1BB 2CG 3DD 3FF", "2SSN", "2CV 2CG 3DD 4FF", "4SSN"],
    10: ["2DD 3FF", "2SSN", "1BB 2CG 3DD 4FF", "3SSN", "2CV 3CG 4DD 4FF", "4SSN"],
}
SOVIET_ROWS = {
    1: ["3PC", "1SS", "6PC", "1SS", "11PC", "1SS"],
    2: ["3PC", "1SS", "6FF", "1SS", "2CG 3DD 3FF", "2SS"],
    3: ["4PC", "1SS", "1DD 3FF", "2SS", "3CG 3DD 3FF", "3SS"],
    4: ["4PC", "2SS", "2DD 3FF", "2SS", "4CG 4DD 4FF", "3SS"],
    5: ["4PC", "2SS", "3DD 3FF", "3SS", "1CV 1CG 1DD 3FF", "4SS"],
    6: ["6PC", "1SSN", "4DD 4FF", "1SSN", "1CV 2CG 2DD 3FF", "1SSN"],
    7: ["1DD 1FF", "1SSN", "1CG 1CL 1DD 2FF", "1SSN", "1CV 2CG 3DD 4FF", "2SSN"],
    8: ["1DD 2FF", "1SSN", "2CG 2DD 2FF", "2SSN", "1CV 2CG 4DD 4FF", "3SSN"],
    9: ["1DD 3FF", "2SSN", "2CL 1CG 3DD 3FF", "2SSN", "2CV 2CG 3DD 4FF", "3SSN"],
    10: ["2DD 3FF", "2SSN", "3CG 3DD 4FF", "3SSN", "2CV 3CG 4DD 5FF", "4SSN"],
}
COLUMNS = [("small", "tf"), ("small", "subron"), ("medium", "tf"), ("medium", "subron"), ("large", "tf"),
           ("large", "subron")]
VALUES = {"US": {"CV": 25, "BB": 10, "CG": 6, "CL": 5, "DD": 4, "FF": 3, "PC": 2, "SSN": 5, "SS": 3},
          "Soviet": {"CV": 10, "BB": 10, "CG": 6, "CL": 5, "DD": 4, "FF": 3, "PC": 2, "SSN": 5, "SS": 3}}


def full_pool(nation: str) -> dict:
    """Twelve counters of every class (the countermix never runs short here), and for the US the
    fast resupply freighters of STF 1.12."""
    pool = {}
    for cls, v in VALUES[nation].items():
        for i in range(1, 13):
            cid = f"{nation[:3].lower()}-{cls.lower()}-{i}"
            pool[cid] = counter(cid, nation, cls, v)
    if nation == "US":
        for i in range(1, 5):
            pool[f"us-fr-{i}"] = counter(f"us-fr-{i}", "US", "FR", 0, role="fast resupply")
    return pool


def line_counts(line: str) -> Counter:
    return Counter({cls: int(n) for n, cls, _ in composition.parse_line(line)})


def revealed(nation: str, size: str, kind: str, die: int, *, total: int = 0, commitment: int = 108,
             **fields) -> tuple[list, dict, str]:
    gid = "TF1" if kind == "tf" else "SR1"
    group = system_group(gid, kind, intel="accurate", size=size, chit=composition.LEADERS[size], **fields)
    st = search_state(group, pool=full_pool(nation), player_side="Soviet" if nation == "US" else "US",
                      system_side=nation, commitment={"Player": {"points": 14, "carriers": 1}, "system": commitment})
    st["deployment"] = {"total": total, "groups": {}}
    ctx = Ctx(copy.deepcopy(st), FixedDice(die, default=1), stf_rules.HOOKS)
    composition.reveal(ctx, gid)
    return ctx.out, ctx.state, gid


def drawn(st: dict, gid: str) -> Counter:
    return Counter(st["units"][u]["class"] for u in st["groups"][gid]["units"])


@pytest.mark.parametrize("row", range(1, 11))
@pytest.mark.parametrize("nation, rows", [("US", US_ROWS), ("Soviet", SOVIET_ROWS)], ids=["US", "Soviet"])
def test_stf_table_precise_composition_every_row_and_column_draws_the_units_it_lists(nation, rows, row):
    """8.7: "When the size is known, roll on the Exact Composition Chart" (the Precise Composition
    Table of the GameSystem's nation), in the column of its leader (size) and kind; 8.10: the units
    drawn from the countermix; 8.12/8.13: the deployment total readjusted to the exact cost; 1.12:
    a US carrier comes with its free fast resupply freighter."""
    for (size, kind), line in zip(COLUMNS, rows[row]):
        out, st, gid = revealed(nation, size, kind, row)
        roll = rolls_of(out)[0]
        assert roll.notation in ("d10", "1d10") and roll.target["row"] == str(row) and roll.target["modifiers"] == []
        want = line_counts(line)
        if nation == "US" and want.get("CV"):
            want["FR"] = want["CV"]
        assert drawn(st, gid) == want, (size, kind, line)
        assert st["groups"][gid]["intel"] == "precise"
        cost = sum(VALUES[nation][cls] * n for cls, n in line_counts(line).items())
        assert st["deployment"]["groups"][gid]["points"] == cost


@pytest.mark.parametrize("die", range(1, 11))
@pytest.mark.parametrize("nation, bonus, rows", [("US", 5, US_ROWS), ("Soviet", 4, SOVIET_ROWS)], ids=["US", "Soviet"])
def test_stf_table_precise_composition_a_revealed_air_strength_moves_every_die_and_the_top_clamps(nation, bonus, rows, die):
    """"If task force already has a revealed air strength, then add 5 to the die roll" (US), "add 4"
    (Soviet); a roll beyond 10 reads the last row: the Rear Admiral task force then always has its
    carrier (US rows 6-10, Soviet rows 5-10 all list a CV)."""
    row = min(die + bonus, 10)
    out, st, gid = revealed(nation, "large", "tf", die, air_known=True)
    roll = rolls_of(out)[0]
    assert [m["value"] for m in roll.target["modifiers"]] == [bonus]
    assert roll.target["modified"] == die + bonus and roll.target["row"] == str(row)
    assert drawn(st, gid)["CV"] == line_counts(rows[row][4])["CV"] >= 1
    assert {c: n for c, n in drawn(st, gid).items() if c != "FR"} == line_counts(rows[row][4])


@pytest.mark.parametrize("room, value", [(16, 0), (15, -3), (11, -3), (10, -5), (6, -5), (5, -7), (0, -7), (-3, -7)])
@pytest.mark.parametrize("nation, rows", [("US", US_ROWS), ("Soviet", SOVIET_ROWS)], ids=["US", "Soviet"])
def test_stf_table_precise_composition_within_15_10_5_of_the_commitment_moves_captain_and_commodore(nation, rows, room, value):
    """"CAPTAIN and COMMODORE ONLY: If within 15 of the commitment limit, then subtract 3 from the
    die roll. If within 10 ... subtract 5. If within 5 ... subtract 7." (the nearest band only; a
    roll below 1 reads row 1). A Rear Admiral's roll is not moved."""
    for die in (1, 10):
        for size, kind in COLUMNS:
            out, st, gid = revealed(nation, size, kind, die, total=108 - room)
            moved = value if size != "large" else 0
            roll = rolls_of(out)[0]
            assert sum(m["value"] for m in roll.target["modifiers"]) == moved
            row = max(die + moved, 1)
            assert roll.target["row"] == str(row)
            column = COLUMNS.index((size, kind))
            assert {c: n for c, n in drawn(st, gid).items() if c != "FR"} == line_counts(rows[row][column])


STARRED = {("US", 4, "large"), ("US", 8, "medium"), ("US", 9, "medium"), ("US", 10, "medium"),
           ("Soviet", 7, "medium"), ("Soviet", 9, "medium")}   # the cells printed with a * (task forces)


@pytest.mark.parametrize("row", range(1, 11))
@pytest.mark.parametrize("nation, rows", [("US", US_ROWS), ("Soviet", SOVIET_ROWS)], ids=["US", "Soviet"])
def test_stf_table_precise_composition_the_starred_cells_and_cv_lines_take_the_invasion_freighters(nation, rows, row):
    """The tables' footnote: "* If the US [Soviet] GameSystem is conducting an Invasion, and no US
    [Soviet] CV group has yet been Precisely identified, then the invasion Freighters are part of
    this task force, not the first identified CV group"; 1.11: otherwise "the freighters are in the
    task force of the first revealed CV". Every other cell takes none."""
    for size in ("small", "medium", "large"):
        gid = "TF1"
        group = system_group(gid, "tf", intel="accurate", size=size, chit=composition.LEADERS[size])
        pool = full_pool(nation)
        for i in range(1, 9):
            pool[f"fr-{i}"] = counter(f"fr-{i}", nation, "FR", 0, role="invasion")
        st = search_state(group, pool=pool, player_side="Soviet" if nation == "US" else "US", system_side=nation,
                          mission="US Inv" if nation == "US" else "Sov Inv", invader="system",
                          commitment={"Player": {"points": 14, "carriers": 1}, "system": 108})
        ctx = Ctx(copy.deepcopy(st), FixedDice(row, default=1), stf_rules.HOOKS)
        composition.reveal(ctx, gid)
        line = rows[row][COLUMNS.index((size, "tf"))]
        takes = (nation, row, size) in STARRED or "CV" in line_counts(line)
        assert ("*" in line) is False  # the expected rows here are written without their marks
        invasion = [u for u in ctx.state["groups"][gid]["units"] if ctx.state["units"][u].get("invasion")]
        assert len(invasion) == (8 if takes else 0), (size, line)
        assert ctx.state["campaign"].get("invasion_freighters") == (gid if takes else None)


# ---- the Air Attack Table, through the GameSystem's air attacks step (STF 10.3-10.16) --------------------
AIR_ATTACK_ROWS = {  # die -> (strike, escort) for US, NATO, Soviet, as printed
    1: {"US": (1, 1), "NATO": (1, 0), "Soviet": (1, 0)},
    2: {"US": (1, 1), "NATO": (1, 1), "Soviet": (1, 0)},
    3: {"US": (1, 2), "NATO": (1, 1), "Soviet": (1, 1)},
    4: {"US": (2, 1), "NATO": (2, 1), "Soviet": (1, 1)},
    5: {"US": (2, 2), "NATO": (2, 1), "Soviet": (1, 1)},
    6: {"US": (3, 2), "NATO": (2, 1), "Soviet": (2, 0)},
}


def strike_state(nation: str) -> dict:
    """A Precise GameSystem carrier task force of ``nation`` (3 H and 3 L squadrons: more than any
    row asks) with a Player carrier task force 6 megahexes away (G-I-UK Gap)."""
    st = at_phase(initial(), "Strike", turn=3)
    player = "US" if nation == "Soviet" else "Soviet"
    st["campaign"].update({"map": "giuk", "player_side": player, "system_side": nation, "player_airbases": [],
                           "system_airbase": None, "ground_aviation": {"Player": 0, "system": 0},
                           "lbna_available": True})
    st["groups"]["TF1"] = {"id": "TF1", "owner": "system", "kind": "tf", "hex": "2305", "units": ["cv1", "dd1"],
                           "status": "on map", "intel": "precise", "chit": "Rear Admiral"}
    st["groups"]["P1"] = {"id": "P1", "owner": "Player", "kind": "tf", "hex": "0605", "units": ["pcv", "pff"],
                          "status": "on map"}
    st["units"].update({
        "cv1": {"id": "cv1", "class": "CV", "nation": nation, "group": "TF1", "air": {"H": [4, 4, 4], "L": [3, 3, 3]}},
        "dd1": {"id": "dd1", "class": "DD", "nation": nation, "group": "TF1"},
        "pcv": {"id": "pcv", "class": "CV", "nation": player, "group": "P1", "air": {"H": 2, "L": 2}},
        "pff": {"id": "pff", "class": "FF", "nation": player, "group": "P1"}})
    assert maps.megahex_distance("giuk", "2305", "0605") == 6
    return st


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("nation", ["US", "NATO", "Soviet"])
def test_stf_table_air_attack_every_die_in_every_column_sends_that_many_strike_and_escort_squadrons(nation, die):
    """The Air Attack Table, read in the column of the GameSystem's nation: the strike flies exactly
    the strike and escort squadrons of the row (10.10: H to strike, L to escort)."""
    out, _ = run_step(strike_state(nation), "air_attacks", FixedDice(die, 1))
    (table_roll,) = [r for r in rolls_of(out) if r.target and r.target.get("table") == "air attack"]
    assert table_roll.target["column"] == nation and table_roll.values == [die]
    (strike,) = [e for e in events_of(out, "SystemActs") if e["what"] == "air strike"]
    strikes, escorts = AIR_ATTACK_ROWS[die][nation]
    assert len(strike["detail"]["strike"]) == strikes and len(strike["detail"]["escort"]) == escorts
    assert all(":H" in s for s in strike["detail"]["strike"]) and all(":L" in s for s in strike["detail"]["escort"])
    assert strike["detail"]["short"] == {"strike": 0, "escort": 0}


# ---- STF 2.1: the Player's ground aviation number is what may fly from his airbases ----------------------
@pytest.mark.parametrize("die, squadrons", [(1, 1), (5, 3)])
def test_stf_2_1_a_player_with_ground_aviation_squadrons_strikes_from_his_airbase(die, squadrons):
    """2.1: the die "determines the number of squadrons available for ground aviation": a Player with
    one or more (the Mediterranean US column: 1 on a 1, 3 on a 5) may strike from his airbase."""
    _, st = play_campaign("mediterranean", "US", {"STF 1.2": [3], "STF 2.1": [die, 1]})
    assert st["campaign"]["ground_aviation"]["Player"] == squadrons
    st = player_airbase_strike_state(st)
    assert {"kind": "air_strike", "from": "Malta", "target": "TF1"} in stf_rules_legal(st)
    # TF1 is Accurate with no ships drawn: the strike draws them for the tactical display (STF 11.7)
    out, _ = play(st, {"kind": "air_strike", "from": "Malta", "target": "TF1"}, FixedDice(default=1))
    assert events_of(out, "PlayerAirAction")[0]["detail"]["from"] == "Malta"


@pytest.mark.parametrize("map_name, die", [("caribbean", 1), ("giuk", 1)])
def test_stf_2_1_a_player_who_rolled_no_ground_aviation_squadron_flies_nothing_from_his_airbases(map_name, die):
    """2.1: a 0 on the Ground Aviation Table (the Caribbean and G-I-UK Gap US columns on a 1) is no
    squadron available for ground aviation: no air strike flies from the Player's airbases (his
    carriers' still do)."""
    _, st = play_campaign(map_name, "US", {"STF 1.2": [BATTLE_DIE[map_name]], "STF 2.1": [die, 1]})
    assert st["campaign"]["ground_aviation"]["Player"] == 0
    base = st["campaign"]["player_airbases"][0] if st["campaign"]["player_airbases"] else C.airbases(map_name, "US")[0]
    st["campaign"]["player_airbases"] = [base]
    st = player_airbase_strike_state(st)
    assert not [o for o in stf_rules_legal(st) if o["kind"] == "air_strike" and o["from"] == base]
    with pytest.raises(RuleViolation) as refused:
        play(st, {"kind": "air_strike", "from": base, "target": "TF1"})
    assert refused.value.rule == "STF 2.1"


def player_airbase_strike_state(st: dict) -> dict:
    """The campaign ``st`` in the Strike phase of turn 3 with an Accurate GameSystem task force (TF1)
    and the Player's airbases as the campaign fixed them (Malta, Haifa when none were fixed)."""
    st = at_phase(st, "Strike", turn=3)
    if not st["campaign"].get("player_airbases"):
        st["campaign"]["player_airbases"] = ["Malta", "Haifa"]
    m = st["campaign"]["map"]
    st["groups"]["TF1"] = system_group("TF1", "tf", intel="accurate", size="large", chit="Rear Admiral",
                                       hex=maps.sea_hexes_of(m, movement.starting_megahexes(m, "Soviet", "TF")[0])[0])
    return st
