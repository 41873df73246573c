"""Hex maps: the grid of a game's map from its data, the text's own hex names, neighbours,
distance, range, megahexes and line of sight (docs/rulesets.md, "Hex maps").

A map is a ``Grid`` made from a spec kept in the ruleset's data:

    {"orientation": "flat",        # "flat": flat-topped hexes in columns; "pointy": in rows
     "layout": "even",             # the columns (flat) or rows (pointy) of this parity, by their
                                   # number on the map, are drawn half a hex lower (flat) or
                                   # further right (pointy)
     "columns": 30, "rows": 30,
     "naming": "letter-number",    # "L8": column letter(s) A..Z, AA, BB, ..., then the row number;
                                   # or "CCRR": "0812", column 08, row 12
     "first_column": 1, "first_row": 1,   # the numbers of the first column and row (CCRR)
     "rows_from": "top",           # the edge row 1 lies on: "top" or "bottom" (Goose Green: row
                                   # 36 is the north edge, so "bottom")
     "line_of_sight": {"hexside": "both", "vertex": "clear"},
     "megahexes": {"outer": ["N", "NE", "SE", "S", "SW", "NW"], "anchor": "B2",
                   "numbers": {"1": "B2"}}}

Positions are cube coordinates ``(q, r, s)`` with ``q + r + s == 0`` (integers), computed from
the drawing's column and row; geometry is done on them, names only at the edges. Line of sight
is exact: the segment between two hex centres is tested against each hex's closed hexagon in
cube space with fractions, so "runs along a hexside" and "passes through a corner" are decided
by equality, not by a nudge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, NamedTuple


class Cube(NamedTuple):
    q: int
    r: int
    s: int

    def __add__(self, other):  # type: ignore[override]
        return Cube(self.q + other.q, self.r + other.r, self.s + other.s)

    def __sub__(self, other):
        return Cube(self.q - other.q, self.r - other.r, self.s - other.s)

    def times(self, k: int) -> "Cube":
        return Cube(self.q * k, self.r * k, self.s * k)


# The six neighbours' offsets, each the one before turned 60 degrees, named as drawn (y down).
DIRECTIONS = [Cube(0, -1, 1), Cube(1, -1, 0), Cube(1, 0, -1), Cube(0, 1, -1), Cube(-1, 1, 0), Cube(-1, 0, 1)]
DIRECTION_NAMES = {
    "flat": {"N": Cube(0, -1, 1), "NE": Cube(1, -1, 0), "SE": Cube(1, 0, -1),
             "S": Cube(0, 1, -1), "SW": Cube(-1, 1, 0), "NW": Cube(-1, 0, 1)},
    "pointy": {"NE": Cube(1, -1, 0), "E": Cube(1, 0, -1), "SE": Cube(0, 1, -1),
               "SW": Cube(-1, 1, 0), "W": Cube(-1, 0, 1), "NW": Cube(0, -1, 1)},
}
# Megahexes of seven hexes tile the map; their centres are the lattice of these two steps
# (each the other turned 60 degrees), so a megahex's neighbour centre is 3 hexes away.
MEGA_U, MEGA_V = Cube(2, 1, -3), Cube(-1, 3, -2)

HEXSIDE_RULES = ("both", "either")  # a line along a hexside is blocked when both / either hex blocks
VERTEX_RULES = ("clear", "blocks")  # a hex the line touches at a corner only never / does block


class NotOnMap(ValueError):
    """A hex name that is malformed or names no hex of this map."""


class GridSpecError(ValueError):
    """A grid spec in a data file that cannot describe a map; names the field."""


def distance(a: Cube, b: Cube) -> int:
    d = a - b
    return max(abs(d.q), abs(d.r), abs(d.s))


def column_letters(n: int) -> str:
    """Column n (1-based) as a map letters it: A..Z, then AA, BB, ..., ZZ, then AAA..."""
    return chr(ord("A") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def _choice(spec: dict, key: str, options: tuple, default=None):
    value = spec.get(key, default)
    if value not in options:
        raise GridSpecError(f"grid spec: {key!r} is one of {', '.join(map(str, options))}, not {value!r}")
    return value


def _count(spec: dict, key: str, default=None, low: int = 1) -> int:
    value = spec.get(key, default)
    if type(value) is not int or not low <= value <= 999:
        raise GridSpecError(f"grid spec: {key!r} is a whole number from {low} to 999, not {value!r}")
    return value


@dataclass(frozen=True)
class Sight:
    """A line of sight between two hex centres, and why it is blocked (if it is)."""

    clear: bool
    blocked_by: tuple[str, ...]  # the hexes that block it, in order along the line
    crossed: tuple[str, ...]  # every hex whose inside the line passes through, from first to last
    hexsides: tuple[tuple[str | None, str | None], ...]  # the pairs of hexes the line runs between
    corners: tuple[str | None, ...]  # hexes the line touches at a corner only (None: off the map)


class Grid:
    """One map's hex grid, from its data spec (see the module docstring)."""

    def __init__(self, spec: dict):
        if not isinstance(spec, dict):
            raise GridSpecError("grid spec: an object with orientation, layout, columns, rows, naming")
        self.orientation = _choice(spec, "orientation", ("flat", "pointy"))
        self.layout = _choice(spec, "layout", ("odd", "even"))
        self.columns = _count(spec, "columns")
        self.rows = _count(spec, "rows")
        self.naming = _choice(spec, "naming", ("letter-number", "CCRR"))
        self.first_column = _count(spec, "first_column", 1, low=0)
        self.first_row = _count(spec, "first_row", 1, low=0)
        self.rows_from = _choice(spec, "rows_from", ("top", "bottom"), "top")
        if self.naming == "letter-number" and self.first_column != 1:
            raise GridSpecError("grid spec: letter-number maps letter their first column A (first_column 1)")
        if self.naming == "CCRR" and (self.first_column + self.columns > 100 or self.first_row + self.rows > 100):
            raise GridSpecError("grid spec: CCRR names have two digits for the column and two for the row")
        los = spec.get("line_of_sight", {})
        if not isinstance(los, dict):
            raise GridSpecError("grid spec: 'line_of_sight' is an object {hexside, vertex}")
        self.hexside = _choice(los, "hexside", HEXSIDE_RULES, "both")
        self.vertex = _choice(los, "vertex", VERTEX_RULES, "clear")
        self.spec = dict(spec)
        # k: 0 when the odd drawing indices (0-based) are the shifted ones, 1 when the even ones are
        second = self.first_column + 1 if self.orientation == "flat" else self._row_number(1)
        self._k = 0 if second % 2 == (1 if self.layout == "odd" else 0) else 1
        self._mega = self._megahex_spec(spec.get("megahexes"))

    # ---- drawing index <-> number on the map <-> cube ----
    def _row_number(self, index: int) -> int:
        """The map's number of the row drawn at this index (0 at the top)."""
        if self.rows_from == "top":
            return self.first_row + index
        return self.first_row + self.rows - 1 - index

    def _row_index(self, number: int) -> int:
        if self.rows_from == "top":
            return number - self.first_row
        return self.first_row + self.rows - 1 - number

    def cube(self, col: int, row: int) -> Cube:
        """The cube position of the hex drawn at column ``col``, row ``row`` (0-based, from the top left)."""
        if self.orientation == "flat":
            q, r = col, row - (col + self._k) // 2
        else:
            q, r = col - (row + self._k) // 2, row
        return Cube(q, r, -q - r)

    def offset(self, h: Cube) -> tuple[int, int]:
        """(col, row) of the drawing (0-based), the inverse of ``cube``."""
        if self.orientation == "flat":
            return h.q, h.r + (h.q + self._k) // 2
        return h.q + (h.r + self._k) // 2, h.r

    def on_map(self, h: Cube) -> bool:
        col, row = self.offset(h)
        return 0 <= col < self.columns and 0 <= row < self.rows

    # ---- names ----
    def _shape(self) -> str:
        last_col = self.first_column + self.columns - 1
        first, last = self.name(self.cube(0, 0)), self.name(self.cube(self.columns - 1, self.rows - 1))
        if self.naming == "letter-number":
            return (f"columns A to {column_letters(last_col)}, rows {self.first_row} to "
                    f"{self.first_row + self.rows - 1}: names like {first}")
        return f"four digits, column then row, from {first} to {last}"

    def hex(self, name: str) -> Cube:
        """The hex a name names; NotOnMap (saying what names look like) for any other name."""
        if not isinstance(name, str):
            raise NotOnMap(f"a hex is named by a string ({self._shape()}), not {name!r}")
        if self.naming == "letter-number":
            m = re.fullmatch(r"(([A-Z])\2*)([1-9][0-9]*|0)", name)
            if not m:
                raise NotOnMap(f"{name!r} is not a hex name ({self._shape()})")
            column = (len(m.group(1)) - 1) * 26 + ord(m.group(2)) - ord("A") + 1
            number = int(m.group(3))
        else:
            if not re.fullmatch(r"[0-9]{4}", name):
                raise NotOnMap(f"{name!r} is not a hex name ({self._shape()})")
            column, number = int(name[:2]), int(name[2:])
        col, row = column - self.first_column, self._row_index(number)
        if not (0 <= col < self.columns and 0 <= row < self.rows):
            raise NotOnMap(f"{name!r} is not a hex of this map ({self._shape()})")
        return self.cube(col, row)

    def name(self, h: Cube) -> str:
        """The map's name of an on-map hex."""
        if not self.on_map(h):
            raise NotOnMap(f"{tuple(h)} is off the map ({self._shape()})")
        col, row = self.offset(h)
        column, number = self.first_column + col, self._row_number(row)
        if self.naming == "letter-number":
            return f"{column_letters(column)}{number}"
        return f"{column:02d}{number:02d}"

    def _name_or_none(self, h: Cube) -> str | None:
        return self.name(h) if self.on_map(h) else None

    def names(self) -> list[str]:
        """Every hex of the map, row by row as drawn."""
        return [self.name(self.cube(c, r)) for r in range(self.rows) for c in range(self.columns)]

    # ---- neighbours, distance, range ----
    def neighbours(self, name: str) -> list[str]:
        """The adjacent hexes on the map, turning clockwise from the top (flat) or top right (pointy)."""
        h = self.hex(name)
        order = DIRECTIONS if self.orientation == "flat" else DIRECTIONS[1:] + DIRECTIONS[:1]
        return [self.name(h + d) for d in order if self.on_map(h + d)]

    def distance(self, a: str, b: str) -> int:
        """Hexes between a and b counting b but not a (0 for the same hex)."""
        return distance(self.hex(a), self.hex(b))

    def within(self, name: str, n: int) -> list[str]:
        """Every hex on the map at most n hexes from ``name`` (itself included), nearest first."""
        h = self.hex(name)
        found = []
        for dq in range(-n, n + 1):
            for dr in range(max(-n, -dq - n), min(n, -dq + n) + 1):
                there = h + Cube(dq, dr, -dq - dr)
                if self.on_map(there):
                    found.append(there)
        found.sort(key=lambda x: (distance(h, x), self.offset(x)[1], self.offset(x)[0]))
        return [self.name(x) for x in found]

    # ---- megahexes ----
    def _megahex_spec(self, spec) -> dict | None:
        if spec is None:
            return None
        if not isinstance(spec, dict):
            raise GridSpecError("grid spec: 'megahexes' is an object {outer, anchor, numbers}")
        names = DIRECTION_NAMES[self.orientation]
        outer = spec.get("outer")
        if not isinstance(outer, list) or sorted(map(str, outer)) != sorted(names):
            raise GridSpecError(f"grid spec: megahexes 'outer' lists the six directions {', '.join(names)} "
                                f"in the order the map numbers a megahex's outer hexes 1 to 6, not {outer!r}")
        try:
            anchor = self.hex(spec.get("anchor"))
            numbers = {str(k): self.hex(v) for k, v in (spec.get("numbers") or {}).items()}
        except NotOnMap as exc:
            raise GridSpecError(f"grid spec: megahexes: {exc}") from None
        mega = {"outer": [names[d] for d in outer], "anchor": anchor, "numbers": numbers}
        for number, centre in numbers.items():
            if self._lattice(centre - anchor) is None:
                raise GridSpecError(f"grid spec: megahex {number} at {self.name(centre)} is not the centre "
                                    f"of a megahex of the tiling anchored at {self.name(anchor)}")
        return mega

    def _megahexes(self) -> dict:
        if self._mega is None:
            raise NotOnMap("this map has no megahexes")
        return self._mega

    @staticmethod
    def _lattice(d: Cube) -> tuple[int, int] | None:
        """(a, b) with d == a*U + b*V, or None when d is not between two megahex centres."""
        # solve in axial coordinates: [2 -1; 1 3] (a, b) = (q, r); the determinant is 7
        a, b = Fraction(3 * d.q + d.r, 7), Fraction(2 * d.r - d.q, 7)
        return (int(a), int(b)) if a.denominator == b.denominator == 1 else None

    def megahex(self, centre: str) -> list[str | None]:
        """The seven hexes of the megahex around ``centre``: the centre, then its outer hexes
        numbered 1 to 6 in the map's order (None where an outer hex is off the map)."""
        mega, h = self._megahexes(), self.hex(centre)
        return [centre] + [self._name_or_none(h + d) for d in mega["outer"]]

    def megahex_of(self, name: str) -> Cube:
        """The centre of the megahex of the map's tiling that holds ``name`` (may lie off the map)."""
        mega, h = self._megahexes(), self.hex(name)
        for d in (Cube(0, 0, 0), *DIRECTIONS):
            if self._lattice(h + d - mega["anchor"]) is not None:
                return h + d
        raise AssertionError("every hex is a megahex centre or next to one")  # 7 cosets, 7 candidates

    def megahex_number(self, name: str) -> str | None:
        """The number the map gives the megahex holding ``name``, or None when the data gives none."""
        centre = self.megahex_of(name)
        return next((n for n, c in self._megahexes()["numbers"].items() if c == centre), None)

    def megahex_centre(self, number) -> str:
        centre = self._megahexes()["numbers"].get(str(number))
        if centre is None:
            raise NotOnMap(f"this map has no megahex {number}")
        return self.name(centre)

    def megahex_distance(self, a: str, b: str) -> int:
        """Megahexes from the one holding a to the one holding b (0 for the same megahex)."""
        ab = self._lattice(self.megahex_of(b) - self.megahex_of(a))
        assert ab is not None
        return max(abs(ab[0]), abs(ab[1]), abs(ab[0] + ab[1]))

    # ---- line of sight ----
    def line_of_sight(self, a: str, b: str, blocking: Iterable[str], *, hexside: str | None = None,
                      vertex: str | None = None) -> Sight:
        """The line from the centre of a to the centre of b, blocked by an intervening blocking
        hex whose inside it crosses; along a hexside by the hexside rule, through a corner by
        the vertex rule (the map's, unless given). The end hexes never block."""
        hexside, vertex = hexside or self.hexside, vertex or self.vertex
        if hexside not in HEXSIDE_RULES or vertex not in VERTEX_RULES:
            raise ValueError(f"hexside is one of {HEXSIDE_RULES}, vertex one of {VERTEX_RULES}")
        start, end = self.hex(a), self.hex(b)
        blocks = {self.hex(x) for x in blocking} - {start, end}
        if start == end:
            return Sight(clear=True, blocked_by=(), crossed=(a,), hexsides=(), corners=())
        crossed, sides, corners = [], {}, []
        for h in _candidates(start, end):
            touch = _touch(start, end, h)
            if touch is None:
                continue
            how, lo, hi = touch
            if how == "crossed":
                crossed.append((lo, h))
            elif how == "side":
                sides.setdefault((lo, hi), []).append(h)  # the two hexes beside one side share (lo, hi)
            else:
                corners.append((lo, h))
        crossed.sort()
        corners.sort()
        along = [(lo, sorted(pair, key=self.offset)) for (lo, _), pair in sorted(sides.items())]
        hits = [(t, h) for t, h in crossed if h in blocks]
        for lo, pair in along:
            blocked = [h for h in pair if h in blocks]
            if blocked and (hexside == "either" or len(blocked) == len(pair)):
                hits.extend((lo, h) for h in blocked)
        if vertex == "blocks":
            hits.extend((t, h) for t, h in corners if h in blocks)
        hits.sort(key=lambda th: (th[0], self.offset(th[1])))
        return Sight(clear=not hits,
                     blocked_by=tuple(dict.fromkeys(self.name(h) for _, h in hits)),
                     crossed=tuple(self.name(h) for _, h in crossed if self.on_map(h)),
                     hexsides=tuple(tuple(self._name_or_none(h) for h in pair) for _, pair in along),
                     corners=tuple(self._name_or_none(h) for _, h in corners))


