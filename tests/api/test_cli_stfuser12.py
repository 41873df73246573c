"""A new Solitaire Task Force player's campaign through the command line (round 12): what he met
at the table and was not told. Against a live server (the fixtures of test_client)."""

from __future__ import annotations

import json

from tests.api.test_client import alice, clean_env, server  # noqa: F401  (fixtures)
from tests.api.test_stf_stfuser12 import to_place


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


def test_stf_6_1_legal_says_which_deploy_ends_the_deployment(server, alice):
    """STF 6.1: the deploy that places the last group (or SOSUS unit) ends the deployment: the
    GameSystem deploys (6.2) and turn 1 begins. 'warlog legal' offered that deploy as every other,
    beside 'deploy_done', and a player placing his last SOSUS unit found his deployment over
    before he had looked at it again. The last one now says so; before it, none does."""
    code, out, err = alice("new", "stf", "--server", server.url)
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    assert alice("order", game_id, "campaign", "--set", "map=giuk", "--set", "side=US")[0] == 0
    while alice.json("show", game_id)["phase"] != "Deployment":
        first = alice.json("legal", game_id)["orders"][0]
        assert alice("order", game_id, "--json", json.dumps(first))[0] == 0
    ends = "the last to place: it ends your deployment (the GameSystem deploys, STF 6.2, and turn 1 begins)"
    while True:
        deploys = [o for o in alice.json("legal", game_id)["orders"] if o["kind"] == "deploy"]
        code, out, err = alice("legal", game_id)
        assert code == 0, err
        if to_place(alice.json("state", game_id)["state"]) > 1:
            assert ends not in out, out
            assert alice("order", game_id, "--json", json.dumps(deploys[0]))[0] == 0
            continue
        # (stfplay13: a megahex's deploys at each of its sea hexes print as one, "hex: one of …", the
        # title naming the field: "hex HEX"; a SOSUS unit's, at each megahex, "megahex MEGAHEX")
        where = f"{deploys[0]['megahex']}, hex HEX" if "hex" in deploys[0] else "MEGAHEX"
        assert f"deploy (STF 6.1) — deploy {deploys[0].get('group') or deploys[0].get('sosus')} in megahex " \
               f"{where}, {ends}\n" in out, out
        assert f"  warlog order {game_id} deploy " in out and "title" not in out, out  # the words are not sent
        break
    assert alice("order", game_id, "--json", json.dumps(deploys[0]))[0] == 0  # taken with its title
    assert alice.json("show", game_id)["turn"] == 1


def test_stf_1_5_state_lists_the_pool_buy_takes_one_counter_a_line(server, alice):
    """STF 1.4, 1.5, 1.7: after drawing his carriers the Player buys the rest of his force from the
    pool by counter id, within his commitment points. 'warlog state' printed the pool as one JSON
    line of some 60,000 characters, and a player could not read what he might buy or what it cost.
    It is listed one counter a line: its id as 'buy' takes it, class, name, nation, value, VP."""
    code, out, err = alice("new", "stf", "--server", server.url)
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    assert alice("order", game_id, "campaign", "--set", "map=giuk", "--set", "side=US")[0] == 0
    first = alice.json("legal", game_id)["orders"][0]  # draw_carriers (or, with none to draw, a buy)
    assert alice("order", game_id, "--json", json.dumps(first))[0] == 0  # the pool is set (STF 1.7)
    pool = alice.json("state", game_id)["state"]["pool"]
    assert "us-bb-new-jersey" in pool  # never in the first offered buy (frigates)
    code, out, err = alice("state", game_id)
    assert code == 0, err
    assert f"pool ({len(pool)}):\n" in out and "pool: {" not in out, out[:2000]
    assert "\n  us-bb-new-jersey: BB New Jersey (US), value 10, VP 10, speed 3\n" in out, out[:2000]
    assert max(len(line) for line in out.split("\n")) < 2000, "a line of the state is thousands of characters long"
