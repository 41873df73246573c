"""A stream of a finished game closes once it has sent everything, instead of idling on."""

from __future__ import annotations

import time

from tests.api.conftest import make_game, umpire


def read_all(client, url, headers) -> tuple[str, float]:
    started = time.monotonic()
    response = client.get(url, headers=headers, buffered=False)
    body = b"".join(response.response).decode()
    return body, time.monotonic() - started


def test_the_stream_of_an_ended_game_closes_after_the_last_event(client, monkeypatch):
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "8")  # the bound if the stream did not close
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.1")
    game = make_game(client)
    client.post(f"/api/v1/games/{game.game_id}/concede", headers=game.seats["Red"])
    url = f"/api/v1/games/{game.game_id}/events/stream"
    body, took = read_all(client, url, game.seats["Blue"])
    assert "event: GameEnded" in body and "event: DiceEpochRevealed" in body
    assert took < 3, took
    again, took = read_all(client, url, {**game.seats["Blue"], "Last-Event-ID": "999"})
    assert "event:" not in again and took < 3, took


def test_the_stream_of_a_game_in_play_stays_open(client, monkeypatch):
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "1.5")
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.1")
    game = make_game(client)
    _, took = read_all(client, f"/api/v1/games/{game.game_id}/events/stream", game.seats["Blue"])
    assert took >= 1.3  # it lived out its lifetime: only an ended game closes early


def test_a_revoked_umpire_tokens_open_stream_ends_before_sending_another_event(client, monkeypatch):
    """docs/api.md: a revoked umpire or spectator token is a token the server no longer accepts. A
    stream opened before the revocation was checked only when it opened, so it went on sending the
    umpire's view (hidden information included) for up to WARLOG_STREAM_MAX_SECONDS. It ends now,
    before sending anything more; reconnecting is the 401 of any other read."""
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "5")
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.1")
    game = make_game(client)
    ump = umpire(client, game)
    url = f"/api/v1/games/{game.game_id}/events/stream"
    response = client.get(url, headers=ump, buffered=False)
    assert response.status_code == 200
    chunks = iter(response.response)
    assert b"retry:" in next(chunks)
    assert b"event: GameCreated" in next(chunks)  # the log so far, in the umpire's view
    r = client.delete(f"/api/v1/games/{game.game_id}/umpire", headers=game.admin)
    assert r.status_code == 200, r.json
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json={"kind": "note", "text": "AFTER-REVOKE"},
                    headers={**game.seats["Blue"], "Idempotency-Key": "after-revoke"})
    assert r.status_code == 201, r.json
    started = time.monotonic()
    rest = b"".join(chunks).decode()
    assert "AFTER-REVOKE" not in rest and "event:" not in rest, rest
    assert time.monotonic() - started < 3  # ended at once, not at the end of its life
    assert client.get(url, headers=ump).status_code == 401
