"""PG 6's map data (domain/rulesets/proving/data/hexmap.json), loaded once at import: a bad file
fails naming the file and the entry; the map the tests use is the one described."""

from __future__ import annotations

import json
import re

import pytest

from domain.rulesets.proving import hexes
from domain.rulesets.toolkit.hexes import load_map


def test_pg6_the_map_is_30_by_30_with_blocking_woods_and_buildings():
    assert len(hexes.GRID.names()) == 900 and hexes.GRID.names()[-1] == "DD30"
    assert {"M8", "M9", "N10"} <= hexes.MAP.blocking and "J20" not in hexes.MAP.blocking  # a pond


def test_pg6_a_bad_map_file_fails_naming_the_file_and_the_entry(tmp_path):
    good = json.loads((hexes.DATA_DIR / "hexmap.json").read_text())
    for change, says in ((lambda m: m["terrain"]["woods"].append("L31"), "terrain.woods: 'L31' is not a hex"),
                         (lambda m: m["terrain"]["building"].append("N10"), "terrain.building: hex N10 is woods already"),
                         (lambda m: m["grid"].update(naming="xy"), "grid: grid spec: 'naming' is one of"),
                         (lambda m: m["terrain_kinds"]["woods"].pop("blocks"), "terrain_kinds.woods: missing field(s) blocks")):
        bad = json.loads(json.dumps(good))
        change(bad)
        path = tmp_path / "hexmap.json"
        path.write_text(json.dumps(bad))
        with pytest.raises(ValueError, match=re.escape(f"hexmap.json: {says}")):
            load_map(tmp_path, "hexmap.json")
