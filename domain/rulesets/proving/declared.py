"""PG 3: declared results (domain/rulesets/toolkit/declared.py; docs/rulesets.md, "Declared results").

PG 3  Declared results. (a) A seat orders ``search`` with ``search_value``, the value the base
      game's rule book (not in the texts) gives its searcher, a whole number from 1 to 10
      (data/declared.json). The value is recorded as declared (ResultDeclared); then the server
      rolls d10: at or under the value the search succeeds and the searching side scores 1 VP.
      (b) A seat orders ``chart``: the server rolls 2d6, and the seat declares what the chart
      printed on the map says for that roll, a whole number from 0 to 3, as its answer to a
      pending decision of kind "declare" (order ``declare`` with ``decision`` and ``value``); its
      side scores that many VP. While a declaration is owed, its seat gives no other order.
      A declaration out of its range is refused naming PG 3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.proving.rules import kind
from domain.rulesets.toolkit.declared import answer, ask, declare, load_declarable, pending_declaration

_FILE = Path(__file__).parent / "data" / "declared.json"
DECLARABLE = {e["what"]: load_declarable(e, _FILE.name) for e in json.loads(_FILE.read_text())["declarable"]}
SEARCH = DECLARABLE["search value"]
CHART = DECLARABLE["map chart result"]


def owed_first(state: dict, seat: str) -> None:
    """PG 3: while a declaration is owed, its seat gives no other order."""
    owed = pending_declaration(state, seat)
    if owed is not None:
        raise RuleViolation(owed["rule"], f"declare first: {owed['prompt']} (decision {owed['id']})")


def _vp(state: dict, seat: str, delta: int, reason: str) -> tuple:
    return (ev.VPScored, {"side": seat, "delta": delta, "total": state["vp"][seat] + delta,
                          "reason": reason, "rule": "PG 3"})


def _search_template(state: dict, seat: str) -> dict | None:
    if pending_declaration(state, seat):
        return None
    return {"kind": "search", "rule": "PG 3", "prompt": "search: declare the search value, the server rolls d10",
            "fields": {"search_value": {"choices": list(range(SEARCH.min, SEARCH.max + 1)),
                                        "description": f"declared: {SEARCH.stands_for}"}}}


@kind("search", _search_template, rule="PG 3",
      fields={"search_value": "the search value declared, a whole number from 1 to 10"})
def search(state: dict, seat: str, order: dict, dice: Any) -> list:
    """PG 3: declare the search value (1-10, from a rule book not in the texts); the server rolls d10 at or under it."""
    owed_first(state, seat)
    declared = declare(SEARCH, seat, order.get("search_value"), field="search_value")
    value = declared[1]["value"]
    made = dice.roll(1, 10, seat=seat, purpose=f"search against the declared search value {value}",
                     rule="PG 3", notation="1d10")
    found = made.total <= value
    made.resolve({"compare": "<=", "value": value, "modifiers": [], "result": made.total,
                  "declared": SEARCH.what}, "success" if found else "failure")
    return [declared, made, *([_vp(state, seat, 1, "search succeeded")] if found else [])]


def _chart_template(state: dict, seat: str) -> dict | None:
    if pending_declaration(state, seat):
        return None
    return {"kind": "chart", "rule": "PG 3", "prompt": "roll 2d6 on the map's chart; you declare what it says",
            "fields": {}}


@kind("chart", _chart_template, rule="PG 3")
def chart(state: dict, seat: str, order: dict, dice: Any) -> list:
    """PG 3: the server rolls 2d6 on the map's chart; the seat then declares what it says (0-3)."""
    owed_first(state, seat)
    made = dice.roll(2, 6, seat=seat, purpose="the chart printed on the map", rule="PG 3", notation="2d6")
    key = f"{made.epoch}-{made.dice[0]['nonce']}"
    prompt = f"the map's chart at {made.total}: what does it say ({CHART.describe()})?"
    return [made, ask(CHART, seat, key, prompt, {"roll": made.total})]


def _declare_template(state: dict, seat: str) -> dict | None:
    owed = pending_declaration(state, seat)
    if owed is None:
        return None
    return {"kind": "declare", "rule": owed["rule"], "decision": owed["id"], "prompt": owed["prompt"],
            "fields": {"decision": [owed["id"]],
                       "value": {"choices": list(range(CHART.min, CHART.max + 1)),
                                 "description": f"declared: {CHART.stands_for}"}}}


@kind("declare", _declare_template, rule="PG 3",
      fields={"decision": "the id of the declaration owed", "value": "what the chart says, 0 to 3"})
def declare_answer(state: dict, seat: str, order: dict, dice: Any) -> list:
    """PG 3: answer a pending "declare" decision with the value the chart gives."""
    owed = pending_declaration(state, seat)
    if owed is None:
        raise RuleViolation("PG 3", "no declaration is owed by this seat")
    if order.get("decision") != owed["id"]:
        raise InvalidOrder(f"'decision' is the id of the declaration owed: {owed['id']}", rule="PG 3",
                           field="decision")
    outcomes = answer(CHART, seat, owed, order.get("value"))
    value = outcomes[-1][1]["value"]
    roll = owed["context"]["roll"]
    return [*outcomes, *([_vp(state, seat, value, f"the map's chart at {roll}")] if value else [])]
