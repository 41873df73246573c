"""Examiner round six: "Values a text does not give go in data files marked provisional, never in
code" (shared/rules/README.md). Each test names the rule whose value it checks: a value the text
gives is carried once, by the data (not marked provisional) and read from there; a value it does not
give is marked provisional in the ruleset's data, and the code reads it (a changed value changes
the behaviour). tests/unit/test_examiner_values.py holds the earlier round's checks."""

from __future__ import annotations

from domain.rulesets.stf import combat, composition, forces
from domain.rulesets.stf import rules as stf_rules
from tests.unit.stf.helpers import FixedDice, add_group, combat_state, events_of, initial, play, rolls_of, run_step, ship


def stf_guessed() -> set[tuple]:
    return {(g.file, g.entry, g.field) for g in stf_rules.DATA.provisional()}


# ---- Falklands --------------------------------------------------------------------------------------
def _markers(**starts: int) -> dict:
    """units.json's markers with the ``start`` of some changed (a correction's stand-in)."""
    from domain.rulesets.falklands.data import DATA
    return {**DATA.markers, **{m: {**DATA.markers[m], "start": v} for m, v in starts.items()}}


def test_fs_3_5_the_vp_marker_starts_in_the_box_units_json_gives(monkeypatch):
    """FS 3.5: "Place the victory point (VP) marker (positive side up) in the \"8\" box of the VP
    Track." units.json's markers carry the 8 (the text's, not provisional, checked by the loader);
    the initial state reads it (state.py had its own 8)."""
    from domain.rulesets.falklands import state as S
    from domain.rulesets.falklands.data import DATA
    assert DATA.markers["vp"]["start"] == 8 and not any(g.startswith("markers") for g in DATA.provisional())
    assert S.initial(30)["vp"][S.TRACK] == 8
    monkeypatch.setattr(DATA, "markers", _markers(vp=10))
    assert S.initial(30)["vp"][S.TRACK] == 10


def test_fs_3_5_the_uk_operations_marker_starts_in_the_box_units_json_gives(monkeypatch):
    """FS 3.5: "Place the UK Operations Remaining marker in the \"30\" box on that track": the
    default count, and the most a game may be given, are units.json's marker start (rules.py had
    its own 30)."""
    import pytest

    from domain.errors import InvalidSetup
    from domain.rulesets.falklands.data import DATA
    from domain.rulesets.falklands.rules import Falklands as FalklandsRules
    assert DATA.markers["uk_operations"]["start"] == 30
    assert FalklandsRules().setup(None, {}).options["uk_operations"] == 30
    monkeypatch.setattr(DATA, "markers", _markers(uk_operations=25))
    assert FalklandsRules().setup(None, {}).options["uk_operations"] == 25
    with pytest.raises(InvalidSetup, match="from 1 to 25"):
        FalklandsRules().setup(None, {"uk_operations": 26})


def test_fs_10_5_the_stealth_aircraft_leaves_after_the_markers_count_of_attacks(monkeypatch):
    """FS 10.5: "this aircraft unit may never make more than five attacks during an entire game,
    after which it's simply removed. Keep a record ... using the marker provided." units.json's AR
    Stealth Missions Remaining marker starts at 5 (the board's track reads it); the removal reads it
    too (combat.py compared with its own 5)."""
    from domain.rulesets.falklands import state as S
    from domain.rulesets.falklands.data import DATA
    from tests.unit.falklands.helpers import AR, UK, answer, op, play as fs_play
    from tests.unit.falklands.test_rules_combat import SEA, fire, stealth_strike
    assert DATA.markers["stealth_missions"]["start"] == 5
    monkeypatch.setattr(DATA, "markers", _markers(stealth_missions=3))
    st = stealth_strike(monkeypatch, attacks_made=2)
    _, st = fs_play(st, AR, op(18, area=SEA, aircraft=["super_etendard"], fire=fire(("super_etendard", "glamorgan"))))
    out, after = answer(st, UK, {"fire": "auto"}, FixedDice(6, default=6))
    assert [e["unit"] for e in events_of(out, "UnitWithdrawn")] == ["super_etendard"]
    assert not S.alive(after, "super_etendard")


