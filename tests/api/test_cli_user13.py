"""What a new user trips on at the command line (round 13): a long heading printed once per
template by 'legal', a mistyped order kind answered with the whole list and no suggestion, an
umpire token saved on the admin's machine with no word of handing it on, and a join with an
invite this machine had used itself. Against a live server (the fixtures of test_client)."""

from __future__ import annotations

import shlex

from tests.api.test_client import Player, alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)
from tests.e2e.server import http_json


def test_legal_prints_each_heading_once_then_its_templates_stf_1_1(server, alice):
    """STF 1.1 offers one campaign a map and side, and 'legal' printed the kind's whole heading
    ("campaign (STF 1.1) — generate the campaign: the map (or random: 1D3) and your side; the
    server rolls STF 1.2-4.1") above each of the eight: eight times the same line. Each heading
    is now printed once, followed by every template it heads, each with its fields and command line."""
    code, out, err = alice("new", "stf", "--server", server.url)
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    offered = alice.json("legal", game_id)["orders"]
    assert len(offered) > 2 and {o["kind"] for o in offered} == {"campaign"}, offered
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    lines = out.splitlines()
    assert [line for line in lines if not line.startswith("  ")] == [
        "campaign (STF 1.1) — generate the campaign: the map (or random: 1D3) and your side; the server rolls "
        "STF 1.2-4.1", f"or concede: warlog concede {game_id}"], out
    commands = [line for line in lines if line.startswith(f"  warlog order {game_id} campaign ")]
    assert len(commands) == len(offered), out  # every template still offered, with its fields and command line
    assert lines[1:4] == ["  map: caribbean", "  side: US",
                          f"  warlog order {game_id} campaign --set map=caribbean --set side=US"], out


def test_a_mistyped_order_kind_is_answered_did_you_mean_stf_6_7(server, alice):
    """STF 6.7: 'warlog order GAME campain' was refused with the list of all seventeen kinds and
    no word of the one meant. The refusal now says "did you mean 'campaign'?", still naming the
    rule; a word like none of them gets the list alone."""
    code, out, err = alice("new", "stf", "--server", server.url)
    game_id = out.split()[1]
    assert alice("join", game_id, "--as", "Player", "--handle", "carol")[0] == 0
    code, out, err = alice("order", game_id, "campain")
    assert code == 1, err
    assert "'campain' is not one: did you mean 'campaign'?" in err and err.rstrip().endswith("[STF 6.7]"), err
    code, out, err = alice("order", game_id, "xyzzy")
    assert code == 1 and "did you mean" not in err and "'kind' is one of air_strike" in err, err


def test_the_api_422_for_a_mistyped_kind_names_the_kind_meant_ff_2(server, alice, bob):
    """FF 2 over HTTP: the 422 invalid_order for {"kind": "rol"} names the field and the rule, and
    now the kind meant."""
    game_id = started_game(server, alice, bob, keys=False)
    token = alice.saved()["games"][game_id]["token"]
    status, _, body = http_json("POST", f"{server.url}/api/v1/games/{game_id}/orders", {"kind": "rol", "dice": "2d6"},
                                {"Authorization": f"Bearer {token}", "Idempotency-Key": "k-rol"})
    assert status == 422 and body["code"] == "invalid_order", body
    assert (body["rule"], body["field"]) == ("FF 2", "kind"), body
    assert body["detail"].endswith("'rol' is not one: did you mean 'roll'?"), body


def test_umpire_token_says_to_hand_it_on_and_how_the_umpire_uses_it(server, alice, bob, tmp_path, monkeypatch,
                                                                    capsys):
    """'warlog umpire-token' printed the token and "saved it to …/client.json": the admin's own
    config, and no word that the token is the umpire's, to hand on privately, nor how the umpire
    uses it. It now says to whom it goes and the command line the umpire runs (which works from
    another machine, the umpire's own config) and the page where it is pasted."""
    game_id = started_game(server, alice, bob)
    assert alice("umpire-propose", game_id, "Ann Smith")[0] == 0
    assert alice("umpire-answer", game_id, "--accept")[0] == 0 and bob("umpire-answer", game_id, "--accept")[0] == 0
    code, out, err = alice("umpire-token", game_id)
    assert code == 0, err
    token = alice.saved()["games"][game_id]["umpire_token"]
    assert "give it to the umpire, Ann Smith, privately" in out, out
    said = next(line for line in out.splitlines() if line.startswith("the umpire uses it from their own machine: "))
    command = said.split(": ", 1)[1]
    assert command == f"warlog state {game_id} --server {server.url} --token {token}", out
    assert f"{server.url}/games/{game_id} and pastes it" in out, out
    ann = Player("ann", tmp_path, monkeypatch, capsys)  # the umpire, at her own machine
    code, out, err = ann(*shlex.split(command)[1:])
    assert code == 0, err


def test_join_with_the_invite_this_machine_used_says_you_already_hold_the_seat(server, alice, bob):
    """A player who ran 'warlog join GAME CODE' twice (or 'join GAME --as Blue' once the invite was
    used) was told only that the invite code had been used, and took the game for lost. The
    refusal now says this machine holds Blue already, where its token is, and what to run; a
    machine that does not hold the seat is told the invite was used, as before."""
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    game_id = out.split()[1]
    invites = dict(alice.saved()["games"][game_id]["invites"])
    assert alice("join", game_id, invites["Blue"], "--handle", "alice")[0] == 0
    code, out, err = alice("join", game_id, invites["Blue"], "--handle", "alice")
    assert code == 1, err
    assert "the invite code for Blue has been used; you already hold Blue in this game" in err, err
    assert f"warlog legal {game_id} --as Blue" in err and str(alice.config) in err, err
    code, out, err = alice("join", game_id, "--as", "Blue", "--handle", "alice")
    assert code == 2 and "you already hold Blue in this game" in err, err
    code, out, err = bob("join", game_id, invites["Blue"], "--handle", "bob", "--server", server.url)
    assert code == 1 and "has been used" in err and "already hold" not in err, err
    assert alice("legal", game_id, "--as", "Blue")[0] == 0  # what it says to run works
