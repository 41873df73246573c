"""Anonymous game creation is bounded per client address and time window (issue 29, item 10;
api/limits.py). The statistics jobs' bound and the artifacts' pruning are in tests/workers."""

from __future__ import annotations

import pytest

from api.limits import CreationLog

GAME = {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}}


@pytest.fixture
def capped(client, monkeypatch):
    client.application.config.update(WARLOG_GAMES_PER_ADDRESS=3, WARLOG_GAMES_WINDOW_SECONDS=3600)  # read at start
    return client


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


def test_addresses_are_stored_as_keyed_hashes_and_forgotten_after_their_window(api_service):
    log = CreationLog.for_service(api_service)
    log.record("198.51.100.1", window=60, now=1000.0)
    log.record("198.51.100.1", window=60, now=1010.0)
    assert log.wait_before_next("198.51.100.1", cap=2, window=60, now=1020.0) == 40  # the first leaves at 1060
    assert log.wait_before_next("198.51.100.1", cap=3, window=60, now=1020.0) == 0
    assert log.wait_before_next("198.51.100.1", cap=2, window=60, now=1061.0) == 0
    log.record("198.51.100.2", window=60, now=1080.0)  # a write forgets what is past its window
    rows = log._run("SELECT address_hash, created_at FROM {t}warlog_game_creations", fetch="all")
    assert [r["created_at"] for r in rows] == [1080.0]
    assert "198.51.100" not in rows[0]["address_hash"] and len(rows[0]["address_hash"]) == 64


def test_a_cap_of_zero_is_no_cap(client):
    client.application.config["WARLOG_GAMES_PER_ADDRESS"] = 0
    assert {create(client).status_code for _ in range(5)} == {201}


@pytest.mark.parametrize("name", ["WARLOG_GAMES_PER_ADDRESS", "WARLOG_GAMES_WINDOW_SECONDS", "WARLOG_STATISTICS_JOBS"])
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
