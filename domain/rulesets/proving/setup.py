"""PG 4 Set-up by dice: a game created with the scenario ``muster`` generates its forces by dice
after both seats have joined, before play begins.

PG 4.1  When the last seat joins, the server rolls 1d6 for the ``system`` seat on the Ground
        Table: 1-3 Red holds the ridge, 4-6 Blue holds it.
PG 4.2  Then each seat orders ``muster`` once, in either order: the server rolls 1d6 on the
        Strength Table for the number of its companies (1-2: 2, 3-4: 3, 5-6: 4), then 1d6 for each
        company on the Company Table (1-3 rifle, 4-5 weapons, 6 armour). Each company is recorded
        as a marker the side gains.
PG 4.3  Until both sides have mustered, every other order is refused (PG 4). The second muster
        ends the set-up: turn 1 begins, which closes dice epoch 0 and reveals its seed, so every
        die of the set-up can be checked before play begins.
"""

from __future__ import annotations

from typing import Any

from domain import events as ev
from domain.errors import RuleViolation
from domain.rulesets import SYSTEM
from domain.rulesets.proving.rules import SCENARIOS, SIDES, Scenario, kind

SCENARIO = "muster"
SETUP_PHASE = "Set-Up"
PLAY_PHASE = "Play"

# The tables of PG 4.1 and 4.2, read by one d6: face -> result.
GROUND = {1: "Red", 2: "Red", 3: "Red", 4: "Blue", 5: "Blue", 6: "Blue"}
STRENGTH = {1: 2, 2: 2, 3: 3, 4: 3, 5: 4, 6: 4}
COMPANY = {1: "rifle", 2: "rifle", 3: "rifle", 4: "weapons", 5: "weapons", 6: "armour"}


def _tabled(dice: Any, seat: str, purpose: str, rule: str, table_name: str, table: dict):
    """One d6 read on ``table``; the roll records the table, the row read and the result."""
    roll = dice.roll(1, 6, seat=seat, purpose=purpose, rule=rule)
    result = table[roll.values[0]]
    return roll.resolve({"table": table_name, "row": roll.values[0], "result": result}, str(result)), result


def start(state: dict) -> dict:
    """The state before the set-up: turn 0, the set-up phase, nobody mustered."""
    return {**state, "turn": 0, "phase": SETUP_PHASE, "phases": [SETUP_PHASE, PLAY_PHASE]}


def opening(state: dict, dice: Any) -> list:
    """PG 4.1: the server's roll for the ridge, as soon as dice epoch 0 opens."""
    roll, side = _tabled(dice, SYSTEM, "who holds the ridge", "PG 4.1", "PG 4.1 Ground Table", GROUND)
    return [roll, (ev.ControlChanged, {"area": "ridge", "side": side, "previous": None, "rule": "PG 4.1"})]


def mustered(state: dict, side: str) -> bool:
    return bool(state["markers"].get(side))


def check(state: dict, seat: str, order: dict) -> None:
    """PG 4.3: during the set-up, only ``muster``."""
    if state["phase"] == SETUP_PHASE and order.get("kind") != "muster":
        waiting = [s for s in SIDES if not mustered(state, s)]
        raise RuleViolation("PG 4", f"the set-up by dice comes first: waiting for {' and '.join(waiting)} to muster")


def _muster_template(state: dict, seat: str) -> dict | None:
    if state.get("scenario") != SCENARIO or state["phase"] != SETUP_PHASE or mustered(state, seat):
        return None
    return {"kind": "muster", "rule": "PG 4.2"}


@kind("muster", _muster_template, rule="PG 4.2")
def muster(state: dict, seat: str, order: dict, dice: Any) -> list:
    if state.get("scenario") != SCENARIO or state["phase"] != SETUP_PHASE:
        raise RuleViolation("PG 4.2", "mustering is done in the set-up of the muster scenario")
    if mustered(state, seat):
        raise RuleViolation("PG 4.2", f"{seat} has mustered already")
    roll, companies = _tabled(dice, seat, f"{seat}'s strength", "PG 4.2", "PG 4.2 Strength Table", STRENGTH)
    out: list = [roll]
    for n in range(1, companies + 1):
        roll, company = _tabled(dice, seat, f"{seat}'s company {n}", "PG 4.2", "PG 4.2 Company Table", COMPANY)
        out += [roll, (ev.MarkerGained, {"side": seat, "marker": f"{company} company", "rule": "PG 4.2"})]
    if all(mustered(state, s) for s in SIDES if s != seat):
        out.append((ev.TurnAdvanced, {"turn": 1, "phase": PLAY_PHASE, "rule": "PG 4.3"}))
    return out


SCENARIOS[SCENARIO] = Scenario(start=start, opening=opening, check=check)
