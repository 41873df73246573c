"""A solitaire player's Solitaire Task Force campaign through the command line (round 13,
stfplay13): what he typed as a player types it, and was not told how to mend. Against a live
server (the fixtures of test_client)."""

from __future__ import annotations

import json

from tests.api.test_client import alice, clean_env, server  # noqa: F401  (fixtures)


def stf_game_in_deployment(server, alice) -> str:
    code, out, err = alice("new", "stf", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "gorshkov")[0] == 0
    assert alice("order", game_id, "campaign", "--set", "map=giuk", "--set", "side=US")[0] == 0
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
