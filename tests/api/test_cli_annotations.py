"""`warlog annotate` and `warlog spectator-token` against a live server (docs/api.md, "Annotations"):
a keyed seat's annotation is signed, a private one is read by its seat alone, `warlog history`
shows each annotation under its event, and a spectator annotates once the game has ended."""

from __future__ import annotations

import json

from tests.api import test_client
from tests.api.test_client import Player, started_game

alice, bob, clean_env, server = test_client.alice, test_client.bob, test_client.clean_env, test_client.server


def test_seats_annotate_from_the_command_line_and_history_shows_the_notes_under_their_event(
        server, alice, bob, tmp_path, monkeypatch, capsys):
    game_id = started_game(server, alice, bob)
    code, out, err = alice("annotate", game_id, "1", "Blue's opening plan", "--private", "--annotation-id", "n-1")
    assert code == 0 and "private annotation n-1 on event 1 recorded" in out, err
    code, out, err = alice("annotate", game_id, "1", "Blue's opening plan", "--private", "--annotation-id", "n-1")
    assert code == 0 and "replayed" in out, err  # the same id again: nothing new
    signed = bob.json("annotate", game_id, "1", "Red watches the ford")
    assert [line["type"] for line in signed["events"]] == ["AnnotationAdded", "CommandSigned"]  # bob's key signs
    recorded = alice.json("history", game_id)
    types = [line["type"] for t in recorded["turns"] for p in t["phases"] for op in p["operations"]
             for line in op["lines"]]
    assert "AnnotationAdded" not in types and types.count("CommandSigned") == 0  # beside their event, not lines
    code, out, err = alice("history", game_id)
    assert code == 0 and "note #" in out and "by Blue (private): Blue's opening plan" in out, err
    assert "by Red: Red watches the ford" in out
    code, out, err = bob("history", game_id)
    assert "opening plan" not in out and "by Red: Red watches the ford" in out

    code, out, err = alice("annotate", game_id, "999", "nothing there")
    assert code == 1 and "about_seq" in err, err
    assert alice("concede", game_id)[0] == 0

    code, out, err = alice("spectator-token", game_id, "Sam", "--json")
    assert code == 0, err
    token = json.loads(out)["token"]
    sam = Player("sam", tmp_path, monkeypatch, capsys)
    code, out, err = sam("annotate", game_id, "1", "well fought", "--server", server.url, "--token", token)
    assert code == 0 and "annotation" in out, err
    code, out, err = bob("history", game_id)
    assert "by spectator Sam: well fought" in out, out


def test_the_admin_lists_and_revokes_a_spectator_token_from_the_command_line(
        server, alice, bob, tmp_path, monkeypatch, capsys):
    game_id = started_game(server, alice, bob)
    assert alice("concede", game_id)[0] == 0
    code, out, err = alice("spectator-tokens", game_id)
    assert code == 0 and "no spectator tokens" in out, err
    sam_token = alice.json("spectator-token", game_id, "Sam")["token"]
    kim_token = alice.json("spectator-token", game_id, "Kim")["token"]
    sam = Player("sam", tmp_path, monkeypatch, capsys)
    code, out, err = sam("annotate", game_id, "1", "well fought", "--server", server.url, "--token", sam_token)
    assert code == 0, err
    code, out, err = alice("spectator-tokens", game_id)
    assert code == 0 and " Sam " in out and " Kim " in out and out.count(" live") == 2, out
    assert sam_token not in out and kim_token not in out
    listed = alice.json("spectator-tokens", game_id)["tokens"]
    sam_id = next(t["token_id"] for t in listed if t["name"] == "Sam")
    code, out, err = bob("spectator-tokens", game_id)  # a seat: not the admin
    assert code != 0 and "admin" in err, err
    code, out, err = alice("spectator-revoke", game_id, sam_id)
    assert code == 0 and f"spectator token {sam_id} of Sam revoked" in out, err
    code, out, err = alice("spectator-revoke", game_id, sam_id)
    assert code == 0 and "was already revoked" in out, err
    revoked = alice.json("spectator-revoke", game_id, sam_id)
    assert revoked["already_revoked"] is True and revoked["revoked_at"]
    code, out, err = alice("spectator-revoke", game_id, "0" * 16)
    assert code == 1 and "0" * 16 in err, err
    code, out, err = sam("annotate", game_id, "1", "again", "--server", server.url, "--token", sam_token)
    assert code == 1 and "not valid" in err, err
    code, out, err = sam("history", game_id, "--server", server.url, "--token", kim_token)
    assert code == 0 and "by spectator Sam: well fought" in out, out  # what Sam wrote stays
    code, out, err = alice("spectator-tokens", game_id)
    assert "revoked" in out and out.count(" live") == 1, out
    alice.json("spectator-token", game_id, "Kim")
    code, out, err = alice("spectator-revoke", game_id, "--name", "Kim")
    assert code == 0 and "2 live spectator token(s) of Kim revoked" in out, err
    code, out, err = sam("history", game_id, "--server", server.url, "--token", kim_token)
    assert code == 1 and "not valid" in err, err
    code, out, err = alice("spectator-revoke", game_id)
    assert code == 2 and "TOKEN_ID" in err, err
