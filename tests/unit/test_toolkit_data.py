"""The rules toolkit's data loader (domain/rulesets/toolkit/data.py), on small files in tmp_path:
a bad file is refused naming the file and the entry, tables are frozen, and every guess, down to a
whole chart or one row of it, is listed by ``provisional()``."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from domain.rulesets.toolkit.data import TABLE_ENTRY, DataError, Dataset, Guess, freeze

UNIT = {"name": str, "hits": int, "fast": bool, "source": str, "provisional": list}
RULESETS = Path(__file__).resolve().parents[2] / "domain" / "rulesets"


def write(directory: Path, name: str, doc) -> None:
    (directory / name).write_text(json.dumps(doc), encoding="utf-8")


def unit(**changes) -> dict:
    return {"name": "Scout", "hits": 2, "fast": True, "source": "XX 2.1", "provisional": [], **changes}


def units_of(directory: Path, **entries) -> list[Guess]:
    write(directory, "units.json", {"units": entries})
    ds = Dataset(directory)
    ds.entries("units.json", ds.read("units.json"), "units", UNIT)
    return ds.provisional()


def test_a_good_file_loads_and_lists_its_guessed_fields(tmp_path):
    guesses = units_of(tmp_path, scout=unit(provisional=["hits"]), tank=unit(source="XX 2.2"))
    assert guesses == [Guess("units.json", "units.scout", "hits", "XX 2.1")]
    assert guesses[0].path == "units.scout.hits"


@pytest.mark.parametrize("entry, message", [
    (unit(hits="2"), r"units\.json: units\.bad: field 'hits' has the wrong type \(str\)"),
    (unit(hits=True), r"units\.json: units\.bad: field 'hits' has the wrong type \(bool\)"),
    (unit(fast=1), r"units\.json: units\.bad: field 'fast' has the wrong type \(int\)"),
    (unit(speed=3), r"units\.json: units\.bad: unknown field\(s\) speed"),
    ({k: v for k, v in unit().items() if k != "name"}, r"units\.json: units\.bad: missing field\(s\) name"),
    (unit(provisional=["colour"]), r"units\.bad: 'provisional' names 'colour', which is not a field"),
    (unit(provisional=["hits", "hits"]), r"units\.bad: 'provisional' names a field twice"),
    (unit(source=" "), r"units\.bad: 'source' must quote the rule"),
    ("Scout", r"units\.json: units\.bad: must be an object"),
])
def test_a_bad_entry_is_refused_naming_the_file_and_the_entry(tmp_path, entry, message):
    with pytest.raises(ValueError, match=message):
        units_of(tmp_path, good=unit(), bad=entry)


def test_a_duplicate_id_and_a_file_that_is_not_json_are_refused(tmp_path):
    (tmp_path / "units.json").write_text('{"units": {"a": {}, "a": {}}}')
    with pytest.raises(DataError, match=r"units\.json: a: duplicate id"):
        Dataset(tmp_path).read("units.json")
    (tmp_path / "units.json").write_text("[1, 2")
    with pytest.raises(DataError, match=r"units\.json: line 1 column 6: not valid JSON"):
        Dataset(tmp_path).read("units.json")
    with pytest.raises(DataError, match=r"missing\.json: \(file\): cannot be read"):
        Dataset(tmp_path).read("missing.json")


# ---- whole charts and tables ---------------------------------------------------------------------

FIRE = {"hit": int, "pinned": int}


def chart(provisional=False, **rows) -> dict:
    doc = {"title": "Fire table", "source": "XX 8.3 (printed on the map)", "rows": rows}
    if provisional is not False:
        doc["provisional"] = provisional
    return doc


def test_a_whole_table_is_provisional_as_one_guess(tmp_path):
    write(tmp_path, "fire.json", chart("the chart is printed on the map, not in the text",
                                       **{"1": {"hit": 5, "pinned": 3}, "2": {"hit": 4, "pinned": 2}}))
    ds = Dataset(tmp_path)
    rows = ds.table("fire.json", FIRE)
    assert rows["2"] == {"hit": 4, "pinned": 2}
    assert ds.provisional() == [Guess("fire.json", TABLE_ENTRY, None, "the chart is printed on the map, "
                                      "not in the text (XX 8.3 (printed on the map))")]


def test_a_table_is_provisional_entry_by_entry(tmp_path):
    write(tmp_path, "fire.json", chart(**{
        "1": {"hit": 5, "pinned": 3, "source": "XX 8.3 example", "provisional": ["pinned"]},
        "2": {"hit": 4, "pinned": 2, "provisional": True},
        "3": {"hit": 3, "pinned": 1, "provisional": []},
        "4": {"hit": 2, "pinned": 0},
    }))
    ds = Dataset(tmp_path)
    ds.table("fire.json", FIRE)
    assert ds.provisional() == [
        Guess("fire.json", "rows.1", "pinned", "XX 8.3 example"),
        Guess("fire.json", "rows.2", None, "XX 8.3 (printed on the map)"),  # the table's source
    ]
    assert [g.path for g in ds.provisional()] == ["rows.1.pinned", "rows.2"]


@pytest.mark.parametrize("doc, message", [
    (chart(**{"1": {"hit": "5", "pinned": 3}}), r"fire\.json: rows\.1: field 'hit' has the wrong type"),
    (chart(**{"1": {"hit": 5, "pinned": 3, "odds": 2}}), r"fire\.json: rows\.1: unknown field\(s\) odds"),
    (chart(**{"1": {"hit": 5, "pinned": 3, "provisional": "yes"}}), r"rows\.1: field 'provisional' has the wrong"),
    (chart(True, **{"1": {"hit": 5, "pinned": 3}}), r"fire\.json: provisional: a provisional table says why"),
    (chart(), r"fire\.json: rows: a table needs at least one row"),
    ({"title": "Fire table", "rows": {}}, r"fire\.json: \(file\): missing field\(s\) source"),
])
def test_a_bad_table_is_refused_naming_the_file_and_the_row(tmp_path, doc, message):
    write(tmp_path, "fire.json", doc)
    with pytest.raises(ValueError, match=message):
        Dataset(tmp_path).table("fire.json", FIRE)


# ---- frozen tables -------------------------------------------------------------------------------

def test_tables_are_frozen_and_copy_to_plain_json(tmp_path):
    write(tmp_path, "fire.json", chart(**{"1": {"hit": 5, "pinned": 3}}))
    rows = Dataset(tmp_path).table("fire.json", FIRE)
    with pytest.raises(TypeError):
        rows["1"]["hit"] = 6
    with pytest.raises(TypeError):
        rows.pop("1")
    with pytest.raises(TypeError):
        freeze({"xs": [1]})["xs"].append(2)
    row = copy.deepcopy(rows["1"])
    row["hit"] = 6
    assert type(row) is dict and rows["1"]["hit"] == 5
    assert json.loads(json.dumps(rows)) == {"1": {"hit": 5, "pinned": 3}}


# ---- the README pattern --------------------------------------------------------------------------

def test_every_ruleset_data_folder_tells_the_owner_of_the_game_how_to_correct_each_file():
    """Each ``domain/rulesets/<game>/data/`` holds a README.md that names every data file in it."""
    folders = [d for d in RULESETS.glob("*/data") if d.is_dir()]
    assert folders
    for folder in folders:
        readme = folder / "README.md"
        assert readme.exists(), folder
        text = readme.read_text(encoding="utf-8")
        for file in folder.glob("*.json"):
            assert f"`{file.name}`" in text, (folder, file.name)
