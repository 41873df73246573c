"""Falklands Showdown FS 1-6 and 8-10 read sentence by sentence (the seventh examiner round):
worked positions with fixed dice for what the earlier examiner modules did not check, each
failing on the code before its fix (helpers.py positions)."""

from __future__ import annotations

from domain.rulesets.falklands import state as S

from .helpers import UK, FixedDice, answer, empty, events_of, fire, op, pending, place, play


# ------------------------------------------------------------------------------- FS 10.9 ---
def test_fs_10_5_a_carriers_hit_passed_on_from_a_destroyed_target_is_judged_at_the_stealth_hit_number():
    """FS 10.9: the carriers "need not assign each shot beforehand" (a shot listed at a target the
    dice before it destroyed is aimed as it is fired, docs/rulesets.md); FS 10.5: fired at by any UK
    unit the stealth aircraft is hit on a one only. Hermes fires at the Pucara, the Super Etendard
    and the Pucara again: the Pucara falls to the first die, the second misses, the third (a 2)
    would hit a Pucara, but aimed at the Super Etendard, the one still standing, it is a miss."""
    st = empty()
    place(st, "hermes", "falklands")
    place(st, "pucara_3", "pebble_island")
    place(st, "super_etendard", "pebble_island")
    order = op(13, carriers=["hermes"], airbase="pebble_island",
               fire=fire(("hermes", "pucara_3"), ("hermes", "super_etendard"), ("hermes", "pucara_3")))
    out, st2 = play(st, UK, order, FixedDice(1, 6, 2))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["pucara_3"]
    assert S.alive(st2, "super_etendard")


def test_fs_10_9_a_carriers_hit_passed_on_from_a_destroyed_target_never_falls_on_a_submarine_it_fired_at():
    """FS 10.9: "When firing at submarines, neither carrier ever fires more than once per battle".
    Hermes fires at the destroyer, the submarine and the destroyer again: the destroyer sinks to the
    first die, the submarine is missed, and the third die's hit, its target gone, is not a second
    shot at the submarine."""
    st = empty()
    place(st, "hermes", "sa7")
    place(st, "drummond", "sa7")
    place(st, "santa_fe", "sa7")
    order = op(20, units=[], destination="sa7", attack=True,
               fire=fire(("hermes", "drummond"), ("hermes", "santa_fe"), ("hermes", "drummond")))
    out, st2 = play(st, UK, order)  # the defender assigns his fire first (FS 10.2)
    assert pending(st2)["kind"] == "defensive_fire"
    out, st3 = answer(st2, "AR", {"fire": "auto"}, FixedDice(1, 6, 2, 6, 6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["drummond"]
    assert S.alive(st3, "santa_fe")


# ------------------------------------------------------------------------------- FS 10.8 ---
_SF_FATE = """
import pytest
from tests.unit.falklands.test_rules_combat import FLAT, ground_fight, place, play, answer, op, fire, UK, AR, FixedDice
from tests.unit.falklands.helpers import events_of
mp = pytest.MonkeyPatch()
st = ground_fight(mp, FLAT, uk=("2_para", "sas_d", "sas_g", "sbs"), ar=("ri_12",), factor=3)
place(st, "2_para", FLAT, steps=1)
out, st = play(st, UK, op(15, area=FLAT, units=["2_para", "sas_d", "sas_g", "sbs"], fire=fire(("2_para", "ri_12"))))
out, _ = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(6, 1))
print([e["unit"] for e in events_of(out, "UnitEliminated") if e["rule"] == "FS 10.8"])
"""


def test_fs_10_8_sf_sharing_a_fate_fall_in_the_battles_order_in_every_process():
    """Three UK SF share the fate of 2 Para: their eliminations come in the order the battle lists
    them, whatever the process's string hashing (a set's order once decided it, so two processes
    could record one battle's events in different orders)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    seen = set()
    for seed in range(8):
        done = subprocess.run([sys.executable, "-c", _SF_FATE], cwd=root, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)})
        assert done.returncode == 0, done.stderr[-2000:]
        seen.add(done.stdout.strip().splitlines()[-1])
    assert seen == {"['sas_d', 'sas_g', 'sbs']"}
