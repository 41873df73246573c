"""Tabled rolls: a result read from a table by column and modified roll (docs/dice.md, "Tabled rolls").

A table is data (``load_table(entry)``)::

    {"name": "combat results", "rule": "PG 2", "dice": "2d6", "columns": ["1:1", "2:1"],
     "rows": [{"roll": "2-4", "results": ["A", "-"]}, {"roll": "5", "results": ["-", "D"]},
              {"roll": "12+", "results": ["D", "D"]}],
     "off_table": "clamp"}

A row's ``roll`` is one value ("5"), a range ("2-4"), or open at one end ("12+", "-1" written
"1-"); a table without ``columns`` has one, and its rows give ``result``. ``off_table`` says what a
modified roll beyond every row reads: ``"clamp"`` (the default: the first or the last row) or
``{"result": R}`` (no row: the result R, e.g. "no effect"). Rows follow one another; a d66
table may skip the values a d66 never shows, and a modified roll in such a gap reads the row below.

``read(table, roll_total, column=..., modifiers=[...])`` returns a ``Reading``: the row read, the
result and the ``target`` a ``Roll`` records (``roll.resolve(reading.target, reading.outcome)``).
The target carries the column's rows, so the statistics compute the expected distribution of the
roll from the log alone, as the table stood when the roll was made (``distribution(target)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from domain import dice as dicemod
from domain.errors import InvalidOrder

_ROW = re.compile(r"\s*(-?\d+)\s*(?:(\+)|-\s*(-?\d+)|(-))?\s*")


class TableError(ValueError):
    """A table's data is malformed; the message names the table and the entry."""


@dataclass(frozen=True)
class Table:
    name: str
    rule: str
    dice: str
    columns: tuple
    rows: tuple            # ((low or None, high or None, (result per column, ...)), ...)
    off_table: Any         # "clamp" or {"result": R}

    def column_index(self, column: Any) -> int:
        if not self.columns and column is None:
            return 0
        if column not in self.columns:
            raise InvalidOrder(f"the {self.name} table has no column {column!r} "
                               f"(columns: {', '.join(map(str, self.columns))})", rule=self.rule or None)
        return self.columns.index(column)


@dataclass(frozen=True)
class Reading:
    roll: int
    modified: int
    row: str
    result: Any
    target: dict

    @property
    def outcome(self) -> str:
        return str(self.result)


def _row_range(text: str, where: str) -> tuple[int | None, int | None]:
    m = _ROW.fullmatch(str(text))
    if not m:
        raise TableError(f"{where}: a row's roll is N, N-M, N+ or N- (or 'N or less'), not {text!r}")
    low = int(m.group(1))
    if m.group(2):
        return low, None
    if m.group(4):
        return None, low
    high = int(m.group(3)) if m.group(3) is not None else low
    if high < low:
        raise TableError(f"{where}: the range {text!r} runs backwards")
    return low, high


def load_table(entry: dict, source: str = "table") -> Table:
    """A table from its data entry; a malformed entry raises TableError naming ``source`` and the table."""
    name = entry.get("name")
    where = f"{source}: table {name!r}"
    if not isinstance(name, str) or not name:
        raise TableError(f"{source}: a table has a 'name'")
    try:
        dice = str(dicemod.parse(entry.get("dice")))
    except ValueError:
        raise TableError(f"{where}: 'dice' is NdS, dS or d66, not {entry.get('dice')!r}") from None
    columns = tuple(entry.get("columns") or ())
    rows = []
    for i, row in enumerate(entry.get("rows") or []):
        low, high = _row_range(row.get("roll"), f"{where}, row {i + 1}")
        results = tuple(row["results"]) if columns else (row.get("result"),)
        if len(results) != max(len(columns), 1) or any(r is None for r in results):
            raise TableError(f"{where}, row {row.get('roll')!r}: one result per column ({max(len(columns), 1)})")
        rows.append((low, high, results))
    if not rows:
        raise TableError(f"{where}: no rows")
    rows.sort(key=lambda r: (r[0] if r[0] is not None else -10**9))
    # d66 values skip x7-x0, so its rows may leave such gaps; other rows follow one another.
    for (lo1, hi1, _), (lo2, hi2, _) in zip(rows, rows[1:]):
        if hi1 is None or lo2 is None or lo2 <= hi1 or (dice != "d66" and lo2 != hi1 + 1):
            raise TableError(f"{where}: rows must follow one another without gap or overlap ({hi1} then {lo2})")
    off = entry.get("off_table", "clamp")
    if off != "clamp" and not (isinstance(off, dict) and set(off) == {"result"}):
        raise TableError(f"{where}: 'off_table' is \"clamp\" or {{\"result\": R}}, not {off!r}")
    return Table(name, str(entry.get("rule") or ""), dice, columns, tuple(rows), off)


