"""A rule's code is found from its number alone, as docs/rulesets.md ("Find a rule's code") says:
the number in a module (or a data file) of its ruleset's package, an operation's ``op_N``, a
random event's effect, a table's name. A rule implemented where its number is written nowhere
fails here: write the number beside the code (a docstring or a comment)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from domain.rulesets.falklands import ops

RULESETS = Path(__file__).resolve().parents[2] / "domain" / "rulesets"


def _texts(name: str) -> tuple[str, str]:
    package = RULESETS / name
    # rulebook.py lists what counts as a rule number; it is no rule's code
    code = "\n".join(p.read_text(encoding="utf-8") for p in package.rglob("*.py") if p.name != "rulebook.py")
    data = "\n".join(p.read_text(encoding="utf-8") for p in (package / "data").rglob("*.json"))
    return code, data


def _named(number: str, text: str) -> bool:
    """``number`` ("6.4", "4.4(6)") written in ``text``, alone or inside a range of its chapter
    ("8.1-8.3", "STF 10.1-10.16")."""
    if re.search(rf"(?<![\d.#-]){re.escape(number)}(?![\d])", text):
        return True
    chapter, _, section = number.partition(".")
    if not section.isdigit():
        return False
    return any(int(a) <= int(section) <= int(b)
               for a, b in re.findall(rf"(?<![\d.]){chapter}\.(\d+) ?[-–] ?{chapter}\.(\d+)", text))


def _found(ruleset: str, rule: str, code: str, data: str) -> bool:
    number = rule.split(" ", 1)[1]
    if m := re.fullmatch(r"7\.1 Op #(\d+)", number):  # an operation: ops.op_N, in ops.OPS
        return ops.OPS.get(int(m.group(1))) is getattr(ops, f"op_{m.group(1)}", None)
    if m := re.fullmatch(r"11\.3 (\d-\d)", number):  # a random event: its effect in data/events.json
        effects = [e["effect"] for e in json.loads((RULESETS / ruleset / "data" / "events.json").read_text(
            encoding="utf-8"))["results"].values() if e["event"] == m.group(1)]
        return bool(effects) and all(re.search(rf"[\"']{e}[\"']", code) for e in effects)
    if number.startswith("table: "):  # a table: its name
        table = re.sub(r" \(.*\)$", "", number.removeprefix("table: "))
        return any(table in re.sub(r"\s+#?\s*", " ", text) for text in (code, data))  # wrapped lines too
    return _named(number, code) or _named(number, data)


@pytest.mark.parametrize("ruleset", ["falklands", "stf"])
def test_every_rule_number_leads_to_its_code(ruleset):
    manifest = json.loads((RULESETS / ruleset / "coverage.json").read_text(encoding="utf-8"))["rules"]
    code, data = _texts(ruleset)
    lost = [rule for rule, entry in manifest.items()
            if entry["status"] != "not applicable" and not _found(ruleset, rule, code, data)]
    assert not lost, f"found nowhere from their number (docs/rulesets.md, \"Find a rule's code\"): {lost}"


def test_the_finder_reads_a_range_and_not_a_longer_number():
    assert _named("8.2", "FS 8.1-8.3: submarines") and not _named("8.2", "FS 8.21") and not _named("6.1", "event 6-1")
    assert not _named("10.1", "FS 10.11") and _named("10.11", "(FS 10.11)") and not _named("2.4", "STF 12.4")


def test_the_falklands_code_table_is_one_table_of_its_modules():
    """docs/rulesets.md, Falklands Showdown, "Code": a row per module of the package, and only
    those, in one table (a blank line ends a Markdown table: the rows after it show as text)."""
    text = (RULESETS.parents[1] / "docs" / "rulesets.md").read_text(encoding="utf-8")
    section = text.split("## Falklands Showdown", 1)[1].split("### Code", 1)[1].split("\n### ", 1)[0]
    table = re.search(r"^\| module \| does \|\n\|---\|---\|\n((?:\|.*\n)+)", section, re.M).group(1)
    rows = re.findall(r"^\| `([\w.]+)` \|", table, re.M)
    modules = sorted(p.name for p in (RULESETS / "falklands").glob("*.py") if p.name != "__init__.py")
    assert len(rows) == len(re.findall(r"^\| `", section, re.M)), "a row outside the table"
    assert sorted(rows) == modules
