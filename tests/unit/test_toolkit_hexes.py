"""The hex geometry of the rules toolkit (domain/rulesets/toolkit/hexes.py): the texts' own hex
names, neighbours, distance, range, megahexes (Solitaire Task Force), and line of sight against
the fixed vectors of tests/data/hex_los_vectors.json, which a float geometry in drawing space
(the hexagons' corners, clipped like a drawing would) checks independently."""

from __future__ import annotations

import json
import math
import random
from collections import deque
from pathlib import Path

import pytest

from domain.rulesets.toolkit.hexes import Cube, Grid, GridSpecError, NotOnMap

VECTORS = json.loads((Path(__file__).parents[1] / "data" / "hex_los_vectors.json").read_text())
GRIDS = {name: Grid(spec) for name, spec in VECTORS["grids"].items()}
FLAT = GRIDS["flat-letters"]
MEGA = Grid({**VECTORS["grids"]["flat-letters"],
             "megahexes": {"outer": ["N", "NE", "SE", "S", "SW", "NW"], "anchor": "B2",
                           "numbers": {"1": "B2", "2": "D4", "19": "K8"}}})


# ---- an independent float geometry: hex centres and corners as drawn ----
def centre(grid: Grid, h: Cube) -> tuple[float, float]:
    if grid.orientation == "flat":
        return 1.5 * h.q, math.sqrt(3) * (h.r + h.q / 2)
    return math.sqrt(3) * (h.q + h.r / 2), 1.5 * h.r


def corners(grid: Grid, h: Cube) -> list[tuple[float, float]]:
    x, y = centre(grid, h)
    turn = 0 if grid.orientation == "flat" else 30
    return [(x + math.cos(math.radians(60 * k + turn)), y + math.sin(math.radians(60 * k + turn))) for k in range(6)]


def drawn_touch(grid: Grid, a: Cube, b: Cube, h: Cube) -> str | None:
    """How the drawn segment meets h's drawn hexagon: clipped against its six sides (Cyrus-Beck)."""
    (ax, ay), (bx, by) = centre(grid, a), centre(grid, b)
    poly, (cx, cy) = corners(grid, h), centre(grid, h)
    lo, hi, eps = 0.0, 1.0, 1e-9
    sides = []
    for k in range(6):
        (px, py), (qx, qy) = poly[k], poly[(k + 1) % 6]
        nx, ny = qy - py, -(qx - px)  # outward when the centre is on the other side
        if nx * (cx - px) + ny * (cy - py) > 0:
            nx, ny = -nx, -ny
        sides.append((px, py, nx, ny))
        num, den = nx * (ax - px) + ny * (ay - py), nx * (bx - ax) + ny * (by - ay)
        if abs(den) < eps:
            if num > eps:
                return None
            continue
        t = -num / den
        if den > 0:
            hi = min(hi, t)
        else:
            lo = max(lo, t)
    if hi < lo - eps:
        return None
    if hi - lo < 1e-7:
        return "corner"
    mx, my = ax + (lo + hi) / 2 * (bx - ax), ay + (lo + hi) / 2 * (by - ay)
    inside = all(nx * (mx - px) + ny * (my - py) < -1e-7 for px, py, nx, ny in sides)
    return "crossed" if inside else "side"


def drawn_line(grid: Grid, a: str, b: str) -> dict:
    """{crossed, side, corner}: the on-map hexes the drawn line meets, by how."""
    ha, hb = grid.hex(a), grid.hex(b)
    near = {grid.cube(c, r) for c in range(grid.columns) for r in range(grid.rows)}
    out = {"crossed": set(), "side": set(), "corner": set()}
    for h in near:
        how = drawn_touch(grid, ha, hb, h)
        if how:
            out[how].add(grid.name(h))
    return out


# ---- line of sight ----
@pytest.mark.parametrize("v", VECTORS["vectors"], ids=lambda v: f"{v['case']}:{v['from']}-{v['to']}")
def test_line_of_sight_fixed_vectors(v):
    grid = GRIDS[v["grid"]]
    sight = grid.line_of_sight(v["from"], v["to"], v["blocking"], hexside=v.get("hexside"), vertex=v.get("vertex"))
    assert sight.clear is v["clear"]
    assert list(sight.blocked_by) == v["blocked_by"]
    if "hexsides" in v:
        assert [list(p) for p in sight.hexsides] == v["hexsides"]
    if "corners" in v:
        assert sorted(sight.corners) == sorted(v["corners"])
    # the case a vector names is the case its line is in
    assert bool(sight.hexsides) is (v["case"] == "hexside")
    assert bool(sight.corners) is (v["case"] == "vertex")


def test_line_of_sight_vectors_cover_every_special_case_on_both_orientations():
    cases = {(VECTORS["grids"][v["grid"]]["orientation"], v["case"]) for v in VECTORS["vectors"]}
    for orientation in ("flat", "pointy"):
        assert {(orientation, c) for c in ("crossed", "hexside", "vertex")} <= cases
    rules = {(v["case"], v.get("hexside"), v.get("vertex"), v["clear"]) for v in VECTORS["vectors"]}
    assert ("hexside", "both", None, True) in rules and ("hexside", "both", None, False) in rules
    assert ("hexside", "either", None, False) in rules
    assert ("vertex", None, "clear", True) in rules and ("vertex", None, "blocks", False) in rules