def _label(low: int | None, high: int | None) -> str:
    if low is None:
        return f"{high}-"
    if high is None:
        return f"{low}+"
    return str(low) if low == high else f"{low}-{high}"


def _lookup(rows: list, modified: int, off_table: Any) -> tuple[str, Any]:
    """(row label, result) of ``rows`` = [[low, high, result], ...] at a modified roll."""
    for low, high, result in rows:
        if (low is None or modified >= low) and (high is None or modified <= high):
            return _label(low, high), result
    first, last = rows[0][0], rows[-1][1]
    beyond = (first is not None and modified < first) or (last is not None and modified > last)
    if beyond and off_table != "clamp":
        return "off the table", off_table["result"]
    # Clamped, or in a gap between d66 rows: the last row starting at or below the roll.
    low, high, result = next((r for r in reversed(rows) if r[0] is None or r[0] <= modified), rows[0])
    return _label(low, high), result


def read(table: Table, roll_total: int, column: Any = None, modifiers: list[dict] | tuple = ()) -> Reading:
    """Read ``table`` at ``roll_total`` plus ``modifiers`` ([{value, reason}]) in ``column``."""
    index = table.column_index(column)
    modified = roll_total + sum(m["value"] for m in modifiers)
    rows = [[low, high, results[index]] for low, high, results in table.rows]
    row, result = _lookup(rows, modified, table.off_table)
    target = {"table": table.name, "rule": table.rule, "dice": table.dice, "column": column,
              "modifiers": [dict(m) for m in modifiers], "roll": roll_total, "modified": modified,
              "row": row, "result": result, "rows": rows, "off_table": table.off_table}
    return Reading(roll_total, modified, row, result, target)


def roll_on(dice: Any, table: Table, *, seat: str, purpose: str, column: Any = None,
            modifiers: list[dict] | tuple = (), units: list | tuple = ()) -> tuple[Any, Reading]:
    """Roll ``table``'s dice with the game's roller ``dice``, read the table and record the reading
    on the roll (target: the table, column, modifiers, modified roll and row; outcome: the result)."""
    expr = dicemod.parse(table.dice)
    made = dice.roll(expr.count, expr.sides, seat=seat, purpose=purpose, rule=table.rule or None,
                     units=list(units), notation=str(expr))
    total = made.values[0] * 10 + made.values[1] if expr.ordered else made.total
    reading = read(table, total, column, modifiers)
    made.resolve(reading.target, reading.outcome)
    return made, reading


@lru_cache(maxsize=256)
def dice_distribution(dice: str) -> tuple[tuple[int, float], ...]:
    """(read value, probability) of ``dice``: NdS summed, or d66 read as tens and units."""
    expr = dicemod.parse(dice)
    if expr.ordered:
        return tuple((10 * a + b, 1 / 36) for a in range(1, 7) for b in range(1, 7))
    count, sides = expr.count, expr.sides
    ways = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, w in ways.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + w
        ways = nxt
    return tuple((v, w / sides ** count) for v, w in sorted(ways.items()))


def distribution(target: dict) -> dict[str, float]:
    """{result: probability} of a tabled roll, from its recorded target: every value of its dice,
    plus its modifiers, read on its column's rows with its off-table treatment."""
    shift = sum(m["value"] for m in target.get("modifiers") or [])
    out: dict[str, float] = {}
    for value, p in dice_distribution(target["dice"]):
        _, result = _lookup(target["rows"], value + shift, target.get("off_table", "clamp"))
        out[str(result)] = out.get(str(result), 0.0) + p
    return out


def load_tables(data: Any, file: str) -> dict[str, Table]:
    """Every table of a data file ``{"tables": [entry, ...]}`` read through the ruleset's
    ``Dataset`` (toolkit/data.py), by name. What is guessed is recorded with the dataset's other
    guesses, entry by entry: a table with ``"provisional": "why"`` as a whole, a row with
    ``"provisional": "why"`` (or true: the table's ``source`` says why) alone."""
    doc = data.read(file)
    entries = doc.get("tables")
    if not isinstance(entries, list) or not entries:
        raise TableError(f"{file}: 'tables' is a list of tables")
    tables: dict[str, Table] = {}
    for entry in entries:
        table = load_table(entry, file)
        if table.name in tables:
            raise TableError(f"{file}: table {table.name!r} is there twice")
        tables[table.name] = table
        source = entry.get("source", "")
        if entry.get("provisional"):
            data.guess(file, f"tables.{table.name}", None, _why(entry["provisional"], source))
        for row in entry.get("rows", []):
            if row.get("provisional"):
                data.guess(file, f"tables.{table.name}.rows.{row.get('roll')}", None, _why(row["provisional"], source))
    return tables


def _why(mark: Any, source: str) -> str:
    return mark if isinstance(mark, str) else source or "not given by the text"
