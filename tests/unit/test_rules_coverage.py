"""Rules coverage (domain/rulesets/toolkit/coverage.py): every rule number of each ruleset's text is
in its manifest (coverage.json), the manifest names no rule the text lacks, every test it names
exists (found by reading the test files for ``def test_name``, not by importing them), and
docs/rulesets.md shows the manifests' counts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from domain.rulesets import find_ruleset, ruleset_names
from domain.rulesets.falklands import rulebook
from domain.rulesets.toolkit import coverage
from domain.rulesets.toolkit.data import DataError

ROOT = Path(__file__).resolve().parents[2]
# The game packages of domain/rulesets/ (test modules register toy rulesets of their own).
RULESETS = [n for n in ruleset_names() if type(find_ruleset(n)).__module__.startswith("domain.rulesets.")]


def shared_rules_dir() -> Path | None:
    """../shared/rules/ beside the project folder (or beside a folder above it, for a worktree)."""
    for folder in (ROOT, *ROOT.parents):
        if (folder / "shared" / "rules" / "README.md").exists():
            return folder / "shared" / "rules"
    return None


def rule_numbers_of_the_text(name: str) -> list[str]:
    ruleset = find_ruleset(name)
    text = ruleset.rule_text(shared_rules_dir())
    if text is None:
        pytest.skip(f"the rules text {ruleset.text_file} of {name} is not at hand (../shared/rules/)")
    return ruleset.rule_numbers(text)


def test_every_ruleset_keeps_a_manifest():
    assert {"falklands", "freeform", "proving"} <= set(RULESETS)
    for name in RULESETS:
        assert find_ruleset(name).coverage()["ruleset"] == name


@pytest.mark.parametrize("name", RULESETS)
def test_every_rule_number_of_the_text_is_in_the_manifest_and_no_other(name):
    numbers = rule_numbers_of_the_text(name)
    assert numbers and len(numbers) == len(set(numbers)), "the extractor found a rule number twice"
    listed = set(find_ruleset(name).coverage()["rules"])
    assert [n for n in numbers if n not in listed] == [], "rule numbers of the text missing from coverage.json"
    assert sorted(listed - set(numbers)) == [], "coverage.json names rules the text does not have"


def defined_tests(path: Path) -> set[str]:
    """The names of the test functions and classes a test file defines, read, not imported."""
    text = path.read_text(encoding="utf-8")
    return set(re.findall(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(", text, re.M)) | set(
        re.findall(r"^class\s+(Test\w*)\b", text, re.M))


def missing_test(node: str) -> str | None:
    """Why ``node`` ("tests/x.py" or "tests/x.py::test_y[param]") names no test, or None."""
    file, _, rest = node.partition("::")
    path = ROOT / file
    if not path.is_file():
        return f"{node}: no file {file}"
    names = [part.split("[")[0] for part in rest.split("::")] if rest else []
    absent = [n for n in names if n not in defined_tests(path)]
    return f"{node}: {file} defines no {', '.join(absent)}" if absent else None


@pytest.mark.parametrize("name", RULESETS)
def test_every_test_the_manifest_names_exists(name):
    manifest = find_ruleset(name).coverage()
    problems = [problem for part in ("rules", "tables") for item in manifest[part].values()
                if item["status"] != "pending" for problem in map(missing_test, item.get("tests", [])) if problem]
    assert problems == []


@pytest.mark.parametrize("name", RULESETS)
def test_a_pending_rule_is_marked_adjudicated_once_its_tests_exist(name):
    """``pending`` is for a mechanism being built: once its tests are there, it is adjudicated."""
    manifest = find_ruleset(name).coverage()
    ready = [rule for rule, item in manifest["rules"].items() if item["status"] == "pending"
             and not any(map(missing_test, item["tests"]))]
    assert ready == [], f"{name}: these rules' tests exist now; mark them adjudicated in coverage.json"


@pytest.mark.parametrize("name", RULESETS)
def test_every_data_file_is_a_table_of_the_manifest(name):
    ruleset = find_ruleset(name)
    folder = ruleset.package_dir()
    files = {f"data/{p.name}" for p in (folder / "data").glob("*.json")}
    assert set(ruleset.coverage()["tables"]) == files


# ---- the extractors ------------------------------------------------------------------------------

def test_sections_are_n_m_lines_and_their_numbered_clauses_not_chapter_titles():
    text = "4.0 How to Win\n4.1 \nText.\n4.4 Gaining VP\n1)\tOne.\n2)\tTwo.\n5.0 Turn\n3) not a clause\n10.11 Hits\n"
    assert coverage.sections(text, "FS") == ["FS 4.1", "FS 4.4", "FS 4.4(1)", "FS 4.4(2)", "FS 10.11"]


def test_numbered_lines_expand_a_range():
    text = "Rules.\n\nPG 1  Sides: Red and Blue.\nPG 2-4  Mechanisms.\n  PG 9 indented is prose\nXX 5 other\n"
    assert coverage.numbered_lines(text, "PG") == ["PG 1", "PG 2", "PG 3", "PG 4"]
    # a mechanism's module writes its own rule again: counted once
    assert coverage.numbered_lines(text + "\nPG 3  Declared results.\nPG 5  Standing orders.\n", "PG") == [
        "PG 1", "PG 2", "PG 3", "PG 4", "PG 5"]


def test_fs_operations_and_every_result_of_a_grouped_random_event_are_rule_numbers():
    text = ("7.1 \nOp #1 (AR Only) Airlift\nOp. No. #11 (UK Only) Interception\n11.3 Random Events List \n"
            "5-6 & 6-1 & 6-2: Argentine Air Force Panache\nThe AR player may conduct two ops.\n6-3: Peru\n")
    assert rulebook.rule_numbers(text) == ["FS 7.1", "FS 11.3", "FS 7.1 Op #1", "FS 7.1 Op #11",
                                           "FS 11.3 5-6", "FS 11.3 6-1", "FS 11.3 6-2", "FS 11.3 6-3"]


def test_the_falklands_text_has_72_sections_and_clauses_25_operations_and_36_event_results():
    numbers = rule_numbers_of_the_text("falklands")
    assert sum(" Op #" in n for n in numbers) == 25
    assert sum(n.startswith("FS 11.3 ") for n in numbers) == 36
    assert len(numbers) == 72 + 25 + 36


# ---- the manifest's own format -------------------------------------------------------------------

def manifest(**rule) -> dict:
    return {"ruleset": "x", "text": "x.txt", "rule_numbers": "lines", "rules": {"XX 1": rule}, "tables": {}}


@pytest.mark.parametrize("rule, message", [
    ({"status": "adjudicated"}, r"coverage\.json: rules\.XX 1: an adjudicated rule names the tests"),
    ({"status": "declared", "why": " "}, r"rules\.XX 1: a declared rule says why"),
    ({"status": "not applicable"}, r"rules\.XX 1: a not applicable rule says why"),
    ({"status": "done", "tests": ["tests/a.py"]}, r"rules\.XX 1: 'status' is 'done'; expected one of adjudicated"),
    ({"status": "adjudicated", "tests": ["a.py::test_a"]}, r"rules\.XX 1: a test is named by its path"),
    ({"status": "pending", "test": ["tests/a.py"]}, r"rules\.XX 1: unknown field\(s\) test"),
])
def test_a_bad_manifest_is_refused_naming_the_rule(tmp_path, rule, message):
    path = tmp_path / "coverage.json"
    path.write_text(json.dumps(manifest(**rule)))
    with pytest.raises(DataError, match=message):
        coverage.load(path)


def test_counts_are_per_status():
    m = {"rules": {"A 1": {"status": "adjudicated"}, "A 2": {"status": "pending"}, "A 3": {"status": "adjudicated"}}}
    assert coverage.counts(m) == {"adjudicated": 2, "declared": 0, "not applicable": 0, "pending": 1}


def test_missing_test_finds_files_functions_and_parametrized_node_ids():
    here = "tests/unit/test_rules_coverage.py"
    assert missing_test(f"{here}::test_counts_are_per_status") is None
    assert missing_test(f"{here}::test_a_bad_manifest_is_refused_naming_the_rule[rule0-x]") is None
    assert missing_test(here) is None
    assert "defines no test_nothing_here" in missing_test(f"{here}::test_nothing_here")
    assert "no file" in missing_test("tests/unit/no_such_file.py::test_x")


# ---- the documentation ---------------------------------------------------------------------------

def test_docs_show_each_rulesets_counts():
    """docs/rulesets.md, ### Rules coverage: a row per ruleset with its rules counted by status."""
    text = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")
    section = text.split("### Rules coverage", 1)[1].split("\n## ", 1)[0]
    rows = {m.group(1): [int(x) for x in m.group(2, 3, 4, 5, 6)] for m in re.finditer(
        r"^\| `(\w+)` \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|", section, re.M)}
    for name in RULESETS:
        m = find_ruleset(name).coverage()
        c = coverage.counts(m)
        assert rows.get(name) == [len(m["rules"]), c["adjudicated"], c["declared"], c["not applicable"],
                                  c["pending"]], name
