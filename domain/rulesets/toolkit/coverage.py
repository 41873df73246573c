"""Rules coverage: for every rule number of a game's text (and every table of its data), what the
server does with it. A ruleset keeps its manifest in ``coverage.json`` beside its rules:

    {"ruleset": "falklands", "text": "000_118e0bb5a1449bfd.txt",
     "rule_numbers": "what counts as a rule number of this text",
     "rules":  {"FS 10.3": {"status": "adjudicated", "tests": ["tests/unit/...py::test_fs_10_3_..."]},
                "FS 4.7":  {"status": "declared", "why": "the seats write down their bids"}, ...},
     "tables": {"events.json": {"status": "adjudicated", "what": "FS 11.3", "tests": [...]}}}

A status is one of STATUSES: ``adjudicated`` (the server applies the rule; ``tests`` name the tests
that check it, as pytest node ids or test files), ``declared`` (a seat supplies the value; ``why``),
``not applicable`` (nothing to adjudicate: an introduction, a design note; ``why``), or ``pending``
(being built: ``tests`` name the tests to come, and docs count it apart). ``warlog rules RULESET``
prints a manifest; tests/unit/test_rules_coverage.py checks it against the text and the tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from domain.rulesets.toolkit.data import DataError, check_choice, check_fields, freeze

STATUSES = ("adjudicated", "declared", "not applicable", "pending")
MANIFEST = "coverage.json"
_ITEM = {"status": str, "tests": list, "why": str, "what": str}


def load(path: Path | str) -> dict:
    """A checked, read-only manifest: each item has a status, tests when adjudicated or pending, a
    why when declared or not applicable."""
    path = Path(path)
    f = path.name
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f, "(file)", f"cannot be read as JSON: {exc}") from exc
    check_fields(f, "(file)", doc, {"ruleset": str, "text": str, "rule_numbers": str, "rules": dict,
                                    "tables": dict})
    for part in ("rules", "tables"):
        for key, item in doc[part].items():
            entry = f"{part}.{key}"
            check_fields(f, entry, item, _ITEM, optional=("tests", "why", "what"))
            check_choice(f, entry, "status", item["status"], STATUSES)
            if item["status"] in ("adjudicated", "pending") and not item.get("tests"):
                raise DataError(f, entry, f"an {item['status']} rule names the tests that check it")
            if item["status"] in ("declared", "not applicable") and not item.get("why", "").strip():
                raise DataError(f, entry, f"a {item['status']} rule says why")
            if not all(isinstance(t, str) and t.startswith("tests/") for t in item.get("tests", [])):
                raise DataError(f, entry, "a test is named by its path from the project folder, "
                                "'tests/...py' or 'tests/...py::test_name'")
    return freeze(doc)


def counts(manifest: dict, part: str = "rules") -> dict[str, int]:
    """{status: how many items of ``part`` have it}, every status present (zero or more)."""
    out = dict.fromkeys(STATUSES, 0)
    for item in manifest[part].values():
        out[item["status"]] += 1
    return out


def summary(manifest: dict) -> dict:
    """The manifest as plain JSON with its counts (``warlog rules`` and GET /rulesets/<name>/rules)."""
    return {
        "ruleset": manifest["ruleset"], "text": manifest["text"], "rule_numbers": manifest["rule_numbers"],
        "counts": {"rules": counts(manifest, "rules"), "tables": counts(manifest, "tables")},
        "rules": json.loads(json.dumps(manifest["rules"])),
        "tables": json.loads(json.dumps(manifest["tables"])),
    }


# ---- rule numbers of a text ----------------------------------------------------------------------

def numbered_lines(text: str, prefix: str) -> list[str]:
    """Rules written one to a line as ``PREFIX n  text`` (a ruleset's docstrings, like FF 1-7);
    ``PREFIX n-m`` stands for each number from n to m. Each number once, in the order first met."""
    out: list[str] = []
    for m in re.finditer(rf"^{re.escape(prefix)} (\d+)(?:-(\d+))?\s", text, re.M):
        low, high = int(m.group(1)), int(m.group(2) or m.group(1))
        out += [f"{prefix} {n}" for n in range(low, high + 1) if f"{prefix} {n}" not in out]
    return out


def sections(text: str, prefix: str) -> list[str]:
    """The numbered sections of a rule book, ``N.M`` at the start of a line (``N.0`` is a chapter's
    title, not a rule), and the clauses ``1)``, ``2)``... inside a section, as ``N.M(k)``."""
    out: list[str] = []
    current = None
    for line in text.splitlines():
        head = re.match(r"(\d+)\.(\d+)(?=\s|$)", line)
        if head:
            current = None if head.group(2) == "0" else f"{head.group(1)}.{head.group(2)}"
            if current:
                out.append(f"{prefix} {current}")
            continue
        clause = re.match(r"(\d+)\)\s", line)
        if clause and current:
            out.append(f"{prefix} {current}({clause.group(1)})")
    return out
