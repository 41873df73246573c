"""PG 2: tabled rolls (domain/rulesets/toolkit/tables.py; docs/dice.md, "Tabled rolls").

PG 2  Tabled fire: a seat orders ``fire`` naming ``odds``, a column of the PG 2 combat results
      table (data/tables.json), and optionally ``cover`` (true: −1) and ``elite`` (true: +1).
      The server rolls 2d6, adds the modifiers and reads the table in that column at the modified
      roll; a modified roll beyond the table reads its first or last row (the table's
      ``off_table``: clamp). The result is applied: A, the other side scores its VP; D or DE,
      the firing side scores them; - nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.proving.rules import SIDES, kind
from domain.rulesets.toolkit.data import Dataset
from domain.rulesets.toolkit.tables import load_tables, roll_on

_FILE = Path(__file__).parent / "data" / "tables.json"
DATA = Dataset(_FILE.parent)  # its provisional() lists the tables' guesses
TABLES = load_tables(DATA, _FILE.name)
_ENTRIES = DATA.read(_FILE.name)["tables"]
CRT = TABLES["PG 2 combat results"]
RESULTS = next(e for e in _ENTRIES if e["name"] == CRT.name)["results"]
_MISSING = {str(r) for _, _, results in CRT.rows for r in results} - set(RESULTS)
if _MISSING:
    raise ValueError(f"{_FILE.name}: table {CRT.name!r}: results without an effect: {', '.join(sorted(_MISSING))}")
MODIFIERS = {"cover": {"value": -1, "reason": "cover (PG 2)"}, "elite": {"value": 1, "reason": "elite (PG 2)"}}


def _template(state: dict, seat: str) -> dict | None:
    if state.get("pending"):
        return None
    return {"kind": "fire", "rule": "PG 2", "prompt": "fire on the PG 2 combat results table",
            "fields": {"odds": {"choices": list(CRT.columns)},
                       "cover": {"type": "boolean", "optional": True},
                       "elite": {"type": "boolean", "optional": True}}}


@kind("fire", _template, rule="PG 2", fields={"odds": "a column of the PG 2 combat results table",
                                              "cover": "true: -1 (optional)", "elite": "true: +1 (optional)"})
def fire(state: dict, seat: str, order: dict, dice: Any) -> list:
    """PG 2: fire on the combat results table in an odds column; 2d6, −1 cover, +1 elite."""
    if state.get("pending"):
        owed = state["pending"][0]
        raise RuleViolation(owed["rule"], f"{owed['seat']} answers decision {owed['id']} first")
    odds = order.get("odds")
    if odds not in CRT.columns:
        raise InvalidOrder(f"'odds' is a column of the PG 2 combat results table: {', '.join(CRT.columns)}",
                           rule="PG 2", field="odds")
    for name in MODIFIERS:
        if not isinstance(order.get(name, False), bool):
            raise InvalidOrder(f"'{name}' is true or false", rule="PG 2", field=name)
    modifiers = [m for name, m in MODIFIERS.items() if order.get(name)]
    made, reading = roll_on(dice, CRT, seat=seat, purpose=f"fire at {odds}", column=odds, modifiers=modifiers)
    effect = RESULTS[reading.result]
    if not effect["vp"]:
        return [made]
    side = seat if effect["vp_to"] == "self" else next(s for s in SIDES if s != seat)
    total = state["vp"][side] + effect["vp"]
    return [made, (ev.VPScored, {"side": side, "delta": effect["vp"], "total": total,
                                 "reason": f"{reading.result}: {effect['title']}", "rule": "PG 2"})]
