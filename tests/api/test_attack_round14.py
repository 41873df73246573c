"""The fourteenth attack round: what an attacker and an operator left open. The games list, read
without limit; a query parameter given twice, read as its first value; spectator tokens issued
without end; a seat's signed settings replayed; a webhook's DNS resolved inside the request; the
GAME_JOBS lock lost while a job was queued."""

from __future__ import annotations

import pytest

from tests.api.conftest import make_game
from tests.api.test_rate_limits import OTHER, app_with, prefix, refused  # noqa: F401  (fixtures)
from tests.workers.conftest import redis_url  # noqa: F401  (fixture)


# ------------------------------------------------------------------ the games list is limited ----
@pytest.mark.parametrize("method", ["get", "head"])
def test_the_games_list_is_limited_per_address(app_with, method):
    """GET /api/v1/games reads the games index (and catches up every public game's projections)
    at each request: no limit held back a client asking for it without end. It counts against
    WARLOG_LIMIT_LISTS now, per address, with a token or without, HEAD as its GET."""
    client = app_with(WARLOG_LIMIT_LISTS="2 per 60 second").test_client()
    game = make_game(client, public=True)
    ask = getattr(client, method)
    assert [ask("/api/v1/games").status_code for _ in range(2)] == [200, 200]
    refused(client.get("/api/v1/games?status=active"), "too_many_lists", "WARLOG_LIMIT_LISTS", 60)
    assert client.get("/api/v1/games", headers=game.seats["Blue"]).status_code == 429  # a token is no way round
    assert client.get("/api/v1/games", environ_base={"REMOTE_ADDR": OTHER}).status_code == 200
    # A game's own reads are not this limit's.
    assert client.get(f"/api/v1/games/{game.game_id}").status_code == 200


# ------------------------------------------------- a query parameter given twice is a 422 ----
REPEATED = [("get", "/state?at=1&at=2", "at"), ("get", "/state?turn=1&turn=1", "turn"),
            ("get", "/dice?seat=Blue&seat=Red", "seat"), ("get", "/events?after=0&after=1", "after"),
            ("get", "/events?limit=5&after=0&limit=1", "limit"), ("get", "/events/stream?after=0&after=latest", "after"),
            ("get", "/statistics?version=1&version=2", "version"), ("get", "/replays/latest?format=json&format=html", "format"),
            ("delete", "/spectator-tokens?name=ann&name=bob", "name"), ("get", "?x=1", None)]


@pytest.mark.parametrize("method, path, name", REPEATED)
def test_a_query_parameter_given_twice_is_a_422_naming_it(sqlite_client, method, path, name):
    """Werkzeug's MultiDict hands a schema the first of ?at=1&at=2: a client (or a proxy that adds
    a parameter of its own) read the state after seq 1 believing it asked for 2, and a cache keyed
    on the last value served the first. Every parameter of the API is single-valued, so a
    repeated one is refused where every query string is loaded (api/schemas.py, ``query_args``)."""
    game = make_game(sqlite_client, public=True)
    r = getattr(sqlite_client, method)(f"/api/v1/games/{game.game_id}{path}", headers=game.admin)
    if name is None:  # a parameter the route does not read: left alone, as before
        assert r.status_code == 200
        return
    assert r.status_code == 422 and r.json["code"] == "invalid_request", (r.status_code, r.get_data(as_text=True))
    assert list(r.json["errors"]) == [name] and "more than once" in r.json["errors"][name][0], r.json


@pytest.mark.parametrize("path, name", [("/api/v1/games?limit=1&limit=2", "limit"),
                                        ("/api/v1/statistics?ruleset=freeform&ruleset=falklands", "ruleset")])
def test_a_query_parameter_of_the_list_and_the_statistics_given_twice_is_a_422(sqlite_client, path, name):
    r = sqlite_client.get(path)
    assert r.status_code == 422 and list(r.json["errors"]) == [name], r.get_data(as_text=True)


