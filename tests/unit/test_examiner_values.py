"""Examiner's audit of the rulesets' game values: "Values a text does not give go in data files
marked provisional, never in code" (shared/rules/README.md). Each test names the rule whose value it
checks; a value the text does not give must be listed by the ruleset's data as provisional, and the
code must read it from the data rather than carry its own copy.
"""

from __future__ import annotations

import copy
import dataclasses

from domain.rulesets.falklands.data import DATA as FS_DATA
from domain.rulesets.stf import forces, movement
from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.toolkit.engine import Ctx
from tests.unit.falklands.helpers import FixedDice, events_of
from tests.unit.stf.helpers import at_phase, initial


# ---- Falklands --------------------------------------------------------------------------------------
def test_fs_2_2_land_areas_the_text_does_not_name_have_their_name_marked_provisional():
    """FS 2.2 gives the Tactical Map without its geometry; the text names only Port Stanley (4.2),
    Goose Green, Fox Bay, Port Howard, Pebble Island (4.4(5), 6.2(4)) and Lafonia (7.1 Op #24).
    Every other land area of data/map.json is a guess, and says so."""
    named_by_the_text = {"port_stanley", "goose_green", "fox_bay", "port_howard", "pebble_island", "lafonia"}
    guessed = set(FS_DATA.provisional())
    for aid in FS_DATA.land_areas:
        assert (f"areas.{aid}.name" in guessed) == (aid not in named_by_the_text), aid


def test_fs_7_1_op_2_units_the_text_gives_only_by_abbreviation():
    """FS 7.1 Op #2: "The AR player activates his choice of one of the following units: 3M or 2 or
    SF Anf." The abbreviations are the text's; the full names, and whether 3M and 2 are infantry,
    are not."""
    guessed = set(FS_DATA.provisional())
    abbr = {u: FS_DATA.units[u]["abbr"] for u in ("bim_3", "ri_2", "sf_anf")}
    assert abbr == {"bim_3": "3M", "ri_2": "2", "sf_anf": "SF Anf"}
    assert {f"units.{u}.abbr" for u in abbr}.isdisjoint(guessed)
    assert {f"units.{u}.name" for u in abbr} <= guessed
    assert {"units.bim_3.type", "units.ri_2.type"} <= guessed
    assert "units.sf_anf.type" not in guessed  # "SF Anf": a special forces unit


# ---- Solitaire Task Force ---------------------------------------------------------------------------
def test_stf_11_1_the_ssm_ranges_are_provisional():
    """STF 11.1 says who may fire long range SSMs and at what, 7.8 that a CV task force "moves to 1 hex
    and launches SSMs"; neither gives how far an SSM reaches, so both ranges are Task Force's."""
    guessed = {(g.file, g.entry, g.field) for g in stf_rules.DATA.provisional()}
    assert ("combat.json", "long_range_ssm", "short_range_hexes") in guessed
    assert ("combat.json", "long_range_ssm", "long_range_hexes") in guessed


def test_stf_1_12_escorts_of_frigate_level_or_higher_follow_the_class_order_of_the_data():
    """STF 1.12: "at least three ships of frigate level (or higher) which have ASW capabilities". Which
    classes rank above a frigate is Task Force's (page 17), kept provisional in composition.json's
    class order: the escorts are read from it (carriers aside), highest first."""
    order = stf_rules.DATA.read("composition.json")["class_order"]["surface"]
    assert forces.ESCORT_CLASSES == tuple(c for c in order[:order.index("FF") + 1] if c != "CV")
    assert "PC" not in forces.ESCORT_CLASSES  # below a frigate


def test_stf_6_2_the_starting_megahex_roll_takes_its_die_from_the_table(monkeypatch):
    """STF 6.2: the GameSystem's groups are "placed according to the appropriate Starting Megahex
    Table". The text prints its rows 1-10 and names no die; data/starting.json says which die reads
    them, and the roll is made with that die, not one the code fixes."""
    table = movement.STARTING["starting megahex giuk"]
    assert table.dice == "1d10"
    monkeypatch.setitem(movement.STARTING, "starting megahex giuk", dataclasses.replace(table, dice="1d8"))
    st = at_phase(initial(), "Deployment", turn=0)
    st["campaign"].update({"map": "giuk", "player_side": "Soviet", "system_side": "US"})
    dice = FixedDice(8, 1)
    ctx = Ctx(copy.deepcopy(st), dice, stf_rules.HOOKS)
    movement.place_system_group(ctx, "giuk", "TF1", "tf", "STF 6.2")
    assert dice.calls[0]["sides"] == 8
    (placed,) = events_of(ctx.out, "GroupPlaced")
    assert placed["group"]["placed"].startswith("megahex 46,")  # row 8 of the US TF column