# ---- Solitaire Task Force ---------------------------------------------------------------------------
def test_stf_1_10_the_campaigns_submarine_share_is_read_from_composition_json(monkeypatch):
    """STF 1.10: "at least one-third (round down) of its commitment limit on submarines". The text
    gives the share, so data/composition.json carries it unmarked; the campaign's recorded
    ``system_submarines`` reads that one copy (it had its own ``// 3``)."""
    share = stf_rules.DATA.read("composition.json")["submarine_share"]
    assert share == {"rule": "STF 1.10", "numerator": 1, "denominator": 3, "round": "down"}
    assert not any(f == "composition.json" and e == "submarine_share" for f, e, _ in stf_guessed())
    order = {"kind": "campaign", "map": "mediterranean", "side": "US"}
    _, st = play(initial(), order, FixedDice(3, 3, 4, default=1))      # 2D6 = 7: the GameSystem's 52
    assert st["campaign"]["commitment"]["system_submarines"] == 17     # 52 // 3
    monkeypatch.setattr(composition, "SHARE", {**share, "denominator": 2})
    _, st = play(initial(), order, FixedDice(3, 3, 4, default=1))
    assert st["campaign"]["commitment"]["system"] == 52
    assert st["campaign"]["commitment"]["system_submarines"] == 26     # the data's share, not the code's


def _sub_battle() -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", "1010", {"cv": ship("CV", 20, nation="US"), "dd": ship("DD", 4, nation="US")})
    add_group(st, "SR1", "system", "1010", {"k1": ship("SS", 3, torpedoes=3, flotation=2),
                                            "k2": ship("SS", 3, torpedoes=3, flotation=2)}, kind="subron")
    return st


def test_stf_11_5_how_many_sub_entry_areas_the_display_has_is_provisional_and_read(monkeypatch):
    """STF 11.5: GameSystem subs "are placed on the display in entry areas based on random die roll,
    but not so as to violate the rule that there can only be one sub in each area". How many entry
    areas there are (and so the die) is Task Force's tactical display's, not the text's: combat.json
    marks its six provisional, and the placement rolls the die the data gives."""
    assert ("combat.json", "subs", "entry_areas") in stf_guessed()
    assert combat.C["subs"]["entry_areas"] == 6
    monkeypatch.setattr(combat, "C", {**combat.C, "subs": {**combat.C["subs"], "entry_areas": 4}})
    out, _ = run_step(_sub_battle(), "surface_combat", FixedDice(4, 4, 3))
    placing = [r for r in rolls_of(out) if r.rule == "STF 11.5"]
    assert [r.dice[0]["sides"] for r in placing] == [4, 4, 4]
    (placed,) = [e for e in events_of(out, "SystemActs") if e["what"] == "sub placement"]
    assert placed["detail"]["areas"] == {"k1": 4, "k2": 3}


def test_stf_1_11_the_players_free_invasion_freighters_are_counted_by_composition_json(monkeypatch):
    """STF 1.11: the invading side "adds 8 freighters 'for free'". The text gives the 8, which
    data/composition.json's invasion_freighters carries (unmarked) for the GameSystem's invasion;
    the Player's own free freighters read the same entry (forces.py had its own 8)."""
    from tests.unit.stf.test_forces import US_A, drawn, forces_state, small_pool
    spec = stf_rules.DATA.read("composition.json")["invasion_freighters"]
    assert spec["count"] == 8 and spec["vp_at_target"] == 3
    assert not any(f == "composition.json" and e == "invasion_freighters" for f, e, _ in stf_guessed())
    monkeypatch.setattr(composition, "FREIGHTERS", {**composition.FREIGHTERS, "count": 3})
    st = drawn(forces_state(points=21, invader="Player", pool=small_pool()), US_A)
    out, _ = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"]})
    free = events_of(out, "UnitsAssigned")[1]["units"]
    assert sorted(u for u, x in free.items() if x["invasion"]) == ["us-fr-i1", "us-fr-i2", "us-fr-i3"]


def test_stf_1_12_which_nations_carriers_bring_a_fast_resupply_ship_is_read_from_composition_json(monkeypatch):
    """STF 1.12: "for the US only, one freighter". data/composition.json's fast_resupply names the
    nations (["US"], the text's); the Player's free freighters and the escort check read it, as the
    GameSystem's resupply does (forces.py compared with its own "US")."""
    from tests.unit.stf.test_forces import US_A, drawn, forces_state, small_pool
    assert stf_rules.DATA.read("composition.json")["fast_resupply"]["nations"] == ["US"]
    monkeypatch.setattr(composition, "COMPOSITION", {**composition.COMPOSITION, "fast_resupply": {
        **composition.COMPOSITION["fast_resupply"], "nations": []}})
    st = drawn(forces_state(points=21, pool=small_pool()), US_A)
    out, after = play(st, {"kind": "buy", "units": ["us-ff-1", "us-ff-2", "us-ff-3"]})
    assert len(events_of(out, "UnitsAssigned")) == 1  # the purchase, no free freighter after it
    assert after["campaign"]["player_purchase"]["freighters"] == []
    _, after = play(after, {"kind": "form_groups", "groups": [
        {"kind": "tf", "units": ["us-cv-a", "us-ff-1", "us-ff-2", "us-ff-3"]}]})
    assert forces.escort_shortfall(after, "P1") is None  # no fast resupply ship owed


