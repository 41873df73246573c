"""A solitaire player's Solitaire Task Force campaign through the command line (round 13,
stfplay13): what he typed as a player types it, and was not told how to mend. Against a live
server (the fixtures of test_client)."""

from __future__ import annotations

import json
import shlex

from tests.api.test_client import alice, clean_env, server  # noqa: F401  (fixtures)


def stf_game_in_deployment(server, alice, map_: str = "giuk") -> str:
    """A US campaign on ``map_`` set up from the first order each offer holds, to its Deployment phase."""
    code, out, err = alice("new", "stf", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "gorshkov")[0] == 0
    assert alice("order", game_id, "campaign", "--set", f"map={map_}", "--set", "side=US")[0] == 0
    while alice.json("show", game_id)["phase"] != "Deployment":
        first = alice.json("legal", game_id)["orders"][0]
        assert alice("order", game_id, "--json", json.dumps(first))[0] == 0
    return game_id


def test_stf_6_1_a_hex_typed_as_digits_is_told_how_to_quote_it(server, alice):
    """STF 6.1: 'warlog order GAME deploy --set group=P1 --set megahex=46 --set hex=1810' reads
    1810 as JSON, a number, and the server refuses it: "a hex is named by a string (…), not 1810".
    The player typed the hex as the history prints it and was not told what else to type ('legal'
    prints --set 'hex="1810"' without a word why). The refusal now says how --set read it and gives
    the quoted field, which is then taken."""
    game_id = stf_game_in_deployment(server, alice)
    deploy = next(o for o in alice.json("legal", game_id)["orders"]  # "0808" is no JSON: it stays a text
                  if o["kind"] == "deploy" and not o.get("hex", "0").startswith("0"))
    words = ["--set", f"group={deploy['group']}", "--set", f"megahex={deploy['megahex']}"]
    code, out, err = alice("order", game_id, "deploy", *words, "--set", f"hex={deploy['hex']}")
    assert code == 1, (out, err)
    assert f"""--set read hex={deploy['hex']} as a number; as a text it is quoted: --set 'hex="{deploy['hex']}"'""" \
        in err, err
    # a number refused for another reason (a megahex not of the table) gets no such word
    code, out, err = alice("order", game_id, "deploy", "--set", f"group={deploy['group']}", "--set", "megahex=9999")
    assert code == 1 and "as a text" not in err, err
    code, out, err = alice("order", game_id, "deploy", *words, "--set", f'hex="{deploy["hex"]}"')
    assert code == 0, err


def test_stf_state_lists_units_by_group_and_the_groups_one_a_line(server, alice):
    """STF 6.1: after the deployment 'warlog state' listed every unit as "not in play" (an STF
    unit has a group, not a location) and the groups as one JSON line of thousands of characters:
    a player could not see where his carrier was. Units now stand under their group, only the sunk
    ones out of play, and each group is a line of its own, its id first."""
    game_id = stf_game_in_deployment(server, alice)
    while alice.json("show", game_id)["turn"] == 0:
        first = next(o for o in alice.json("legal", game_id)["orders"] if o["kind"] == "deploy")
        assert alice("order", game_id, "--json", json.dumps(first))[0] == 0
    state = alice.json("state", game_id)["state"]
    code, out, err = alice("state", game_id)
    assert code == 0, err
    lines = out.splitlines()
    carrier = state["campaign"]["player_carriers"][0]
    group = state["units"][carrier]["group"]
    assert any(line.startswith(f"  group {group}: ") and carrier in line for line in lines), out
    assert not any(line.startswith("  not in play:") and carrier in line for line in lines), out
    assert f"groups ({len(state['groups'])}):" in lines, out
    hex_ = state["groups"][group]["hex"]
    assert any(line.startswith(f"  {group}: Player tf at {hex_}") for line in lines), out
    assert not any(line.startswith("groups: {") for line in lines), out
    while alice.json("show", game_id)["phase"] != "Movement":  # the Random Events and Group Mode phases
        first = alice.json("legal", game_id)["orders"][0]
        assert alice("order", game_id, "--json", json.dumps(first))[0] == 0
    move = next(o for o in alice.json("legal", game_id)["orders"] if o["kind"] == "move")
    assert alice("order", game_id, "--json", json.dumps(move))[0] == 0
    code, out, err = alice("state", game_id)
    assert f"  {move['group']}: Player " in out and "moved in turn 1" in out, out  # the turn it moved in, not hexes
    assert not any(" moved " in line and " moved in turn " not in line for line in out.splitlines()), out


def test_stf_6_1_legal_prints_a_megahexs_deploys_as_one_template(server, alice):
    """STF 6.1: a group's deploy is offered at every sea hex of each megahex of its column, and
    'warlog legal' printed each as a block of its own: a thousand lines for four groups in the
    Mediterranean, the last group's some 330 under as many headings. A megahex's deploys now
    print as one template, "hex: one of 0808, 0807, …", and one command line; every hex offered
    is still there, and the command line is taken."""
    game_id = stf_game_in_deployment(server, alice, "mediterranean")
    deploys = [o for o in alice.json("legal", game_id)["orders"] if o["kind"] == "deploy"]
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    places = {(o["group"], o["megahex"]) for o in deploys if "group" in o}
    assert len([o for o in deploys if "group" in o]) > 2 * len(places)  # several hexes a megahex: what is merged
    assert out.count(f"warlog order {game_id} deploy --set group=") == len(places), out
    lines = out.splitlines()
    # the next SOSUS unit (STF 1.8), offered in every shallow megahex when the campaign's dice gave
    # the Player one: its megahexes are folded the same way, each still offered
    folded = [m for line in lines if line.startswith("  megahex: one of ") for m in line.split("one of ")[1].split(", ")]
    for o in deploys:
        if "sosus" in o:
            assert str(o["megahex"]) in folded or f"--set sosus={o['sosus']} --set megahex={o['megahex']}\n" in out, (o, out)
    for o in deploys:
        if "hex" in o:
            assert any(line.startswith("  hex: one of ") and o["hex"] in line.split("one of ")[1].split(", ")
                       for line in lines), (o, out)
    command = next(line.strip() for line in lines if line.strip().startswith(f"warlog order {game_id} deploy "))
    assert alice(*shlex.split(command)[1:])[0] == 0, command
