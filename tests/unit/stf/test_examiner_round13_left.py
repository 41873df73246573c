"""Examiner round 13, STF: what the earlier rounds left open, read against the text.

Each test names the rule it checks; docs/rulesets.md ("Solitaire Task Force", the readings of
round 13) writes down the readings chosen."""

from __future__ import annotations

import copy

from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.toolkit.engine import Ctx, run
from tests.unit.stf.helpers import (R, FixedDice, NoDice, add_group, combat_state, events_of, play, ship)

HEX = "0101"


def _battle(phase: str) -> dict:
    st = combat_state(phase)
    add_group(st, "P1", "Player", HEX, {"nimitz": ship("CV", 20, nation="US"),
                                         "spruance": ship("DD", 4, nation="US", ssm=8, ssm_loads=2)})
    add_group(st, "TF1", "system", "0505", {"kiev": ship("CV", 15, air={"L": 0, "M": 3, "H": 2, "EW": 0, "AEW": 0}),
                                            "krivak": ship("FF", 3), "sovremenny": ship("DD", 4)})
    return st


# ---- STF 8.11, 12.5-12.7 and the Terminal phase: the base game's results can still be reported ------
def test_stf_11_1_the_terminal_phase_offers_and_takes_the_report_of_results_not_yet_reported():
    """The GameSystem's surface combat runs after the Player's Combat orders (STF 6.7), and its
    questions ask only which unit sank: hits, squadrons and flight decks the base game gave in it
    have no report window left in the turn unless the Terminal phase takes one, and its steps
    (8.11's degradation, 9.5's repair, 12.5-12.7's retirement) read them. The report is offered
    and taken there, before ``end_phase`` runs those steps."""
    st = _battle("Terminal")
    offer = R.legal_orders(st, "Player")
    assert {"kind": "report", "sunk": []} in [{k: v for k, v in o.items() if k not in ("title", "rule")} for o in offer]
    out, after = play(st, {"kind": "report", "flight_deck_inoperable": ["kiev"], "sunk": ["krivak"]})
    assert after["units"]["kiev"]["flight_deck_inoperable"] and after["units"]["krivak"]["sunk"]
    assert after["vp"]["Player"] == 3
