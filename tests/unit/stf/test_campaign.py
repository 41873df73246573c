"""STF 1.1-1.3, 1.5, 1.6, 1.11, 2.1-2.5, 3.1, 4.1: the campaign order (domain/rulesets/stf/campaign.py)
and its tables (data/campaign.json) and bases (data/bases.json), checked row by row against the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import campaign as C
from domain.rulesets.stf.rules import DATA
from domain.rulesets.toolkit.tables import read
from tests.unit.stf.helpers import R, FixedDice, events_of, initial, names, pending, play, rolls_of

ROOT = Path(__file__).resolve().parents[3]

# ---- the text's tables, copied line by line from ../shared/rules/003_74ca0e4e298164eb.txt ----------
MISSION_TEXT = """\
| Die Roll | 1      | 2      | 3      | 4      | 5       | 6       |
|----------|--------|--------|--------|--------|---------|---------|
| Mission  | US Inv | US Inv | Battle | Battle | Sov Inv | Sov Inv |"""

COMMITMENT_TEXT = """\
| Die | Player Commitment Limit | GameSystem Commitment Limit |
|-----|-------------------------|-----------------------------|
| 2   | 24/0                    | 28                          |
| 3   | 28/0                    | 32                          |
| 4   | 32/0                    | 36                          |
| 5   | 14/1                    | 45                          |
| 6   | 17/1                    | 48                          |
| 7   | 21/1                    | 52                          |
| 8   | 35/1                    | 66                          |
| 9   | 35/2                    | 93                          |
| 10  | 40/2                    | 98                          |
| 11  | 50/2                    | 108                         |
| 12  | 55/2                    | 113                         |"""

GROUND_AVIATION_TEXT = """\
| Die | Caribbean |     | G-I-UK Gap |     | Mediterranean |     |
|-----|-----------|-----|------------|-----|---------------|-----|
|     | US        | Sov | US         | Sov | US            | Sov |
| 1   | 0         | 0   | 0          | 0   | 1             | 1   |
| 2   | 1         | 1   | 1          | 0   | 1             | 2   |
| 3   | 1         | 2   | 1          | 0   | 2             | 2   |
| 4   | 2         | 2   | 2          | 0   | 2             | 2   |
| 5   | 2         | 2   | 2          | 0   | 3             | 2   |
| 6   | 2         | 2   | 3          | 0   | 3             | 2   |"""

SURVEILLANCE_TEXT = """\
| Caribbean |    |     | G-I-UK Gap |     | Mediterranean |     |
|-----------|----|-----|------------|-----|---------------|-----|
| Die       | US | Sov | US         | Sov | US            | Sov |
| 1         | A  | L   | L          | A   | A             | A   |
| 2         | H  | A   | A          | A   | A             | A   |
| 3         | H  | A   | A          | H   | H             | H   |
| 4         | VH | A   | H          | H   | H             | H   |
| 5         | VH | H   | H          | H   | H             | VH  |
| 6         | VH | H   | VH         | VH  | VH            | VH  |"""

TACTICAL_TEXT = """\
| Die | US | Sov |
|-----|----|-----|
| 1   | 1  | 2   |
| 2   | 2  | 2   |
| 3   | 2  | 3   |
| 4   | 2  | 3   |
| 5   | 2  | 4   |
| 6   | 3  | 4   |"""

INVASION_TEXT = """\
| Die       | US      | Sov | US         | Sov     | US            | Sov      |
| 1         | Mhex 19 | NA  | Mhex 64    | Mhex 12 | Mhex 99**     | Mhex 136 |
| 2         | Mhex 19 | NA  | Mhex 64    | Mhex 12 | Mhex 128      | Mhex 170 |
| 3         | Mhex 19 | NA  | Mhex 64    | Mhex 12 | Mhex 61       | Mhex 42  |
| 4         | Mhex 19 | NA  | Mhex 30    | Mhex 12 | Mhex 159      | Mhex 26  |
| 5         | Mhex 13 | NA  | Mhex 12*   | Mhex 30 | Mhex 136      | Mhex 26  |
| 6         | Mhex 13 | NA  | Mhex 12*   | Mhex 30 | Mhex 165      | Mhex 26  |

\\* Cannot use Neskaupstadur airbase

