"""The readable lines (projections/narrate.py) speak the game's names, dice against a hit number
in words, and decisions as answers, not Python reprs (issue 29, items 14 and 15)."""

from __future__ import annotations

from domain.rulesets import find_ruleset
from projections.narrate import describe

FS = find_ruleset("falklands")


def line(type_: str, **data) -> dict:
    return {"game_id": "g", "seq": 9, "type": type_, "data": data}


def test_a_move_names_the_unit_and_the_areas_as_the_game_does():
    moved = line("UnitMoved", unit="ri_2", origin="argentina", destination="port_stanley", rule="FS 7.1 Op #2")
    assert describe(moved, FS) == "2nd Infantry Regiment moved from Argentina to Port Stanley"
    assert describe(moved) == "ri_2 moved from argentina to port_stanley"  # no ruleset: the ids


def test_a_battle_names_its_area_and_every_unit():
    battle = line("BattleBegun", area="sa4", attacker="AR", attackers=["a4_1"], defenders=["sheffield"],
                  rule="FS 7.1 Op #18")
    assert describe(battle, FS) == "Battle in Sea Area 4: AR attacks with A-4 Skyhawk 1 against Sheffield (FS 7.1 Op #18)"


def test_freeform_names_stay_as_the_players_wrote_them():
    moved = line("UnitMoved", unit="sa4", origin=None, destination="port_stanley")
    assert describe(moved, find_ruleset("freeform")) == "sa4 moved to port_stanley"


def die(value: int, hit_number: int, modifiers: list[dict], outcome: str) -> dict:
    return line("DiceRolled", seat="UK", purpose="2 Para fires at 12th Infantry Regiment", rule="FS 10.2",
                units=["2_para", "ri_12"], notation="d6", dice=[{"sides": 6, "value": value}],
                target={"hit_number": hit_number, "modifiers": modifiers}, outcome=outcome)


def test_a_die_against_a_hit_number_says_rolled_needed_and_the_printed_number():
    text = describe(die(2, 2, [{"value": -1, "reason": "AR entrenchments (FS 10.7)"}], "hit"), FS)
    assert text.endswith(": rolled 2, needed ≤ 2 (printed 3, −1 AR entrenchments (FS 10.7)): hit (FS 10.2)")
    assert "hit_number" not in text and "vs" not in text
    assert text.startswith("UK rolled d6 for 2 Para fires at 12th Infantry Regiment (2nd Battalion")
    plain = describe(die(5, 3, [], "miss"), FS)
    assert plain.endswith(": rolled 5, needed ≤ 3: miss (FS 10.2)")


def test_a_hit_number_held_at_its_limit_names_the_printed_number_and_fs_10_3():
    """FS 10.3 keeps a modified number within 1 and 5: the modifiers alone cannot tell the printed
    number, the counter does (the die names its shooter and target): 12th Infantry Regiment's
    printed 2, −1 and −1, held at 1. Where the die names no such pair, the line does not make one up."""
    mods = [{"value": -1, "reason": "attacking in mountains (FS 10.6)"}, {"value": -1, "reason": "firing at armor (FS 10.10)"}]
    held = line("DiceRolled", seat="AR", purpose="12th Infantry Regiment fires at Blues and Royals", rule="FS 10.2",
                units=["ri_12", "b_r"], notation="d6", dice=[{"sides": 6, "value": 1}],
                target={"hit_number": 1, "modifiers": mods}, outcome="hit")
    assert describe(held, FS).endswith(
        ": rolled 1, needed ≤ 1 (printed 2, −1 attacking in mountains (FS 10.6), −1 firing at armor (FS 10.10), "
        "sum 0 held at 1 (FS 10.3)): hit (FS 10.2)")
    unnamed = {**held, "data": {**held["data"], "units": []}}
    text = describe(unnamed, FS)
    assert "needed ≤ 1 (−1 attacking in mountains (FS 10.6), −1 firing at armor (FS 10.10))" in text
    assert "printed" not in text


def test_a_decision_reads_as_an_answer_not_a_python_repr():
    resolved = line("DecisionResolved", decision_id="d1", seat="UK", choice={"fire": "auto"})
    assert describe(resolved, FS) == "UK decided: fire: auto"
    moves = line("DecisionResolved", decision_id="d2", seat="AR",
                 choice={"destinations": {"a4_1": "argentina"}})
    assert describe(moves, FS) == "AR decided: destinations: A-4 Skyhawk 1 → Argentina"
    answered = line("OrderAccepted", seat="UK", order_id="o", order={"kind": "decide", "decision": "d1",
                                                                      "choice": {"target": "sheffield"}})
    assert describe(answered, FS) == "UK orders decide: target: Sheffield"


def test_a_marker_is_named_as_the_counter_is():
    gained = line("MarkerGained", side="UK", marker="uk_decisive_leader", rule="FS 11.3 4-1")
    assert describe(gained, FS) == "UK gains marker UK Decisive Leader"


def test_the_rulesets_describe_hook_speaks_first_and_none_leaves_the_generic_line():
    from domain.rulesets import Ruleset

    class Loud(Ruleset):
        def describe(self, event_type, data):
            return f"LOUD {data['unit']}" if event_type == "UnitEliminated" else None

    assert describe(line("UnitEliminated", unit="x", rule=None, roll=None), Loud()) == "LOUD x"
    assert describe(line("UnitMoved", unit="x", origin=None, destination="y"), Loud()) == "x moved to y"


def test_a_tabled_roll_reads_table_column_modified_roll_row_and_result():
    rolled = line("DiceRolled", seat="Red", purpose="fire at 2:1", rule="PG 2", units=[], notation="2d6",
                  dice=[{"sides": 6, "value": 3}, {"sides": 6, "value": 5}], outcome="D",
                  target={"table": "PG 2 combat results", "column": "2:1", "roll": 8, "modified": 7, "row": "7-8",
                          "modifiers": [{"value": -1, "reason": "cover (PG 2)"}], "result": "D"})
    assert describe(rolled) == ("Red rolled 2d6 for fire at 2:1: 3, 5 −1 cover (PG 2) = 7 on the PG 2 combat "
                                "results table, column 2:1, row 7-8: D (PG 2)")


def test_a_declared_result_says_who_declared_what_and_what_it_stands_for():
    declared = line("ResultDeclared", seat="Player", rule="STF 7", stands_for="Task Force 14.2",
                    what="search value", value=6, decision=None)
    assert describe(declared) == "Player declared the search value: 6 (STF 7; it stands for Task Force 14.2)"


def test_a_roll_against_a_list_reads_as_words_not_a_python_list():
    """STF 1.7's carrier draw rolls one die against the carriers left; its line read "5 vs carriers
    ['Clemenceau', 'Foch', …]: America", a Python list in the player's log (round 12)."""
    drawn = line("DiceRolled", seat="Player", rule="STF 1.7", notation="d3", dice=[{"sides": 3, "value": 2}],
                 purpose="STF 1.7: the Player draws carrier 1 of 1 at random from the 3 US carriers",
                 target={"carriers": ["Midway", "Nimitz", "Saratoga"]}, outcome="Nimitz")
    text = describe(drawn, find_ruleset("stf"))
    assert "2 vs carriers Midway, Nimitz, Saratoga: Nimitz (STF 1.7)" in text, text
    assert "[" not in text and "'" not in text, text