def test_every_query_string_is_loaded_in_one_place():
    """No route loads request.args with a schema of its own: ``query_args`` does (one place refuses
    repeats for every read)."""
    from pathlib import Path

    api = Path(__file__).resolve().parents[2] / "api"
    found = [p.name for p in api.glob("*.py") if p.name != "schemas.py" and "load(request.args)" in p.read_text()]
    assert found == []


# ------------------------------------------------- umpire and spectator tokens have a cap ----
def spectate(client, game, name: str = "Sam"):
    return client.post(f"/api/v1/games/{game.game_id}/spectator-tokens", json={"name": name}, headers=game.admin)


def test_live_spectator_tokens_are_capped_per_game_and_the_issued_keep_working(client, monkeypatch):
    """POST .../spectator-tokens issued a token each time it was asked: an admin (anyone may create
    a game) filled the token table, and every listing with it, without end. SPECTATOR_TOKENS_PER_GAME
    live ones at most now: one more is 409 spectator_token_limit, and those issued read on."""
    from domain import access

    monkeypatch.setattr(access, "SPECTATOR_TOKENS_PER_GAME", 2)
    game = make_game(client)
    made = [spectate(client, game, f"Sam {i}") for i in range(2)]
    assert [r.status_code for r in made] == [201, 201]
    r = spectate(client, game)
    assert r.status_code == 409 and r.json["code"] == "spectator_token_limit", r.get_data(as_text=True)
    assert "2 live spectator tokens" in r.json["detail"] and "SPECTATOR_TOKENS_PER_GAME" not in r.json["detail"]
    listed = client.get(f"/api/v1/games/{game.game_id}/spectator-tokens", headers=game.admin).json["tokens"]
    assert len(listed) == 2  # nothing issued
    for m in made:  # the tokens issued keep working
        assert client.get(f"/api/v1/games/{game.game_id}", headers={"Authorization": f"Bearer {m.json['token']}"}
                          ).status_code == 200
    client.delete(f"/api/v1/games/{game.game_id}/spectator-tokens/{made[0].json['token_id']}", headers=game.admin)
    assert spectate(client, game).status_code == 201  # a revoked token is no longer live
    assert spectate(client, make_game(client)).status_code == 201  # the cap is per game


def test_umpire_and_spectator_tokens_issued_are_capped_per_game_revoked_ones_too(client, monkeypatch):
    """A revoked token's row stays (its annotations are in the log): issue and revoke, over and
    over, grew the table without end under any cap of live tokens. TOKENS_ISSUED_PER_GAME umpire
    and spectator tokens in all, revoked ones counted: beyond, 409 tokens_issued_limit."""
    from domain import access
    from tests.api.conftest import appoint_umpire

    monkeypatch.setattr(access, "TOKENS_ISSUED_PER_GAME", 3)
    game = make_game(client)
    appoint_umpire(client, game)
    umpire = client.post(f"/api/v1/games/{game.game_id}/umpire-tokens", headers=game.admin)
    assert umpire.status_code == 201
    for _ in range(2):
        made = spectate(client, game)
        assert made.status_code == 201
        client.delete(f"/api/v1/games/{game.game_id}/spectator-tokens/{made.json['token_id']}", headers=game.admin)
    for refused_ in (spectate(client, game), client.post(f"/api/v1/games/{game.game_id}/umpire-tokens",
                                                         headers=game.admin)):
        assert refused_.status_code == 409 and refused_.json["code"] == "tokens_issued_limit", refused_.json
        assert "3 umpire and spectator tokens" in refused_.json["detail"]
    assert client.get(f"/api/v1/games/{game.game_id}/state",
                      headers={"Authorization": f"Bearer {umpire.json['token']}"}).status_code == 200