\\*\\* Cannot use Suda Bay airbase"""

AIRBASES_TEXT = """\
- 2.3 Caribbean Airbases: US – Guantanamo and Kingston; Sov/Cub - Santiago
- 2.4 GIUK Airbases: US/NATO – Neskaupstadur and Sumburgh
- 2.5 Mediterranean Airbases: US/NATO – Malta, Suda Bay, Konya, Haifa and (new) Famagusta in Cyprus; \
Soviet – Benghazi, Alexandria and (new) Latakia in Syria."""

BASES_TEXT = """\
- 12.10 Caribbean Bases: US: Megahex 9 or 61; Soviet/Cuban: Santiago or Banas
- 12.11 GIUK Bases: US/NATO: Megahex 1 or Sumburgh; Soviet: Megahex 63 or 64
12.12 Mediterranean Bases: US/NATO: Malta, Suda Bay, Antalya, Haifa; Soviet: Benghazi, Tobruk, Port Said, \
Latakia, Megahex 117."""

# The six columns of a map-and-nationality table, in the text's order.
COLUMNS = ["Caribbean US", "Caribbean Sov", "G-I-UK Gap US", "G-I-UK Gap Sov", "Mediterranean US", "Mediterranean Sov"]


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def body(text: str, skip: int) -> list[list[str]]:
    """The rows of a transcribed table below its ``skip`` heading lines, as cells."""
    return [cells(line) for line in text.splitlines()[skip:] if line.startswith("|")]


def rules_text() -> str | None:
    for folder in (ROOT, *ROOT.parents):
        path = folder / "shared" / "rules" / "003_74ca0e4e298164eb.txt"
        if path.exists():
            return path.read_text(encoding="utf-8")
    return None


def test_the_transcriptions_here_are_the_texts_own_lines():
    text = rules_text()
    if text is None:
        pytest.skip("the rules text 003_74ca0e4e298164eb.txt is not at hand (../shared/rules/)")
    lines = text.splitlines()
    for block in (MISSION_TEXT, COMMITMENT_TEXT, GROUND_AVIATION_TEXT, SURVEILLANCE_TEXT, TACTICAL_TEXT,
                  INVASION_TEXT):
        assert block in text
    for block in (AIRBASES_TEXT, BASES_TEXT):
        for line in block.splitlines():
            assert any(line.strip() == t.strip() for t in lines), line


# ---- the tables, row by row ----------------------------------------------------------------------
@pytest.mark.parametrize("die", range(1, 7))
def test_stf_1_2_mission_table_row_by_row(die):
    header, _, mission = body(MISSION_TEXT, 0)
    assert header[die] == str(die)
    assert read(C.MISSION_TABLE, die).result == mission[die]


@pytest.mark.parametrize("row", body(COMMITMENT_TEXT, 2), ids=lambda r: r[0])
def test_stf_1_5_commitment_limit_table_row_by_row(row):
    die, player, system = row
    assert read(C.COMMITMENT_TABLE, int(die), "Player").result == player
    assert read(C.COMMITMENT_TABLE, int(die), "GameSystem").result == int(system)


def test_stf_1_5_the_commitment_table_has_a_row_for_every_2d6_total():
    assert C.COMMITMENT_TABLE.dice == "2d6"
    assert [r[0] for r in C.COMMITMENT_TABLE.rows] == list(range(2, 13))


@pytest.mark.parametrize("row", body(INVASION_TEXT, 1), ids=lambda r: r[0])
def test_stf_1_11_invasion_target_megahex_table_row_by_row(row):
    assert C.INVASION_TABLE.columns == tuple(COLUMNS)
    assert [read(C.INVASION_TABLE, int(row[0]), col).result for col in COLUMNS] == row[1:]


def test_stf_1_11_the_footnotes_bar_the_airbases_the_text_names():
    notes = [line.replace("\\", "") for line in INVASION_TEXT.splitlines() if line.startswith("\\*")]
    assert notes == ["* Cannot use Neskaupstadur airbase", "** Cannot use Suda Bay airbase"]
    assert {mark: f"{n['text']}" for mark, n in C.FOOTNOTES.items()} == {
        "*": "Cannot use Neskaupstadur airbase", "**": "Cannot use Suda Bay airbase"}
    assert C.FOOTNOTES["*"]["airbase"] == "Neskaupstadur" and C.FOOTNOTES["**"]["airbase"] == "Suda Bay"


@pytest.mark.parametrize("row", body(GROUND_AVIATION_TEXT, 3), ids=lambda r: r[0])
def test_stf_2_1_ground_aviation_table_row_by_row(row):
    assert C.GROUND_AVIATION_TABLE.columns == tuple(COLUMNS) and C.GROUND_AVIATION_TABLE.dice == "1d6"
    assert [read(C.GROUND_AVIATION_TABLE, int(row[0]), col).result for col in COLUMNS] == [int(c) for c in row[1:]]


@pytest.mark.parametrize("row", body(SURVEILLANCE_TEXT, 3), ids=lambda r: r[0])
def test_stf_3_1_surveillance_table_row_by_row(row):
    assert C.SURVEILLANCE_TABLE.columns == tuple(COLUMNS) and C.SURVEILLANCE_TABLE.dice == "1d6"
    assert [read(C.SURVEILLANCE_TABLE, int(row[0]), col).result for col in COLUMNS] == row[1:]


@pytest.mark.parametrize("row", body(TACTICAL_TEXT, 2), ids=lambda r: r[0])
def test_stf_4_1_tactical_coordination_value_table_row_by_row(row):
    assert C.TACTICAL_TABLE.columns == ("US", "Sov") and C.TACTICAL_TABLE.dice == "1d6"
    assert [read(C.TACTICAL_TABLE, int(row[0]), col).result for col in ("US", "Sov")] == [int(row[1]), int(row[2])]


def test_stf_1_1_the_map_die_is_a_1d3_whose_faces_are_marked_provisional():
    assert C.MAP_TABLE.dice == "1d3"
    assert [read(C.MAP_TABLE, face).result for face in (1, 2, 3)] == ["caribbean", "giuk", "mediterranean"]
    assert any(g.file == "campaign.json" and g.entry == "tables.Map Table (1.1)" for g in DATA.provisional())
    assert not any(g.file in ("campaign.json", "bases.json") and g.entry != "tables.Map Table (1.1)"
                   for g in DATA.provisional())


@pytest.mark.parametrize("map_name, side, listed", [
    ("caribbean", "US", ["Guantanamo", "Kingston"]),
    ("caribbean", "Soviet", ["Santiago"]),
    ("giuk", "US", ["Neskaupstadur", "Sumburgh"]),
    ("giuk", "Soviet", []),
    ("mediterranean", "US", ["Malta", "Suda Bay", "Konya", "Haifa", "Famagusta"]),
    ("mediterranean", "Soviet", ["Benghazi", "Alexandria", "Latakia"]),
])
def test_stf_2_3_to_2_5_the_airbases_of_each_map_and_side_are_the_texts(map_name, side, listed):
    assert C.airbases(map_name, side) == listed
    line = next(li for li in AIRBASES_TEXT.splitlines() if C.BASES[map_name]["airbases"]["rule"][4:] + " " in li)
    assert all(name in line for name in listed)


def test_stf_2_4_the_soviet_side_has_no_giuk_airbase_and_no_giuk_ground_aviation():
    assert C.airbases("giuk", "Soviet") == []
    assert {read(C.GROUND_AVIATION_TABLE, d, "G-I-UK Gap Sov").result for d in range(1, 7)} == {0}


@pytest.mark.parametrize("map_name, side, listed", [
    ("caribbean", "US", [{"megahex": 9}, {"megahex": 61}]),
    ("caribbean", "Soviet", [{"place": "Santiago"}, {"place": "Banas"}]),
    ("giuk", "US", [{"megahex": 1}, {"place": "Sumburgh"}]),
    ("giuk", "Soviet", [{"megahex": 63}, {"megahex": 64}]),
    ("mediterranean", "US", [{"place": "Malta"}, {"place": "Suda Bay"}, {"place": "Antalya"}, {"place": "Haifa"}]),
    ("mediterranean", "Soviet", [{"place": "Benghazi"}, {"place": "Tobruk"}, {"place": "Port Said"},
                                 {"place": "Latakia"}, {"megahex": 117}]),
])
def test_stf_12_10_to_12_12_the_retirement_bases_of_each_map_and_side_are_the_texts(map_name, side, listed):
    assert C.retirement_bases(map_name, side) == listed
    line = next(li for li in BASES_TEXT.splitlines() if C.BASES[map_name]["retirement_bases"]["rule"][4:] + " " in li)
    assert all(str(b.get("place") or b["megahex"]) in line for b in listed)


# ---- playing the order ---------------------------------------------------------------------------
def campaign(map_name="mediterranean", side="US", *faces, default=1, **extra):
    order = {"kind": "campaign", "map": map_name, "side": side, **extra}
    return play(initial(), order, FixedDice(*faces, default=default))


def fixed(out) -> dict:
    return {e["key"]: e["value"] for e in events_of(out, "CampaignFixed")}


def rules_fixed(out) -> dict:
    return {e["key"]: e["rule"] for e in events_of(out, "CampaignFixed")}


def rolls(out, rule: str) -> list:
    return [r for r in rolls_of(out) if r.rule == rule]


@pytest.mark.parametrize("face, map_name", [(1, "caribbean"), (2, "giuk"), (3, "mediterranean")])
def test_stf_1_1_a_random_map_is_rolled_on_1d3(face, map_name):
    out, st = campaign("random", "US", face)
    first = rolls_of(out)[0]
    assert first.rule == "STF 1.1" and first.seat == "system" and [d["sides"] for d in first.dice] == [3]
    assert first.target["table"] == "Map Table (1.1)" and first.target["row"] == str(face)
    assert st["campaign"]["map"] == map_name and rules_fixed(out)["map"] == "STF 1.1"


def test_stf_1_1_a_named_map_is_not_rolled():
    out, st = campaign("giuk", "US")
    assert rolls(out, "STF 1.1") == [] and rolls_of(out)[0].rule == "STF 1.2"
    assert st["campaign"]["map"] == "giuk"


@pytest.mark.parametrize("map_name, side, system_side, rule", [
    ("giuk", "US", "Soviet", "STF 1.1"),
    ("caribbean", "US", "Soviet", "STF 1.1"),
    ("caribbean", "Soviet", "US", "STF 8.8"),
    ("giuk", "Soviet", None, "STF 8.8"),
    ("mediterranean", "Soviet", None, "STF 8.8"),
])
def test_stf_1_1_the_sides(map_name, side, system_side, rule):
    out, st = campaign(map_name, side)
    assert st["campaign"]["player_side"] == side
    assert st["campaign"]["system_side"] == system_side and rules_fixed(out)["system_side"] == rule


@pytest.mark.parametrize("order, field", [
    ({"map": "pacific", "side": "US"}, "map"),
    ({"side": "US"}, "map"),
    ({"map": "giuk", "side": "NATO"}, "side"),
    ({"map": "giuk"}, "side"),
])
def test_stf_1_1_a_map_or_side_not_offered_is_refused(order, field):
    with pytest.raises(InvalidOrder) as refused:
        play(initial(), {"kind": "campaign", **order}, FixedDice())
    assert refused.value.rule == "STF 1.1" and refused.value.field == field


@pytest.mark.parametrize("map_name, die, modified, row, mission", [
    ("caribbean", 1, -1, "1", "US Inv"),     # off the table: the first row
    ("caribbean", 4, 2, "2", "US Inv"),
    ("caribbean", 6, 4, "4", "Battle"),
    ("giuk", 1, 2, "2", "US Inv"),
    ("giuk", 4, 5, "5", "Sov Inv"),
    ("giuk", 6, 7, "6", "Sov Inv"),          # off the table: the last row
    ("mediterranean", 2, 2, "2", "US Inv"),
    ("mediterranean", 3, 3, "3", "Battle"),
    ("mediterranean", 5, 5, "5", "Sov Inv"),
])
def test_stf_1_2_the_map_modifies_the_mission_roll(map_name, die, modified, row, mission):
    out, st = campaign(map_name, "US", die)
    roll = rolls(out, "STF 1.2")[0]
    assert roll.values == [die] and roll.seat == "system" and roll.outcome == mission
    assert roll.target["modifiers"] == [{"value": C.MAPS[map_name]["mission_modifier"],
                                         "reason": f"{C.MAPS[map_name]['name']} map (STF 1.2)"}]
    assert roll.target["modified"] == modified and roll.target["row"] == row and roll.target["off_table"] == "clamp"
    assert st["campaign"]["mission"] == mission
    assert [C.MAPS[m]["mission_modifier"] for m in ("caribbean", "giuk", "mediterranean")] == [-2, 1, 0]


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("side", ["US", "Soviet"])
def test_stf_1_2_the_caribbean_never_rolls_a_soviet_invasion(die, side):
    """Its -2 leaves 4 the highest roll, so the Invasion Target table's NA column is never read."""
    out, st = campaign("caribbean", side, die)
    assert st["campaign"]["mission"] != "Sov Inv"
    assert all(r.target["column"] != "Caribbean Sov" for r in rolls(out, "STF 1.11"))
    assert {read(C.INVASION_TABLE, d, "Caribbean Sov").result for d in range(1, 7)} == {"NA"}


