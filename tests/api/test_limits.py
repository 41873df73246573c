"""Anonymous game creation is bounded per client address and time window (issue 29, item 10;
api/limits.py, counted by flask-limiter since issue 35). Here in each app's memory (tests/conftest.py);
the other rate limits, and all of them on a real Redis, are in tests/api/test_rate_limits.py. The
statistics jobs' bound and the artifacts' pruning are in tests/workers."""

from __future__ import annotations

import time

import pytest

GAME = {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}}


@pytest.fixture
def limited(api_service):
    """A client of an app with the rate limits on (tests/conftest.py turns them off)."""
    from api.app import create_app

    return create_app({"WARLOG_SERVICE": api_service, "TESTING": True, "WARLOG_RATE_LIMITS": True}).test_client()


@pytest.fixture
def capped(limited):
    limited.application.config.update(WARLOG_GAMES_PER_ADDRESS=3, WARLOG_GAMES_WINDOW_SECONDS=3600)
    return limited


def create(client, address="127.0.0.1"):
    return client.post("/api/v1/games", json=GAME, environ_base={"REMOTE_ADDR": address})


def test_an_address_may_create_only_so_many_games_within_the_window(capped):
    assert [create(capped).status_code for _ in range(3)] == [201, 201, 201]
    refused = create(capped)
    assert refused.status_code == 429 and refused.json["code"] == "too_many_games"
    assert "WARLOG_GAMES_PER_ADDRESS" in refused.json["detail"]
    assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
    assert create(capped, "192.0.2.7").status_code == 201  # another address has its own count


def test_a_refused_or_invalid_creation_is_not_counted(capped):
    assert capped.post("/api/v1/games", json={**GAME, "ruleset": "chess"}).status_code == 422
    assert [create(capped).status_code for _ in range(3)] == [201, 201, 201]


def test_a_creation_leaves_the_window_when_its_time_is_over(capped):
    capped.application.config["WARLOG_GAMES_WINDOW_SECONDS"] = 2
    assert [create(capped).status_code for _ in range(3)] == [201, 201, 201]
    refused = create(capped)
    assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 2
    time.sleep(int(refused.headers["Retry-After"]) + 0.1)
    assert create(capped).status_code == 201


def test_a_sandbox_counts_like_a_new_game(capped):
    made = create(capped).json
    assert [create(capped).status_code for _ in range(2)] == [201, 201]
    fork = capped.post(f"/api/v1/games/{made['game_id']}/sandbox", json={"at": 1},
                       headers={"Authorization": f"Bearer {made['admin_token']}"})
    assert fork.status_code == 429 and fork.json["code"] == "too_many_games"


def test_a_cap_of_zero_is_no_cap(limited):
    limited.application.config["WARLOG_GAMES_PER_ADDRESS"] = 0
    assert {create(limited).status_code for _ in range(5)} == {201}


@pytest.mark.parametrize("name", ["WARLOG_GAMES_PER_ADDRESS", "WARLOG_GAMES_WINDOW_SECONDS", "WARLOG_STATISTICS_JOBS",
                                  "WARLOG_GAME_JOBS",
                                  "WARLOG_LIMIT_AUTH_FAILURES", "WARLOG_LIMIT_ORDERS", "WARLOG_LIMIT_STREAMS",
                                  "WARLOG_LIMIT_READS", "WARLOG_LIMIT_LISTS", "WARLOG_RATE_LIMITS", "WARLOG_TRUSTED_PROXIES", "WARLOG_CLIENT_TIMEOUT"])
def test_a_malformed_limit_stops_the_app_at_start_naming_it(name, monkeypatch, sqlite_config):
    """Read once at start: not a 500 at every request that needs it."""
    from api.app import create_app
    from tests.conftest import make_app

    service = make_app(sqlite_config)
    monkeypatch.setenv(name, "twenty")
    try:
        with pytest.raises(SystemExit, match=name):
            create_app({"WARLOG_SERVICE": service, "TESTING": True})
    finally:
        service.close()
