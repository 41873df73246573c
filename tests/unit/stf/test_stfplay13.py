"""A solitaire player's campaign through the CLI (round 13, stfplay13): the report's refusals that
did not say what to type. Built states (tests.unit.stf.helpers)."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from tests.unit.stf.helpers import add_group, combat_state, play, ship

HEX = "1810"


def battle() -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", HEX, {"us-cv-nimitz": ship("CV", 20, name="Nimitz", nation="US",
                                                             air={"L": 6, "M": 6, "H": 3, "EW": 1, "AEW": 1})})
    add_group(st, "TF1", "system", HEX, {
        "sov-cv-minsk": ship("CV", 15, name="Minsk", air={"L": 0, "M": 3, "H": 0, "EW": 0, "AEW": 0},
                             aircraft={"L": None, "M": "Yak-38 Forger", "H": None, "EW": None, "AEW": None}),
        "sov-ff-bditelny": ship("FF", 3, name="Bditelny")})
    return st


def test_stf_11_1_a_report_naming_a_ship_by_its_name_is_told_its_id():
    """STF 11.1: a player reporting the frigate his strike sank as "Bditelny" (the name every line
    of the history gives it) was told "Bditelny is no unit of this game", which it is: the report
    names units by id, and the refusal now says which id that ship has."""
    with pytest.raises(RuleViolation) as e:
        play(battle(), {"kind": "report", "sunk": ["Bditelny"]})
    assert e.value.rule == "STF 11.1"
    assert "sov-ff-bditelny" in str(e.value) and "no unit of this game" not in str(e.value), str(e.value)
    with pytest.raises(RuleViolation, match="no unit of this game"):  # a name no unit has: as before
        play(battle(), {"kind": "report", "sunk": ["Bismarck"]})


def test_stf_11_1_a_squadron_named_by_its_aircraft_is_told_the_carriers_squadrons():
    """STF 11.1 (12.3): 'sov-cv-minsk:Yak-38' (the aircraft the carrier flies) was refused as
    "sov-cv-minsk carries no Yak- squadron": the kind cut at its digits, and no word of what the
    carrier does carry. The refusal now keeps the name whole and lists the carrier's squadrons."""
    with pytest.raises(RuleViolation) as e:
        play(battle(), {"kind": "report", "squadrons_destroyed": ["sov-cv-minsk:Yak-38"]})
    assert e.value.rule == "STF 11.1"
    text = str(e.value)
    assert "Yak-38 squadron" in text and "sov-cv-minsk:M" in text and "Yak-38 Forger" in text, text
    _, st = play(battle(), {"kind": "report", "squadrons_destroyed": ["sov-cv-minsk:M"]})
    assert st["units"]["sov-cv-minsk"]["air_lost"] == ["M"]