def _round(q: int, r: int, s: int, n: int) -> Cube:
    """The hex whose hexagon holds the point (q/n, r/n, s/n) (any one of them on a boundary):
    each coordinate rounded, then the one that moved most set from the other two."""
    rq, rr, rs = ((2 * x + n) // (2 * n) for x in (q, r, s))
    dq, dr, ds = abs(q - n * rq), abs(r - n * rr), abs(s - n * rs)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    else:
        rs = -rq - rr
    return Cube(rq, rr, rs)


def _candidates(a: Cube, b: Cube) -> set[Cube]:
    """Every hex the segment a-b can touch: the hexes at n+1 evenly spaced points and their
    neighbours (a point of the segment is within 1/2 of a sample, a sample within 2/3 of its
    hex's centre, a touched hex's centre within 2/3 of the point: so at most 1 hex away)."""
    n = max(distance(a, b), 1)
    d = b - a
    found = set()
    for k in range(n + 1):
        h = _round(n * a.q + k * d.q, n * a.r + k * d.r, n * a.s + k * d.s, n)
        found.add(h)
        found.update(h + step for step in DIRECTIONS)
    return found


def _touch(a: Cube, b: Cube, h: Cube) -> tuple[str, Fraction, Fraction] | None:
    """How the segment from a's centre to b's touches hex h's closed hexagon: ("crossed", t0, t1)
    through its inside, ("side", t0, t1) along one of its sides only, ("corner", t, t) at a
    corner only, or None. The hexagon in cube space is |dq-dr| <= 1, |dr-ds| <= 1, |ds-dq| <= 1
    with d the point less h's centre; the point is a + t (b - a), 0 <= t <= 1."""
    d0, dd = a - h, b - a
    lines = [(d0.q - d0.r, dd.q - dd.r), (d0.r - d0.s, dd.r - dd.s), (d0.s - d0.q, dd.s - dd.q)]
    if any(min(c, c + m) > 1 or max(c, c + m) < -1 for c, m in lines):
        return None  # one strip is missed over the whole segment: whole numbers tell, no fractions
    closed, inside = _interval(lines, strict=False), _interval(lines, strict=True)
    if closed is None:
        return None
    if inside is not None:
        return ("crossed", closed[0], closed[1])
    lo, hi = closed
    return ("side", lo, hi) if lo < hi else ("corner", lo, hi)


def _interval(lines, strict: bool) -> tuple[Fraction, Fraction] | None:
    """The t in [0, 1] (in (0, 1) when strict) with |c + m t| <= 1 (< 1 when strict) for every
    (c, m); None when there is none. Bounds are kept as whole-number ratios (n, d), d > 0, and
    compared by cross-multiplying: exact, and quicker than fractions."""
    lo_n, lo_d, hi_n, hi_d = 0, 1, 1, 1
    for c, m in lines:
        if m == 0:
            if abs(c) > 1 or (strict and abs(c) == 1):
                return None
            continue
        # -1 <= c + m t <= 1: between (-1 - c) / m and (1 - c) / m, in that order when m > 0
        low, high, d = (-1 - c, 1 - c, m) if m > 0 else (c - 1, c + 1, -m)
        if low * lo_d > lo_n * d:
            lo_n, lo_d = low, d
        if high * hi_d < hi_n * d:
            hi_n, hi_d = high, d
    if lo_n * hi_d > hi_n * lo_d or (strict and lo_n * hi_d == hi_n * lo_d):
        return None
    return Fraction(lo_n, lo_d), Fraction(hi_n, hi_d)


# ---- a map file: the grid and its terrain -------------------------------------------------------
MAP_FIELDS = {"about": str, "source": str, "provisional": (list, bool), "grid": dict, "terrain_default": str,
              "terrain_kinds": dict, "terrain": dict}
TERRAIN_KIND_FIELDS = {"name": str, "blocks": bool, "fill": str}


@dataclass(frozen=True)
class HexMap:
    """A game's hex map as its data file gives it: the grid, each hex's terrain (``default`` where
    unnamed), the terrain kinds (name, whether it blocks a line of sight, how pages fill it)."""

    grid: Grid
    spec: dict
    kinds: dict
    default: str
    terrain: dict
    blocking: frozenset

    def terrain_of(self, name: str) -> str:
        return self.terrain.get(name, self.default)

    def line_of_sight(self, a: str, b: str) -> Sight:
        return self.grid.line_of_sight(a, b, self.blocking)

    def board(self) -> dict:
        """The grid form of ``board()`` (docs/pages.md, "Hex maps"): pages compute each hex's place."""
        return {"grid": self.spec, "terrain_default": self.default, "terrain": dict(self.terrain),
                "terrain_styles": {k: dict(v) for k, v in self.kinds.items()}, "units": {}}


def load_map(directory, name: str) -> HexMap:
    """A hex map file of a ruleset's data folder, checked once: a bad entry fails naming the file
    and the entry (``DataError``). Format: docs/rulesets.md, "Hex maps"."""
    from domain.rulesets.toolkit.data import DataError, check_fields, read_json

    raw = read_json(directory, name)
    check_fields(name, "(file)", raw, MAP_FIELDS, optional=("about", "source", "provisional"))
    for kind, fields in raw["terrain_kinds"].items():
        check_fields(name, f"terrain_kinds.{kind}", fields, TERRAIN_KIND_FIELDS)
    try:
        grid = Grid(raw["grid"])
    except GridSpecError as exc:
        raise DataError(name, "grid", str(exc)) from None
    kinds, default = raw["terrain_kinds"], raw["terrain_default"]
    if default not in kinds:
        raise DataError(name, "terrain_default", f"{default!r} is not one of terrain_kinds")
    terrain: dict[str, str] = {}
    for kind, hexes in raw["terrain"].items():
        if kind not in kinds:
            raise DataError(name, f"terrain.{kind}", "is not one of terrain_kinds")
        for hex_name in hexes:
            try:
                grid.hex(hex_name)
            except NotOnMap as exc:
                raise DataError(name, f"terrain.{kind}", str(exc)) from None
            if hex_name in terrain:
                raise DataError(name, f"terrain.{kind}", f"hex {hex_name} is {terrain[hex_name]} already")
            terrain[hex_name] = kind
    blocking = frozenset(h for h, k in terrain.items() if kinds[k]["blocks"])
    return HexMap(grid, raw["grid"], kinds, default, terrain, blocking)
