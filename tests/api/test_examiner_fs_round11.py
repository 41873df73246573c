"""Falklands Showdown over the HTTP API, eleventh examiner round: an Op #24 march that attacks hands
over the area it leaves the instant it leaves (FS 3.6), so its VP can end the game (FS 4.5) before
the attack is made (tests/unit/falklands/test_examiner_round11.py has the unit scenarios)."""

from __future__ import annotations

import pytest

from tests.api.test_examiner_fs_api_play import accepted, at, game_at, held, legal, state_of, uk_to_move, vp_track


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


def _west_falkland_contested(state):
    """Port Howard: 2 Para beside the AR 5th, the UK's; Fox Bay: 3 Para beside the AR 8th, the AR's;
    a UK ship in the TEZ keeps FS 4.4(1) quiet; the track at +19."""
    for unit, where in (("2_para", "port_howard"), ("ri_5", "port_howard"), ("3_para", "fox_bay"),
                        ("ri_8", "fox_bay"), ("glamorgan", "falklands")):
        at(unit, where)(state)
    held("port_howard", "UK")(state)
    held("fox_bay", "AR")(state)
    state["vp"] = {"VP": 19}


def test_fs_3_6_and_4_5_the_uk_marching_out_of_port_howard_to_attack_fox_bay_at_plus_19_loses_at_once(
        client, monkeypatch):
    """FS 7.1 Op #24: the force moves into the adjoining area and "may" attack there; FS 3.6 "comes
    under your control the instant your side is the only one"; 4.4(5) "If the AR player manages to
    recapture any VP area, he immediately adds back"; 4.5 "If the VP tally ever reaches +20, play
    stops immediately". The offered march with an attack is accepted, and the game ends there for
    the AR at +20: no battle, no decision owed, nothing more taken."""
    game = game_at(client, monkeypatch, "midgame", uk_to_move, _west_falkland_contested)
    offer = next(o for o in legal(client, game, "UK") if o.get("op") == 24)
    assert "fox_bay" in offer["choices"]["origin"]["port_howard"]["destination"]
    events = accepted(client, game, "UK", {"kind": "operation", "op": 24, "origin": "port_howard",
                                           "destination": "fox_bay", "units": ["2_para"], "attack": True})
    assert "BattleBegun" not in [e["type"] for e in events]
    track = vp_track(client, game)
    assert track["totals"] == {"VP": 20} and track["track"][-1]["rule"] == "FS 4.4(5)", track
    st = state_of(client, game)
    assert st["control"]["port_howard"] == "AR" and st["control"]["fox_bay"] == "AR"
    assert (st["ended"]["winner"], st["ended"]["rule"]) == ("AR", "FS 4.5") and not st["pending"]
    assert legal(client, game, "UK") == [] and legal(client, game, "AR") == []