@pytest.mark.parametrize("v", VECTORS["vectors"], ids=lambda v: f"{v['case']}:{v['from']}-{v['to']}")
def test_line_of_sight_vectors_agree_with_the_drawn_geometry(v):
    grid = GRIDS[v["grid"]]
    sight = grid.line_of_sight(v["from"], v["to"], [])
    drawn = drawn_line(grid, v["from"], v["to"])
    assert set(sight.crossed) == drawn["crossed"]
    assert {h for pair in sight.hexsides for h in pair if h} == drawn["side"]
    assert {h for h in sight.corners if h} == drawn["corner"]


def test_line_of_sight_agrees_with_the_drawn_geometry_on_random_lines():
    rng = random.Random(31)
    for grid in GRIDS.values():
        names = grid.names()
        for _ in range(25):
            a, b = rng.sample(names, 2)
            sight, drawn = grid.line_of_sight(a, b, []), drawn_line(grid, a, b)
            assert set(sight.crossed) == drawn["crossed"], (a, b)
            assert {h for pair in sight.hexsides for h in pair if h} == drawn["side"], (a, b)


def test_line_of_sight_is_the_same_both_ways():
    rng = random.Random(6)
    names = FLAT.names()
    for _ in range(40):
        a, b = rng.sample(names, 2)
        blocking = rng.sample(names, 120)
        there, back = FLAT.line_of_sight(a, b, blocking), FLAT.line_of_sight(b, a, blocking)
        assert there.clear == back.clear and set(there.blocked_by) == set(back.blocked_by), (a, b)


def test_line_of_sight_names_a_hex_off_the_map_clearly():
    with pytest.raises(NotOnMap, match="'L31' is not a hex of this map"):
        FLAT.line_of_sight("L8", "L31", [])


# ---- names ----
def test_goose_green_names_hexes_by_column_letter_and_row_with_row_36_on_the_north_edge():
    """GG 15: "L8", "S26", "Z26"; "the north map edge (row 36)"."""
    gg = Grid({"orientation": "flat", "layout": "odd", "columns": 26, "rows": 36, "naming": "letter-number",
               "rows_from": "bottom"})
    assert gg.offset(gg.hex("L8")) == (11, 28)
    assert gg.offset(gg.hex("A36")) == (0, 0)  # row 36 drawn at the top: the north edge
    assert gg.name(gg.cube(25, 35)) == "Z1"
    assert {gg.name(gg.hex(n)) for n in ("L8", "S26", "Z26", "U4", "M2")} == {"L8", "S26", "Z26", "U4", "M2"}
    assert len(set(gg.names())) == 26 * 36


def test_columns_beyond_z_double_their_letter():
    g = Grid({"orientation": "flat", "layout": "odd", "columns": 60, "rows": 3, "naming": "letter-number"})
    assert [g.name(g.cube(c, 0)) for c in (0, 25, 26, 27, 51, 52)] == ["A1", "Z1", "AA1", "BB1", "ZZ1", "AAA1"]
    assert g.offset(g.hex("BB2")) == (27, 1)
    with pytest.raises(NotOnMap, match="'AB1' is not a hex name"):
        g.hex("AB1")


def test_ccrr_names_are_two_digits_of_column_then_two_of_row():
    g = Grid({"orientation": "flat", "layout": "odd", "columns": 20, "rows": 15, "naming": "CCRR"})
    assert g.name(g.cube(7, 11)) == "0812" and g.offset(g.hex("0812")) == (7, 11)
    assert all(g.name(g.hex(n)) == n for n in g.names())
    for bad, says in (("812", "is not a hex name"), ("2101", "is not a hex of this map"), ("0016", "is not a hex of this map")):
        with pytest.raises(NotOnMap, match=f"'{bad}' {says}"):
            g.hex(bad)


@pytest.mark.parametrize("bad", ["L0", "L31", "EE1", "l8", "L08", "", "8L", None, 8])
def test_a_name_not_on_the_map_is_refused_saying_what_names_look_like(bad):
    with pytest.raises(NotOnMap, match="columns A to DD, rows 1 to 30: names like A1"):
        FLAT.hex(bad)


def test_a_bad_grid_spec_names_its_field():
    for spec, field in (({"orientation": "round"}, "orientation"),
                        ({"orientation": "flat", "layout": "odd", "columns": 0}, "columns"),
                        ({"orientation": "flat", "layout": "odd", "columns": 3, "rows": 3, "naming": "xy"}, "naming"),
                        ({**VECTORS["grids"]["flat-letters"], "line_of_sight": {"hexside": "one"}}, "hexside"),
                        ({**VECTORS["grids"]["flat-letters"], "megahexes": {"outer": ["N"], "anchor": "B2"}}, "outer")):
        with pytest.raises(GridSpecError, match=field):
            Grid(spec)


