"""A new Solitaire Task Force player's campaign through the command line (round 12): what he met
at the table and was not told. Against a live server (the fixtures of test_client)."""

from __future__ import annotations

import json

from tests.api.test_client import alice, clean_env, server  # noqa: F401  (fixtures)


def stf_game_to_turn_1(server, alice) -> str:
    """A GIUK campaign (two airbases: no question) set up from the first order each offer holds,
    to turn 1's Random Events phase."""
    code, out, err = alice("new", "stf", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    assert alice("order", game_id, "campaign", "--set", "map=giuk", "--set", "side=US")[0] == 0
    for _ in range(40):
        if alice.json("show", game_id)["turn"] == 1:
            return game_id
        first = alice.json("legal", game_id)["orders"][0]
        code, out, err = alice("order", game_id, "--json", json.dumps(first))
        assert code == 0, err
    raise AssertionError("the set-up did not reach turn 1")


def test_stf_5_1_legal_says_what_the_pending_decision_asks(server, alice):
    """STF 5.1 (and 11.2's SSM waves, 2.2's airbases): while a decision waits, 'warlog legal'
    printed only its answers, "declare none for declare-1 (STF 5.1)" or "decide
    combat-1-TF1-P2-ssm1-1 (STF 6.7)" with choices like {"ended": true}: the question itself
    ("which unit did it sink?") was in the order's output only, so a player coming back to the game
    could not tell what he was answering. It is now printed before the answers, its rule once."""
    game_id = stf_game_to_turn_1(server, alice)
    assert alice("order", game_id, "end_phase")[0] == 0  # the Random Events phase asks for the event
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert out.startswith("Player must answer: Turn 1: declare the random event Task Force's Random Events "
                          "Table gives (STF 5.1)\n"), out
    assert "declare none for declare-1 (STF 5.1)" in out, out
    code, out, err = alice("state", game_id)  # the state's line names the rule once too
    assert code == 0, err
    assert ("waiting for Player: Turn 1: declare the random event Task Force's Random Events Table gives "
            f"(STF 5.1); its answers: warlog legal {game_id}") in out, out
