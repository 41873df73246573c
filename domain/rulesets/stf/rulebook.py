"""The rule numbers of Solitaire Task Force's text (../shared/rules/003_74ca0e4e298164eb.txt), the
ones its coverage manifest (coverage.json) must account for:

- every numbered rule ``N.M`` and ``N.M.K`` at the start of a line, bulleted or not (1.1 to
  13.12, 2.6.1 to 2.6.5); a chapter's ``N.0`` heading is a title, not a rule;
- every table of the text, as ``STF table: <name>`` (TABLES): the tables inside rules 1.2, 1.5,
  2.1, 3.1, 4.1 and 13.10, and the six printed after the rules.

A rule's code, from its number: docs/rulesets.md, Solitaire Task Force, "Find a rule's code".
"""

from __future__ import annotations

import re

TEXT_FILE = "003_74ca0e4e298164eb.txt"

TABLES = (
    "Mission Table (1.2)",
    "Commitment Limit Table (1.5)",
    "Ground Aviation Table (2.1)",
    "Surveillance Table (3.1)",
    "Tactical Coordination Value Table (4.1)",
    "Badger and Backfire Table (13.10)",
    "Precise Composition Table - US",
    "Precise Composition Table - Soviet",
    "Air Attack Table",
    "Invasion Target Megahex Table",
    "Starting Megahex Table",
)

_RULE = re.compile(r"^[\s\-]*(\d{1,2})\.(\d{1,2})(?:\.(\d{1,2}))?\s", re.M)


def rule_numbers(text: str) -> list[str]:
    out: list[str] = []
    for m in _RULE.finditer(text):
        if m.group(2) == "0" and not m.group(3):
            continue
        number = "STF " + ".".join(g for g in m.groups() if g)
        if number not in out:
            out.append(number)
    if "PRECISE COMPOSITION TABLE" in text:
        out += [f"STF table: {name}" for name in TABLES]
    return out
