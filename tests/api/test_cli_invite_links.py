"""'warlog join LINK' follows the server the link names: a link to another server than the one a
game is saved for here, an answer for another game than the one asked, and a link whose host hides
behind 'user@' are refused before anything of this machine's is saved or sent; a link to a server
other than the one configured says so. Against a live server and a stub of a hostile one."""

from __future__ import annotations

import json
import uuid

from tests.api.test_client import Player, alice, bob, clean_env, server  # noqa: F401  (fixtures)


def _hostile(asked: list, answer_for=None):
    """A server that takes every join and answers for game ``answer_for`` (else the one asked):
    what a link's server chooses to answer, recorded in ``asked`` (path, Authorization)."""

    def app(environ, start_response):
        path = environ["PATH_INFO"]
        asked.append((path, environ.get("HTTP_AUTHORIZATION")))
        game_id = answer_for or path.split("/")[4]
        body = json.dumps({"game_id": game_id, "seat": "Red", "token": "wls_hostile", "handle": "bob",
                           "version": 2, "chain_head": "0" * 64}).encode()
        start_response("201 Created", [("Content-Type", "application/json")])
        return [body]

    return app


def _new_game(alice, server) -> tuple[str, dict]:
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    return game_id, alice.saved()["games"][game_id]


def test_a_link_to_another_server_for_a_game_saved_here_is_refused(server, alice, serve_stub):
    """The creator (admin token and invites saved for the game) runs a link naming the game on another
    server: the join re-pointed the game's saved server there, and every later command of the game
    sent its admin and seat tokens to that server."""
    game_id, before = _new_game(alice, server)
    asked: list = []
    hostile = serve_stub(_hostile(asked))
    code, out, err = alice("join", f"{hostile}/games/{game_id}#invite=wli_x", "--handle", "alice")
    assert code != 0 and asked == []
    assert server.url in err and hostile in err, err
    assert alice.saved()["games"][game_id] == before
    assert alice("show", game_id)[0] == 0  # still on its own server


def test_a_join_answered_for_another_game_is_refused_and_saves_nothing(server, alice, serve_stub):
    """The link's server answered the join with the id of a game saved here for another server: the
    answer's server was saved for that game, which then sent that game's tokens to it."""
    game_id, before = _new_game(alice, server)
    asked: list = []
    hostile = serve_stub(_hostile(asked, answer_for=game_id))
    code, out, err = alice("join", f"{hostile}/games/{uuid.uuid4()}#invite=wli_x", "--handle", "alice")
    assert code != 0 and len(asked) == 1 and asked[0][1] is None  # the join carries no token
    assert game_id in err and "another game" in err, err
    assert alice.saved()["games"][game_id] == before


def test_a_link_whose_host_hides_behind_user_at_is_refused(server, alice, bob):
    """'https://warlog.example.org@elsewhere/…' reads as warlog.example.org and goes to elsewhere."""
    game_id, _ = _new_game(alice, server)
    invite = alice.saved()["games"][game_id]["invites"]["Red"]
    host = server.url.split("//")[1]
    code, out, err = bob("join", f"http://warlog.example.org@{host}/games/{game_id}#invite={invite}",
                         "--handle", "bob")
    assert code != 0 and "warlog.example.org@" in err, err
    assert game_id not in (bob.saved() if bob.config.exists() else {}).get("games", {})


def test_a_link_to_a_server_other_than_the_one_configured_says_so(server, alice, bob, serve_stub):
    """bob's configured server is another: the join goes where the link says, and he is told."""
    elsewhere = serve_stub(_hostile([]))
    game_id, _ = _new_game(alice, server)
    invite = alice.saved()["games"][game_id]["invites"]["Red"]
    bob.config.parent.mkdir(parents=True, exist_ok=True)
    bob.config.write_text(json.dumps({"server": elsewhere, "games": {}}))
    code, out, err = bob("join", f"{server.url}/games/{game_id}#invite={invite}", "--handle", "bob")
    assert code == 0, err
    assert f"joining on {server.url}, the link's server, not {elsewhere}" in err, err
    assert bob("show", game_id)[0] == 0  # saved with the link's server


def test_a_link_to_the_server_a_game_is_saved_for_joins_however_the_server_is_written(server, alice):
    """The creator joins by the link it sends: the game is saved here with the API's base
    (SERVER/api/v1), the link names SERVER; one server, no refusal."""
    game_id, saved = _new_game(alice, server)
    code, out, err = alice("join", f"{server.url}/games/{game_id}#invite={saved['invites']['Blue']}",
                           "--handle", "alice")
    assert code == 0 and "as Blue (alice)" in out, err
    assert "not" not in err, err


def test_a_link_joined_on_another_server_given_by_option_says_so(server, alice, bob, serve_stub):
    """--server wins over the link's server: the player is told the link named another."""
    elsewhere = serve_stub(_hostile([]))
    game_id, saved = _new_game(alice, server)
    code, out, err = bob("join", f"{elsewhere}/games/{game_id}#invite={saved['invites']['Red']}",
                         "--handle", "bob", "--server", server.url)
    assert code == 0, err
    assert f"joining on {server.url} (--server), not {elsewhere}, the link's server" in err, err
