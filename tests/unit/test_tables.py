"""The toolkit's tabled rolls (domain/rulesets/toolkit/tables.py): rows by value and range, columns,
modified rolls off the table (clamp, or a stated result), and the exact result distribution."""

from __future__ import annotations

import json

import pytest

from domain.errors import InvalidOrder
from domain.rulesets.toolkit.tables import TableError, distribution, load_table, read

LADDER = {"name": "search", "rule": "PG 2", "dice": "d10",
          "rows": [{"roll": "1-3", "result": "none"}, {"roll": "4-8", "result": "contact"},
                   {"roll": "9-10", "result": "located"}]}


def test_a_row_is_read_by_range_and_a_modified_roll_beyond_the_table_clamps_by_default():
    table = load_table(LADDER)
    assert read(table, 5).result == "contact" and read(table, 5).row == "4-8"
    high = read(table, 9, modifiers=[{"value": 3, "reason": "radar"}])
    assert (high.modified, high.row, high.result) == (12, "9-10", "located")
    low = read(table, 1, modifiers=[{"value": -2, "reason": "night"}])
    assert (low.modified, low.row, low.result) == (-1, "1-3", "none")


def test_a_table_may_say_what_a_roll_off_the_table_reads_instead_of_clamping():
    table = load_table({**LADDER, "off_table": {"result": "lost"}})
    assert read(table, 10, modifiers=[{"value": 1, "reason": "x"}]).result == "lost"
    assert read(table, 10, modifiers=[{"value": 1, "reason": "x"}]).row == "off the table"


def test_columns_are_read_by_name_and_an_unknown_column_names_the_rule():
    table = load_table({"name": "crt", "rule": "PG 2", "dice": "2d6", "columns": ["1:1", "2:1"],
                        "rows": [{"roll": "6-", "results": ["A", "-"]}, {"roll": "7+", "results": ["-", "D"]}]})
    assert read(table, 7, "2:1").result == "D" and read(table, 7, "1:1").result == "-"
    with pytest.raises(InvalidOrder, match="no column '3:1'") as exc:
        read(table, 7, "3:1")
    assert exc.value.rule == "PG 2"


def test_the_distribution_of_results_is_exact_from_the_recorded_target():
    table = load_table(LADDER)
    target = read(table, 5, modifiers=[{"value": 1, "reason": "radar"}]).target
    assert distribution(target) == pytest.approx({"none": 0.2, "contact": 0.5, "located": 0.3})


def test_a_table_with_a_gap_between_rows_is_refused_naming_the_file_and_table():
    bad = {**LADDER, "rows": [{"roll": "1-3", "result": "a"}, {"roll": "5-10", "result": "b"}]}
    with pytest.raises(TableError, match="data.json: table 'search'"):
        load_table(bad, "data.json")


def test_a_d66_table_is_read_as_tens_and_units_and_its_distribution_sums_to_one():
    table = load_table({"name": "composition", "rule": "STF 5", "dice": "d66", "off_table": {"result": "none"},
                        "rows": [{"roll": "11-36", "result": "surface group"},
                                 {"roll": "41-66", "result": "carrier group"}]})
    assert read(table, 36).result == "surface group" and read(table, 41).result == "carrier group"
    shares = distribution(read(table, 41, modifiers=[{"value": 10, "reason": "x"}]).target)
    # +10: 11-26 stay surface (12 of 36), 31-36 read 41-46 (6) and 41-56 read 51-66 (12) carrier,
    # 61-66 read 71-76, off the table: the stated result (6).
    assert shares == pytest.approx({"surface group": 12 / 36, "carrier group": 18 / 36, "none": 6 / 36})


def test_tables_of_a_data_file_record_their_guesses_table_by_table_and_row_by_row(tmp_path):
    from domain.rulesets.toolkit.data import Dataset
    from domain.rulesets.toolkit.tables import load_tables

    (tmp_path / "charts.json").write_text(json.dumps({"tables": [
        {"name": "given", "rule": "XX 1", "dice": "d6", "source": "XX 1",
         "rows": [{"roll": "1-3", "result": "miss"}, {"roll": "4-5", "result": "hit", "provisional": True},
                  {"roll": "6", "result": "kill", "provisional": "the map's chart is not in the text"}]},
        {"name": "guessed", "rule": "XX 2", "dice": "d10", "provisional": "the chart is printed on the map",
         "rows": [{"roll": "1-10", "result": "-"}]}]}))
    data = Dataset(tmp_path)
    tables = load_tables(data, "charts.json")
    assert set(tables) == {"given", "guessed"}
    assert [(g.entry, g.why) for g in data.provisional()] == [
        ("tables.given.rows.4-5", "XX 1"), ("tables.given.rows.6", "the map's chart is not in the text"),
        ("tables.guessed", "the chart is printed on the map")]


def test_a_table_named_twice_in_one_file_is_refused_naming_the_file(tmp_path):
    from domain.rulesets.toolkit.data import Dataset
    from domain.rulesets.toolkit.tables import load_tables

    table = {"name": "t", "rule": "XX 1", "dice": "d6", "rows": [{"roll": "1-6", "result": "-"}]}
    (tmp_path / "charts.json").write_text(json.dumps({"tables": [table, table]}))
    with pytest.raises(TableError, match="charts.json: table 't' is there twice"):
        load_tables(Dataset(tmp_path), "charts.json")