@pytest.mark.parametrize("side, die, mission, invader", [
    ("US", 1, "US Inv", "Player"),
    ("Soviet", 1, "US Inv", "system"),
    ("US", 6, "Sov Inv", "system"),
    ("Soviet", 6, "Sov Inv", "Player"),
    ("US", 3, "Battle", None),
    ("Soviet", 4, "Battle", None),
])
def test_stf_1_2_the_invader_is_the_seat_whose_side_invades(side, die, mission, invader):
    out, st = campaign("mediterranean", side, die)
    assert st["campaign"]["mission"] == mission and st["campaign"]["invader"] == invader
    assert rules_fixed(out)["invader"] == "STF 1.2"


def test_stf_1_3_the_force_level_of_both_forces_is_fixed_by_the_one_roll_of_1_5():
    out, st = campaign("giuk", "US", 3, 2, 4)
    assert len(rolls(out, "STF 1.5")) == 1
    assert st["campaign"]["commitment"] == {"Player": {"points": 17, "carriers": 1}, "system": 48,
                                            "system_submarines": 16}


def test_stf_1_5_one_2d6_is_read_across_for_both_limits():
    """The text's example: a roll of 7 is one carrier and 21 points, and the GameSystem has 52."""
    out, st = campaign("mediterranean", "US", 3, 3, 4)
    roll = rolls(out, "STF 1.5")[0]
    assert roll.values == [3, 4] and roll.seat == "system" and roll.outcome == "21/1"
    assert roll.target["column"] == "Player" and roll.target["row"] == "7"
    assert roll.target["across"] == {"GameSystem": {"row": "7", "result": 52}}
    assert st["campaign"]["commitment_table"] == {"Player": {"points": 21, "carriers": 1}, "system": 52}
    assert st["campaign"]["commitment"] == {"Player": {"points": 21, "carriers": 1}, "system": 52,
                                            "system_submarines": 17}
    assert rules_fixed(out)["commitment"] == "STF 1.5"


