"""A new Solitaire Task Force player's campaign (round 12) over HTTP: orders the offer held that the
server then refused."""

from __future__ import annotations

import pytest

from tests.api.test_examiner_documented_orders import (_player_cv_tf, _system_tf, legal, refused,
                                                       stf_combat_position)

HARPOON_AIRCRAFT = ("A-6 Intruder", "Buccaneer")


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


def test_stf_13_11_no_harpoon_strike_is_offered_from_carriers_whose_a6s_are_lost(client, monkeypatch):
    """STF 13.11: a carrier's A-6 Intruder (or Buccaneer) squadrons fire Harpoons with an air strike,
    each once. After the Player reported his carrier's A-6 squadron destroyed ("squadrons_destroyed":
    ["us-cv-…:H"]), legal-orders still offered the strike with "asm": [{"aircraft": "A-6 Intruder"}]
    from its task force, and the server refused it as sent: "P1's carriers have 0 A-6 Intruder
    squadron(s) left, not 1 to fire Harpoons"."""
    chosen = {}

    def edit(state):
        chosen["tf"], chosen["cv"] = _system_tf(state), _player_cv_tf(state)
        state["groups"][chosen["tf"]].update(intel="accurate", chit="Commodore", size="medium")
        for uid in state["groups"][chosen["cv"]]["units"]:
            unit = state["units"][uid]
            if unit["class"] == "CV":  # every squadron that fires Harpoons is lost (the report's air_lost)
                unit["air_lost"] = [t for t, a in (unit.get("aircraft") or {}).items()
                                    for n in range(len(unit["air"][t]) if isinstance(unit["air"][t], list) else 1)
                                    if any(h in str(a) for h in HARPOON_AIRCRAFT)]
    game = stf_combat_position(client, monkeypatch, edit, phase="Strike",
                               campaign={"kind": "campaign", "map": "giuk", "side": "US"},
                               wanted=lambda st: _player_cv_tf(st) is not None)
    cv, tf = chosen["cv"], chosen["tf"]
    strikes = [o for o in legal(client, game, "Player") if o["kind"] == "air_strike" and o["from"] == cv]
    assert {"kind": "air_strike", "from": cv, "target": tf} in strikes, strikes  # the strike itself flies
    assert not [o for o in strikes if o.get("asm")], strikes
    problem = refused(client, game, "Player", {"kind": "air_strike", "from": cv, "target": tf,
                                               "asm": [{"aircraft": "A-6 Intruder", "damage": 0}]})
    assert problem["rule"] == "STF 13.11", problem