def test_stf_8_8_a_maps_fixed_enemy_nation_is_read_from_campaign_json(monkeypatch):
    """STF 8.8: "If playing in the Caribbean, all forces are automatically US". data/campaign.json
    carries it (maps.caribbean.soviet_player_enemy "US", the text's, unmarked; the other maps None:
    rolled 1-2 NATO, 3-6 US); the first Precise report reads it there (search code compared the map
    name with "caribbean" and fixed "US" itself). A map given a fixed enemy rolls no nationality."""
    from tests.unit.stf.helpers import pool_of, search_state, system_group
    maps = stf_rules.DATA.read("campaign.json")["maps"]
    assert {m: v["soviet_player_enemy"] for m, v in maps.items()} == {
        "caribbean": "US", "giuk": None, "mediterranean": None}
    assert not any(f == "campaign.json" and e.startswith("maps") for f, e, _ in stf_guessed())
    monkeypatch.setattr(composition, "FIXED_ENEMY", {**composition.FIXED_ENEMY, "giuk": "US"})
    st = search_state(system_group("TF1", chit="Captain", size="small", intel="accurate"),
                      pool=pool_of("US", FF=3), player_side="Soviet", system_side=None, map="giuk")
    out, after = play(st, {"kind": "search", "group": "TF1", "search_value": 9}, FixedDice(1, 1, 1, 1))
    assert after["campaign"]["system_side"] == "US"
    assert "STF 8.8" not in [r.rule for r in rolls_of(out)]


def test_stf_10_8_a_maps_fixed_strike_nation_is_read_from_campaign_json(monkeypatch):
    """STF 10.8: "(Exception: If playing in the Caribbean, all forces are US)": the strike's nation
    reads data/campaign.json's soviet_player_enemy too (air code had its own "caribbean" and "US")."""
    from tests.unit.stf.test_air import soviet_player_state
    monkeypatch.setattr(composition, "FIXED_ENEMY", {**composition.FIXED_ENEMY, "giuk": "US"})
    out, after = run_step(soviet_player_state("giuk"), "air_attacks", FixedDice(1, 1))
    assert after["campaign"]["system_side"] == "US"
    assert [r.rule for r in rolls_of(out)] == ["STF 10.3", "STF 10.15"]


def test_stf_every_data_file_that_marks_a_value_provisional_has_it_listed_with_the_guesses():
    """shared/rules/README.md: a value the text does not give lives in a data file "marked
    provisional, in one place that the owner of the physical game can correct". Every STF data file
    that marks something provisional is listed by the ruleset's DATA.provisional() (the maps and
    movement.json were marked but not listed)."""
    import json
    from pathlib import Path

    import importlib
    for module in ("maps", "movement"):  # their files' guesses are listed when they are imported
        importlib.import_module(f"domain.rulesets.stf.{module}")

    def marks(obj) -> bool:
        if isinstance(obj, dict):
            return "provisional" in obj or any(marks(v) for v in obj.values())
        return isinstance(obj, list) and any(marks(v) for v in obj)

    folder = Path(stf_rules.__file__).parent / "data"
    marking = {p.name for p in folder.glob("*.json") if marks(json.loads(p.read_text()))}
    assert {"movement.json", "map_giuk.json", "map_places.json"} <= marking
    assert marking <= {f for f, _, _ in stf_guessed()}
    assert ("movement.json", "(file)", "unknown_tf_speed") in stf_guessed()
    assert {("map_giuk.json", "(file)", "grid"), ("map_giuk.json", "(file)", "terrain")} <= stf_guessed()


def test_stf_7_1_the_speed_of_a_task_force_of_unknown_ships_is_the_datas(monkeypatch):
    """The text gives no speed for a GameSystem task force whose ships are not known (7.1 gives the
    subrons'): movement.json's unknown_tf_speed (2, provisional) is what the movement reads."""
    from domain.rulesets.stf import movement
    from tests.unit.stf.helpers import search_state, system_group
    st = search_state(system_group("TF1", intel="unknown"), phase="Movement")
    group = st["groups"]["TF1"]
    assert movement.system_speed(st, group)[0] == 2
    monkeypatch.setattr(movement, "MOVE", {**movement.MOVE, "unknown_tf_speed": 3})
    assert movement.system_speed(st, group)[0] == 3