@pytest.mark.parametrize("side, player_points, system", [("US", 26, 47), ("Soviet", 16, 57)])
def test_stf_1_6_the_caribbean_adds_5_to_the_us_limit_and_takes_5_from_the_soviet(side, player_points, system):
    out, st = campaign("caribbean", side, 3, 3, 4)
    assert st["campaign"]["commitment_table"] == {"Player": {"points": 21, "carriers": 1}, "system": 52}
    assert st["campaign"]["commitment"] == {"Player": {"points": player_points, "carriers": 1}, "system": system,
                                            "system_submarines": system // 3}
    assert rules_fixed(out)["commitment"] == "STF 1.6"


@pytest.mark.parametrize("map_name", ["giuk", "mediterranean"])
@pytest.mark.parametrize("side", ["US", "Soviet"])
def test_stf_1_6_no_adjustment_off_the_caribbean(map_name, side):
    _, st = campaign(map_name, side, 3, 6, 6)
    assert st["campaign"]["commitment"] == {"Player": {"points": 55, "carriers": 2}, "system": 113,
                                            "system_submarines": 37}


def test_stf_1_10_a_third_of_the_gamesystems_limit_rounded_down_is_recorded_for_submarines():
    _, st = campaign("caribbean", "US", 3, 1, 4)   # 5: 45, less 5 in the Caribbean: 40
    assert st["campaign"]["commitment"]["system"] == 40 and st["campaign"]["commitment"]["system_submarines"] == 13


def test_stf_1_11_a_battle_rolls_no_invasion_target():
    out, st = campaign("mediterranean", "US", 3)
    assert rolls(out, "STF 1.11") == []
    assert st["campaign"]["invasion_target"] is None and "airbase_barred" not in st["campaign"]


@pytest.mark.parametrize("map_name, side, mission_die, die, column, target", [
    ("giuk", "US", 1, 4, "G-I-UK Gap US", 30),             # US Inv, the Player invades
    ("giuk", "Soviet", 6, 5, "G-I-UK Gap Sov", 30),        # Sov Inv, the Player invades
    ("caribbean", "Soviet", 2, 5, "Caribbean US", 13),     # US Inv, the GameSystem invades
    ("mediterranean", "US", 6, 2, "Mediterranean Sov", 170),  # Sov Inv, the GameSystem invades
])
def test_stf_1_11_the_invader_rolls_in_its_map_and_nationality_column(map_name, side, mission_die, die, column, target):
    out, st = campaign(map_name, side, mission_die, 1, 1, die)
    roll = rolls(out, "STF 1.11")[0]
    assert roll.seat == "system" and roll.values == [die]
    assert roll.target["table"] == "Invasion Target Megahex Table" and roll.target["column"] == column
    assert st["campaign"]["invasion_target"] == target and rules_fixed(out)["invasion_target"] == "STF 1.11"
    assert "airbase_barred" not in st["campaign"]


def test_stf_1_11_a_us_player_invading_megahex_12_cannot_use_neskaupstadur():
    out, st = campaign("giuk", "US", 1, 1, 1, 6)
    assert st["campaign"]["invasion_target"] == 12
    assert st["campaign"]["airbase_barred"] == {"seat": "Player", "airbase": "Neskaupstadur", "footnote": "*",
                                                "text": "Cannot use Neskaupstadur airbase"}
    assert st["campaign"]["player_airbases"] == ["Sumburgh"]


def test_stf_1_11_a_named_airbase_the_target_bars_is_dropped_and_the_player_keeps_the_other():
    _, st = campaign("giuk", "US", 1, 1, 1, 5, airbases=["Neskaupstadur", "Sumburgh"])
    assert st["campaign"]["player_airbases"] == ["Sumburgh"]


def test_stf_1_11_a_gamesystem_invading_megahex_99_cannot_use_suda_bay():
    # a Soviet Player in the Mediterranean, US Inv: the GameSystem invades; 1 on its column: Mhex 99**
    out, st = campaign("mediterranean", "Soviet", 1, 1, 1, 1, 1, 1, 2)
    assert st["campaign"]["invasion_target"] == 99
    assert st["campaign"]["airbase_barred"]["seat"] == "system"
    assert st["campaign"]["airbase_barred"]["airbase"] == "Suda Bay"
    roll = rolls(out, "STF 2.2")[0]
    assert [d["sides"] for d in roll.dice] == [4]
    assert [row[2] for row in roll.target["rows"]] == ["Malta", "Konya", "Haifa", "Famagusta"]
    assert st["campaign"]["system_airbase"] == "Konya"


@pytest.mark.parametrize("side, player_column, system_column", [
    ("US", "Mediterranean US", "Mediterranean Sov"), ("Soviet", "Mediterranean Sov", "Mediterranean US")])
def test_stf_2_1_each_side_rolls_once_in_its_own_column(side, player_column, system_column):
    out, st = campaign("mediterranean", side, 3, 1, 1, 5, 2)
    first, second = rolls(out, "STF 2.1")
    assert (first.target["column"], second.target["column"]) == (player_column, system_column)
    assert first.seat == second.seat == "system"
    assert st["campaign"]["ground_aviation"] == {"Player": read(C.GROUND_AVIATION_TABLE, 5, player_column).result,
                                                 "system": read(C.GROUND_AVIATION_TABLE, 2, system_column).result}


@pytest.mark.parametrize("face, airbase", [(1, "Benghazi"), (2, "Alexandria"), (3, "Latakia")])
def test_stf_2_2_the_gamesystems_airbase_is_rolled_on_a_die_of_its_lists_size(face, airbase):
    out, st = campaign("mediterranean", "US", 3, 1, 1, 1, 1, face, airbases=["Malta", "Haifa"])
    roll = rolls(out, "STF 2.2")[0]
    assert roll.seat == "system" and [d["sides"] for d in roll.dice] == [3] and roll.outcome == airbase
    assert st["campaign"]["system_airbase"] == airbase


def test_stf_2_2_a_us_gamesystem_in_giuk_rolls_a_d2():
    out, st = campaign("giuk", "Soviet", 3, 1, 1, 1, 1, 2)
    roll = rolls(out, "STF 2.2")[0]
    assert [d["sides"] for d in roll.dice] == [2] and st["campaign"]["system_airbase"] == "Sumburgh"


def test_stf_2_2_a_single_airbase_is_the_gamesystems_without_a_roll():
    out, st = campaign("caribbean", "US", 3)
    assert rolls(out, "STF 2.2") == [] and st["campaign"]["system_airbase"] == "Santiago"


def test_stf_2_2_the_soviet_gamesystem_has_no_airbase_on_the_giuk_map():
    out, st = campaign("giuk", "US", 3)
    assert rolls(out, "STF 2.2") == [] and st["campaign"]["system_airbase"] is None


def test_stf_2_2_a_player_may_not_have_more_than_two_land_airbases():
    with pytest.raises(RuleViolation) as refused:
        campaign("mediterranean", "US", airbases=["Malta", "Haifa", "Konya"])
    assert refused.value.rule == "STF 2.2"


@pytest.mark.parametrize("map_name, side, named, rule", [
    ("mediterranean", "US", ["Malta", "Benghazi"], "STF 2.5"),
    ("giuk", "Soviet", ["Sumburgh"], "STF 2.4"),
    ("caribbean", "Soviet", ["Kingston"], "STF 2.3"),
])
def test_stf_2_2_airbases_not_of_the_players_side_on_the_map_are_refused(map_name, side, named, rule):
    with pytest.raises(RuleViolation) as refused:
        campaign(map_name, side, airbases=named)
    assert refused.value.rule == rule


def test_stf_2_2_airbases_are_named_with_a_named_map_not_a_random_one():
    with pytest.raises(RuleViolation) as refused:
        campaign("random", "US", airbases=["Malta"])
    assert refused.value.rule == "STF 2.2"


@pytest.mark.parametrize("named", ["Malta", ["Malta", "Malta"], [1]])
def test_stf_2_2_malformed_airbases_are_refused(named):
    with pytest.raises(InvalidOrder) as refused:
        campaign("mediterranean", "US", airbases=named)
    assert refused.value.rule == "STF 2.2" and refused.value.field == "airbases"


def test_stf_2_2_the_named_airbases_are_the_players():
    out, st = campaign("mediterranean", "US", 3, airbases=["Haifa", "Malta"])
    assert st["campaign"]["player_airbases"] == ["Haifa", "Malta"] and pending(st) is None
    assert names(out)[-2:] == ["CampaignFixed", "PhaseAdvanced"]


@pytest.mark.parametrize("map_name, side, expected", [
    ("caribbean", "US", ["Guantanamo", "Kingston"]),
    ("caribbean", "Soviet", ["Santiago"]),
    ("giuk", "US", ["Neskaupstadur", "Sumburgh"]),
    ("giuk", "Soviet", []),
])
def test_stf_2_2_two_or_fewer_airbases_are_all_the_players_without_a_choice(map_name, side, expected):
    out, st = campaign(map_name, side, 3)
    assert st["campaign"]["player_airbases"] == expected and pending(st) is None
    assert rules_fixed(out)["player_airbases"] == "STF 2.2"


def test_stf_2_2_with_more_than_two_the_player_chooses_a_pair_once_the_campaign_is_rolled():
    out, st = campaign("mediterranean", "US", 3)
    d = pending(st)
    assert d["seat"] == "Player" and d["rule"] == "STF 2.2" and st["phase"] == "Campaign"
    assert len(d["options"]["choices"]) == 10 + 5 + 1 and ["Malta", "Haifa"] in d["options"]["choices"]
    assert "player_airbases" not in st["campaign"] and "tactical" in st["campaign"]
    assert {"kind": "decide", "decision": d["id"], "choice": ["Malta", "Haifa"]} in R.legal_orders(st, "Player")
    out2, st2 = play(st, {"kind": "decide", "decision": d["id"], "choice": ["Haifa", "Malta"]})
    assert names(out2) == ["DecisionResolved", "CampaignFixed", "PhaseAdvanced"]
    assert st2["campaign"]["player_airbases"] == ["Malta", "Haifa"] and st2["phase"] == "Forces"


@pytest.mark.parametrize("choice, rule", [(["Malta", "Benghazi"], "STF 2.5"), (["Malta", "Haifa", "Konya"], "STF 2.2"),
                                          (["Malta", "Malta"], "STF 2.2"), ("Malta", "STF 2.2")])
def test_stf_2_2_a_choice_not_offered_is_refused(choice, rule):
    """More than two, one twice, or one not of the map's list for the Player's side (STF 2.5 lists
    the Mediterranean's). One airbase, or none, is the Player's choice: "a player may not have more
    than two land airbases" (test_examiner_stf_api.py)."""
    _, st = campaign("mediterranean", "US", 3)
    with pytest.raises(RuleViolation) as refused:
        play(st, {"kind": "decide", "decision": pending(st)["id"], "choice": choice})
    assert refused.value.rule == rule


def test_stf_2_2_a_barred_named_airbase_makes_the_player_choose_among_the_others():
    # US Player, Mediterranean, US Inv, target Mhex 99**: Suda Bay is barred to the Player
    _, st = campaign("mediterranean", "US", 1, 1, 1, 1, airbases=["Suda Bay", "Malta"])
    assert st["campaign"]["airbase_barred"]["airbase"] == "Suda Bay"
    choices = pending(st)["options"]["choices"]
    assert len(choices) == 6 + 4 + 1 and not any("Suda Bay" in c for c in choices)


@pytest.mark.parametrize("map_name, available", [("caribbean", False), ("giuk", True), ("mediterranean", True)])
def test_stf_2_6_lbna_is_available_on_the_giuk_and_mediterranean_maps(map_name, available):
    out, st = campaign(map_name, "US", 3, airbases=[])
    assert st["campaign"]["lbna_available"] is available and rules_fixed(out)["lbna_available"] == "STF 2.6"


@pytest.mark.parametrize("side, column", [("US", "G-I-UK Gap US"), ("Soviet", "G-I-UK Gap Sov")])
def test_stf_3_1_surveillance_is_rolled_for_the_player_only(side, column):
    out, st = campaign("giuk", side, 3, 1, 1, 1, 1, 1, 1)  # surveillance is the 6th die (a US GameSystem: 7th)
    (roll,) = rolls(out, "STF 3.1")
    assert roll.target["column"] == column and roll.purpose == "the Player's surveillance level"
    assert st["campaign"]["surveillance"] == roll.outcome == read(C.SURVEILLANCE_TABLE, 1, column).result


@pytest.mark.parametrize("side, faces, tactical", [("US", (6, 5), {"Player": 3, "system": 4}),
                                                   ("Soviet", (1, 6), {"Player": 2, "system": 3})])
def test_stf_4_1_tactical_coordination_for_each_side(side, faces, tactical):
    # Caribbean: no GameSystem airbase roll (a Soviet GameSystem has one airbase, a US one two: rolled)
    lead = (6, 1, 1, 1, 1) + ((1,) if side == "Soviet" else ()) + (1,)  # 6 - 2: a battle
    out, st = campaign("caribbean", side, *lead, *faces)
    first, second = rolls(out, "STF 4.1")
    assert [first.target["column"], second.target["column"]] == (["US", "Sov"] if side == "US" else ["Sov", "US"])
    assert (first.values[0], second.values[0]) == faces
    assert st["campaign"]["tactical"] == tactical


def test_every_campaign_roll_is_the_gamesystems_with_its_rule_table_column_and_row():
    out, _ = campaign("random", "Soviet", 3, 1, 2, 2, 6, 4, 4, 2, 5, 3, 3)
    assert len(rolls_of(out)) == 10
    for roll in rolls_of(out):
        assert roll.seat == "system" and roll.rule and roll.purpose
        assert {"table", "rule", "column", "modifiers", "row", "result"} <= set(roll.target)
        assert roll.target["rule"] == roll.rule and roll.outcome == str(roll.target["result"])


def test_the_campaign_order_is_the_players_first_and_only_in_the_campaign_phase():
    st = initial()
    assert st["phase"] == "Campaign"
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "campaign"]
    assert len(offered) == 8 and {"kind": "campaign", "map": "random", "side": "Soviet"} in offered
    _, after = campaign("giuk", "US", 3)
    assert after["phase"] == "Forces" and after["turn"] == 0
    with pytest.raises(RuleViolation):
        play(after, {"kind": "campaign", "map": "giuk", "side": "US"}, FixedDice())