# ---- neighbours, distance, range ----
def steps_from(grid: Grid, start: str) -> dict[str, int]:
    """Hexes counted by walking neighbour to neighbour (breadth first), to check distance by."""
    seen, todo = {start: 0}, deque([start])
    while todo:
        here = todo.popleft()
        for there in grid.neighbours(here):
            if there not in seen:
                seen[there] = seen[here] + 1
                todo.append(there)
    return seen


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_neighbours_are_mutual_and_six_inside_the_map(name):
    grid = GRIDS[name]
    for h in grid.names():
        around = grid.neighbours(h)
        assert len(set(around)) == len(around) <= 6
        assert all(h in grid.neighbours(n) for n in around)
        col, row = grid.offset(grid.hex(h))
        if 0 < col < grid.columns - 1 and 0 < row < grid.rows - 1:
            assert len(around) == 6


def test_neighbours_touch_in_the_drawing():
    for grid in GRIDS.values():
        for h in grid.names()[::7]:
            x, y = centre(grid, grid.hex(h))
            for n in grid.neighbours(h):
                nx, ny = centre(grid, grid.hex(n))
                assert abs(math.hypot(nx - x, ny - y) - math.sqrt(3)) < 1e-9


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_distance_and_range_count_hexes_as_a_walk_does(name):
    grid = GRIDS[name]
    for start in grid.names()[::97]:
        walked = steps_from(grid, start)
        # on a map whose edges do not force a detour the walk is the straight count
        assert all(grid.distance(start, n) == d for n, d in walked.items())
        for n in (0, 1, 3):
            assert set(grid.within(start, n)) == {h for h, d in walked.items() if d <= n}


def test_range_in_the_open_holds_3n_n_plus_1_plus_1_hexes_nearest_first():
    around = FLAT.within("O15", 4)
    assert len(around) == 3 * 4 * 5 + 1 and around[0] == "O15"
    assert [FLAT.distance("O15", h) for h in around] == sorted(FLAT.distance("O15", h) for h in around)


# ---- megahexes ----
def test_a_megahex_is_its_centre_and_six_outer_hexes_numbered_in_the_maps_order():
    """STF 6.5: 'roll 1D6 to determine which of the outer hexes'; the order is the map's (data)."""
    hexes = MEGA.megahex("L8")
    assert hexes[0] == "L8" and set(hexes[1:]) == set(MEGA.neighbours("L8"))
    assert hexes[1] == "L7" and hexes[4] == "L9"  # 1 north, 4 south, as the spec lists them
    pointy = Grid({**VECTORS["grids"]["pointy-ccrr"],
                   "megahexes": {"outer": ["E", "SE", "SW", "W", "NW", "NE"], "anchor": "0810"}})
    assert pointy.megahex("0810") == ["0810", "0910", "0809", "0709", "0710", "0711", "0811"]


def test_megahexes_tile_the_map_each_hex_in_exactly_one():
    centres = {}
    for h in MEGA.names():
        c = MEGA.megahex_of(h)
        centres.setdefault(c, set()).add(h)
    for c, held in centres.items():
        around = {c} | {c + d for d in (Cube(0, -1, 1), Cube(1, -1, 0), Cube(1, 0, -1),
                                        Cube(0, 1, -1), Cube(-1, 1, 0), Cube(-1, 0, 1))}
        assert {MEGA.hex(h) for h in held} <= around
    assert sum(len(v) for v in centres.values()) == 900
    assert MEGA.megahex_of("B2") == MEGA.hex("B2") and MEGA.megahex_of("B3") == MEGA.hex("B2")


def test_megahex_numbers_and_distance_in_megahexes():
    assert MEGA.megahex_number("L8") == "19" and MEGA.megahex_number("L7") == "19"
    assert MEGA.megahex_centre(2) == "D4" and MEGA.megahex_number("A1") is None
    assert MEGA.megahex_distance("B2", "D4") == 1  # neighbouring megahexes: centres 3 hexes apart
    assert MEGA.megahex_distance("B2", "B3") == 0
    assert MEGA.megahex_distance("B2", "L8") == 4
    with pytest.raises(NotOnMap, match="no megahex 3"):
        MEGA.megahex_centre(3)
    with pytest.raises(GridSpecError, match="not the centre of a megahex"):
        Grid({**VECTORS["grids"]["flat-letters"],
              "megahexes": {"outer": ["N", "NE", "SE", "S", "SW", "NW"], "anchor": "B2", "numbers": {"1": "B3"}}})
    with pytest.raises(NotOnMap, match="no megahexes"):
        FLAT.megahex("L8")


def test_line_of_sight_within_one_hex_is_clear_and_runs_along_nothing():
    sight = FLAT.line_of_sight("L8", "L8", ["L8", "L9"])
    assert sight.clear and sight.crossed == ("L8",) and sight.hexsides == () and sight.corners == ()