# ------------------------------------------------ a captured signed settings body is not replayed ----
def test_a_keyed_seats_signed_settings_are_used_once_a_replay_is_refused(client):
    """A keyed seat signs its settings over a head, and a head stays a line of the log: whoever
    captured one signed PUT (a proxy's log, the stolen token's owner) sent it again after the seat
    changed its mind, and silenced the seat's mails at will. A settings signature is used once now,
    as a signed command is recorded once: 422 signature_reused, nothing changes."""
    from tests.api.test_signed_notifications import put, settings, signed
    from tests.api.test_signatures import keyed_game

    game, key, head = keyed_game(client)
    silence = {"notify": False, "events": ["game_over"]}
    captured = signed(game, key, silence, head)
    assert put(client, game, "Blue", silence, **captured).status_code == 200
    loud = {"events": ["your_move", "game_over"]}
    assert put(client, game, "Blue", loud, **signed(game, key, loud, head)).status_code == 200
    r = put(client, game, "Blue", silence, **captured)  # the attacker's replay
    assert r.status_code == 422 and r.json["code"] == "signature_reused", r.json
    assert settings(client, game, "Blue")["events"] == ["your_move", "game_over"]
    # The same settings signed again over the same head are the same signature (Ed25519 is
    # deterministic): a nonce in the body makes it a new one.
    assert put(client, game, "Blue", silence, **signed(game, key, silence, head)).json["code"] == "signature_reused"
    again = {**silence, "nonce": "2026-11-30 once more"}
    assert put(client, game, "Blue", again, **signed(game, key, again, head)).status_code == 200
    assert settings(client, game, "Blue")["events"] == ["game_over"]


def test_a_refused_settings_write_does_not_use_its_signature_up(client):
    """A PUT refused before anything is stored (here: channels webhook without a webhook_url) may be
    corrected and signed again, and the same signed body sent again once the cause is gone is not
    a replay of a write that happened."""
    from tests.api.test_signed_notifications import put, signed
    from tests.api.test_signatures import keyed_game

    game, key, head = keyed_game(client)
    body = {"channels": ["webhook"]}
    headers = signed(game, key, body, head)
    assert put(client, game, "Blue", body, **headers).json["code"] == "invalid_request"
    assert put(client, game, "Blue", body, **headers).json["code"] == "invalid_request"  # not signature_reused


def test_a_settings_write_refused_429_leaves_its_signature_unused(client):
    """Beyond the confirmation mails' limits a PUT changes nothing (429 too_many_confirmations): the
    same signed PUT sent once the wait is over must not be taken for a replay."""
    from domain.access import CONFIRM_PER_SEAT
    from tests.api.test_signed_notifications import put, signed
    from tests.api.test_signatures import keyed_game

    game, key, head = keyed_game(client)
    for n in range(CONFIRM_PER_SEAT):
        body = {"email": f"blue{n}@example.org"}
        assert put(client, game, "Blue", body, **signed(game, key, body, head)).status_code == 200
    body = {"email": "blue-late@example.org"}
    headers = signed(game, key, body, head)
    assert put(client, game, "Blue", body, **headers).json["code"] == "too_many_confirmations"
    assert put(client, game, "Blue", body, **headers).json["code"] == "too_many_confirmations"  # not signature_reused


def test_spectator_tokens_issued_at_once_never_pass_the_cap(api_service, monkeypatch):
    """Counted and issued in one transaction holding the game's access row: issues that race
    (several web workers) are counted one after another, never all against the same count."""
    import threading

    from domain import access as access_module
    from domain.access import SPECTATOR, AccessStore, TokenLimit

    monkeypatch.setattr(access_module, "SPECTATOR_TOKENS_PER_GAME", 3)
    store = AccessStore.for_service(api_service)
    game_id = "a14a14a1-0000-4000-8000-000000000001"
    store.register_game(game_id, False, ["Blue"])
    start, outcomes = threading.Barrier(8), []

    def issue(n: int) -> None:
        start.wait()
        try:
            store.issue_capped_token(game_id, SPECTATOR, f"Sam {n}")
            outcomes.append("issued")
        except TokenLimit as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=issue, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["issued"] * 3 + ["spectator_token_limit"] * 5
    assert len(store.spectator_tokens(game_id)) == 3