# ---- the whole order, one chosen set of dice on each map -------------------------------------------
WHOLE = {
    "caribbean": (
        {"map": "caribbean", "side": "US"},
        [6, 5, 6, 4, 3, 4, 6, 5],
        [("STF 1.2", [6], "Battle"), ("STF 1.5", [5, 6], "50/2"), ("STF 2.1", [4], "2"), ("STF 2.1", [3], "2"),
         ("STF 3.1", [4], "VH"), ("STF 4.1", [6], "3"), ("STF 4.1", [5], "4")],
        [("map", "caribbean", "STF 1.1"), ("player_side", "US", "STF 1.1"), ("system_side", "Soviet", "STF 1.1"),
         ("mission", "Battle", "STF 1.2"), ("invader", None, "STF 1.2"),
         ("commitment_table", {"Player": {"points": 50, "carriers": 2}, "system": 108}, "STF 1.5"),
         ("commitment", {"Player": {"points": 55, "carriers": 2}, "system": 103, "system_submarines": 34}, "STF 1.6"),
         ("invasion_target", None, "STF 1.11"),
         ("ground_aviation", {"Player": 2, "system": 2}, "STF 2.1"),
         ("system_airbase", "Santiago", "STF 2.2"), ("lbna_available", False, "STF 2.6"),
         ("surveillance", "VH", "STF 3.1"), ("tactical", {"Player": 3, "system": 4}, "STF 4.1"),
         ("player_airbases", ["Guantanamo", "Kingston"], "STF 2.2")],
    ),
    "giuk": (
        {"map": "random", "side": "Soviet"},
        [2, 1, 1, 1, 6, 6, 6, 1, 1, 1],
        [("STF 1.1", [2], "giuk"), ("STF 1.2", [1], "US Inv"), ("STF 1.5", [1, 1], "24/0"),
         ("STF 1.11", [6], "Mhex 12*"), ("STF 2.1", [6], "0"), ("STF 2.1", [6], "3"),
         ("STF 3.1", [1], "A"), ("STF 4.1", [1], "2"), ("STF 4.1", [1], "1")],
        [("map", "giuk", "STF 1.1"), ("player_side", "Soviet", "STF 1.1"), ("system_side", None, "STF 8.8"),
         ("mission", "US Inv", "STF 1.2"), ("invader", "system", "STF 1.2"),
         ("commitment_table", {"Player": {"points": 24, "carriers": 0}, "system": 28}, "STF 1.5"),
         ("commitment", {"Player": {"points": 24, "carriers": 0}, "system": 28, "system_submarines": 9}, "STF 1.5"),
         ("invasion_target", 12, "STF 1.11"),
         ("airbase_barred", {"seat": "system", "airbase": "Neskaupstadur", "footnote": "*",
                             "text": "Cannot use Neskaupstadur airbase"}, "STF 1.11"),
         ("ground_aviation", {"Player": 0, "system": 3}, "STF 2.1"),
         ("system_airbase", "Sumburgh", "STF 2.2"), ("lbna_available", True, "STF 2.6"),
         ("surveillance", "A", "STF 3.1"), ("tactical", {"Player": 2, "system": 1}, "STF 4.1"),
         ("player_airbases", [], "STF 2.2")],
    ),
    "mediterranean": (
        {"map": "mediterranean", "side": "US", "airbases": ["Malta", "Haifa"]},
        [5, 6, 6, 2, 5, 2, 3, 6, 2, 3],
        [("STF 1.2", [5], "Sov Inv"), ("STF 1.5", [6, 6], "55/2"), ("STF 1.11", [2], "Mhex 170"),
         ("STF 2.1", [5], "3"), ("STF 2.1", [2], "2"), ("STF 2.2", [3], "Latakia"),
         ("STF 3.1", [6], "VH"), ("STF 4.1", [2], "2"), ("STF 4.1", [3], "3")],
        [("map", "mediterranean", "STF 1.1"), ("player_side", "US", "STF 1.1"), ("system_side", "Soviet", "STF 1.1"),
         ("mission", "Sov Inv", "STF 1.2"), ("invader", "system", "STF 1.2"),
         ("commitment_table", {"Player": {"points": 55, "carriers": 2}, "system": 113}, "STF 1.5"),
         ("commitment", {"Player": {"points": 55, "carriers": 2}, "system": 113, "system_submarines": 37}, "STF 1.5"),
         ("invasion_target", 170, "STF 1.11"),
         ("ground_aviation", {"Player": 3, "system": 2}, "STF 2.1"),
         ("system_airbase", "Latakia", "STF 2.2"), ("lbna_available", True, "STF 2.6"),
         ("surveillance", "VH", "STF 3.1"), ("tactical", {"Player": 2, "system": 3}, "STF 4.1"),
         ("player_airbases", ["Malta", "Haifa"], "STF 2.2")],
    ),
}


