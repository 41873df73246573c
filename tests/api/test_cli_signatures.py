"""The CLI signs (issue 34, part 3): join makes a key and keeps it 0600, every order is signed,
signed heads are kept and `verify --head` checks a file against one. Against a live server."""

from __future__ import annotations

import json
import os
import stat

from domain import chain
from tests.api import test_client
from tests.api.test_client import started_game

# The live server and the two players of tests/api/test_client.py.
alice, bob, clean_env, server = test_client.alice, test_client.bob, test_client.clean_env, test_client.server


def test_join_registers_a_key_orders_are_signed_and_verify_checks_a_kept_head(server, alice, bob, tmp_path):
    game_id = started_game(server, alice, bob)
    entry = alice.saved()["games"][game_id]
    assert set(entry["keys"]) == {"Blue"} and len(entry["keys"]["Blue"]) == 43
    config = next(p for p in (tmp_path / "alice").rglob("*.json"))
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600  # the private key is the owner's alone
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "fire", "--order-id", "a-1")
    assert code == 0, err
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "fire", "--order-id", "a-1")
    assert code == 0 and "replayed" in out, err  # a retry keeps its id and its signature
    assert bob("order", game_id, "note", "--set", "text=seen", "--order-id", "b-1")[0] == 0
    code, out, err = alice("heads", game_id)
    assert code == 0, err
    kept = json.loads(out)
    assert set(kept) == {"game", "seq", "hash", "signature"} and kept["game"] == game_id
    head_file = tmp_path / "head.json"
    head_file.write_text(out)

    umpire = _umpire_token(alice, bob, game_id)
    exported = tmp_path / "game.jsonl"
    code, out, err = alice("export", game_id, "--server", server.url, "--token", umpire, "-o", exported)
    assert code == 0, err
    text = exported.read_text().splitlines()
    assert json.loads(text[0]) == {"warlog_export": {"version": 2, "server_key": _server_key(server)}}
    assert sum(json.loads(t).get("type") == "OrderSigned" for t in text[1:]) == 1 + 1  # alice's, bob's
    code, out, err = alice("verify", exported, "--head", head_file)
    assert code == 0 and "2 signed order(s) verified" in out and f"kept head: line {kept['seq']}" in out, out + err

    # Cut short before the kept head: the file alone verifies, the head proves the cut.
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(text[:kept["seq"]]) + "\n")
    assert alice("verify", short)[0] == 0
    code, out, err = alice("verify", short, "--head", json.dumps(kept))
    assert code == 1 and f"line {kept['seq']}: the server signed a head at line {kept['seq']}" in out, out

    # Rewritten at the kept head's line, every hash from there recomputed.
    lines = [json.loads(t) for t in text[1:]]
    at = kept["seq"] - 1
    lines[at]["timestamp"] = "2020-01-01T00:00:00+00:00"
    for n in range(at, len(lines)):
        lines[n]["prev_hash"] = lines[n - 1]["hash"]
        lines[n]["hash"] = chain.line_hash(lines[n])
    rewritten = tmp_path / "rewritten.jsonl"
    rewritten.write_text("\n".join([text[0]] + [json.dumps(line) for line in lines]) + "\n")
    # The file alone: only the seats' umpire answers, signed after the kept head over heads the
    # rewrite replaced, give it away (format 2 signs them); the kept head proves the rewrite itself.
    code, out, err = alice("verify", rewritten)
    failures = out.splitlines()[1:]
    assert code == 1 and len(failures) == 2, out
    assert all("the head this umpire_answer command was signed over is not the hash of a line before it" in f
               for f in failures), out
    code, out, err = alice("verify", rewritten, "--head", head_file)
    assert code == 1 and "(the log was rewritten)" in out, out


def test_join_without_a_key_plays_unsigned(server, alice, bob):
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    game_id = out.split()[1]
    invites = alice.saved()["games"][game_id]["invites"]
    assert alice("join", game_id, invites["Blue"], "--handle", "alice", "--no-key")[0] == 0
    assert bob("join", game_id, invites["Red"], "--handle", "bob", "--server", server.url, "--no-key")[0] == 0
    assert "keys" not in alice.saved()["games"][game_id]
    code, out, err = alice("order", game_id, "note", "--set", "text=hello")
    assert code == 0, err
    assert "OrderSigned" not in out


def test_the_cli_signs_a_seats_other_commands_and_the_export_verifies_them(server, alice, bob, tmp_path):
    """concede, take-back and its answer, client-seed and umpire-answer of a keyed seat are signed
    with its kept key (format 2): each recorded with its CommandSigned, and verify checks them."""
    game_id = started_game(server, alice, bob)
    assert alice("order", game_id, "note", "--set", "text=oops", "--order-id", "a-1")[0] == 0
    code, out, err = alice("take-back", game_id, "--reason", "misclick", "--json")
    assert code == 0, err
    assert [line["type"] for line in json.loads(out)["events"]] == ["TakeBackRequested", "CommandSigned"]
    assert bob("answer-take-back", game_id, "--decline")[0] == 0
    assert alice("client-seed", game_id, "alice's new luck")[0] == 0
    umpire = _umpire_token(alice, bob, game_id)  # both seats' umpire answers, signed
    code, out, err = alice("concede", game_id, "--json")
    assert code == 0, err
    assert [line["type"] for line in json.loads(out)["events"]][:3] == ["Conceded", "CommandSigned", "GameEnded"]
    exported = tmp_path / "game.jsonl"
    assert alice("export", game_id, "--server", server.url, "--token", umpire, "-o", exported)[0] == 0
    lines = [json.loads(t) for t in exported.read_text().splitlines()[1:]]
    kinds = [(line["data"]["seat"], line["data"]["kind"]) for line in lines if line["type"] == "CommandSigned"]
    assert kinds == [("Blue", "take_back"), ("Red", "take_back_answer"), ("Blue", "client_seed"),
                     ("Blue", "umpire_answer"), ("Red", "umpire_answer"), ("Blue", "concede")]
    code, out, err = alice("verify", exported)
    assert code == 0 and "6 signed command(s) verified" in out, out + err


def _server_key(server) -> str:
    from urllib.request import urlopen

    with urlopen(server.url + "/api/v1/server-key") as r:
        return json.load(r)["public_key"]


def _umpire_token(alice, bob, game_id) -> str:
    assert alice("umpire-propose", game_id, "Carol")[0] == 0
    assert alice("umpire-answer", game_id, "--accept")[0] == 0 and bob("umpire-answer", game_id, "--accept")[0] == 0
    return alice.json("umpire-token", game_id)["token"]
