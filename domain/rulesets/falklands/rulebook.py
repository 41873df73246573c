"""The rule numbers of Falklands Showdown's text (../shared/rules/000_118e0bb5a1449bfd.txt), the
ones its coverage manifest (coverage.json) must account for:

- every numbered section ``N.M`` (1.1 to 11.3); a chapter's ``N.0`` line is its title only;
- the numbered clauses of a section, ``FS 4.4(1)``-``(6)`` and ``FS 6.2(1)``-``(4)``;
- the 25 operations of FS 7.1, ``FS 7.1 Op #1`` to ``FS 7.1 Op #25``;
- the 36 results of the random events list, ``FS 11.3 1-1`` to ``FS 11.3 6-6`` (a heading like
  "5-6 & 6-1 & 6-2:" names three results of one event).

These are the names that errors, events and tests already use. A rule's code, from its number:
docs/rulesets.md, Falklands Showdown, "Find a rule's code".
"""

from __future__ import annotations

import re

from domain.rulesets.toolkit.coverage import sections

TEXT_FILE = "000_118e0bb5a1449bfd.txt"


def rule_numbers(text: str) -> list[str]:
    out = sections(text, "FS")
    out += [f"FS 7.1 Op #{n}" for n in re.findall(r"^Op(?:\. No\.)? #\s?(\d+)\b", text, re.M)]
    for heading in re.findall(r"^(\d-\d(?: & \d-\d)*):", text, re.M):
        out += [f"FS 11.3 {result}" for result in heading.split(" & ")]
    return out