@pytest.mark.parametrize("map_name", sorted(WHOLE))
def test_the_whole_campaign_order_on_each_map(map_name):
    order, faces, expected_rolls, expected_fixed = WHOLE[map_name]
    dice = FixedDice(*faces)
    out, st = play(initial(), {"kind": "campaign", **order}, dice)
    assert dice.left == []
    assert [(r.rule, r.values, r.outcome) for r in rolls_of(out)] == expected_rolls
    assert all(r.seat == "system" for r in rolls_of(out))
    assert [(e["key"], e["value"], e["rule"]) for e in events_of(out, "CampaignFixed")] == expected_fixed
    assert names(out)[-1] == "PhaseAdvanced"
    assert events_of(out, "PhaseAdvanced") == [{"turn": 0, "phase": "Forces", "rule": "STF 1.7"}]
    assert st["phase"] == "Forces" and st["campaign"]["map"] == expected_fixed[0][1]


# ---- review (stf-review-a) -----------------------------------------------------------------------
@pytest.mark.parametrize("choice", [[["Malta"], ["Haifa"]], [{"a": 1}, "Malta"]])
def test_stf_2_2_an_airbase_choice_of_lists_or_objects_is_refused_not_a_crash(choice):
    _, st = campaign("mediterranean", "US", 3)
    with pytest.raises(RuleViolation) as refused:
        play(st, {"kind": "decide", "decision": pending(st)["id"], "choice": choice})
    assert refused.value.rule == "STF 2.2"


# ---- stf-api examiner ------------------------------------------------------------------------------
def test_stf_2_2_1_11_the_airbases_answer_may_name_one_but_not_one_the_invasion_target_bars():
    """STF 2.2 "A player may not have more than two land airbases": one is an answer; STF 1.11's bar
    (US Inv, target Mhex 99**: Suda Bay) refuses the barred one naming STF 1.11."""
    _, st = campaign("mediterranean", "US", 1, 1, 1, 1, airbases=["Suda Bay", "Malta"])
    d = pending(st)
    with pytest.raises(RuleViolation) as refused:
        play(st, {"kind": "decide", "decision": d["id"], "choice": ["Suda Bay"]})
    assert refused.value.rule == "STF 1.11" and "barred" in str(refused.value)
    out, st2 = play(st, {"kind": "decide", "decision": d["id"], "choice": ["Malta"]})
    assert st2["campaign"]["player_airbases"] == ["Malta"] and st2["phase"] == "Forces"
