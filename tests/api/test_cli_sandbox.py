"""Positions and sandboxes from the command line: ``warlog new --position`` starts from a named
position, ``warlog sandbox GAME --at SEQ`` forks a sandbox with the saved token and saves its
invites, and ``warlog games`` leaves sandboxes out unless ``--sandbox``. Against a live server
(the fixtures of test_client)."""

from __future__ import annotations

import json

from tests.api.test_client import alice, bob, clean_env, server  # noqa: F401  (fixtures)


def test_new_from_a_position_then_a_sandbox_listed_only_when_asked(server, alice):
    code, out, err = alice("new", "proving", "--position", "midgame", "--public", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    invites = alice.saved()["games"][game_id]["invites"]
    assert alice("join", game_id, invites["Red"], "--handle", "alice")[0] == 0
    code, out, err = alice("state", game_id, "--json")
    assert code == 0 and json.loads(out)["turn"] == 3, err
    code, out, err = alice("sandbox", game_id, "--at", "2", "--public")
    assert code == 0 and f"a sandbox of {game_id} from event 2" in out, err
    sandbox_id = out.split()[1]
    assert set(alice.saved()["games"][sandbox_id]["invites"]) == {"Red", "Blue"}
    code, out, err = alice("games")
    assert code == 0 and game_id in out and sandbox_id not in out, err
    code, out, err = alice("games", "--sandbox")
    assert code == 0 and sandbox_id in out, err
    version = alice.json("show", game_id)["version"]  # created, position set, Red joined, its key registered
    code, out, err = alice("sandbox", game_id, "--at", "99")
    assert code != 0 and f"1 to {version}" in err
