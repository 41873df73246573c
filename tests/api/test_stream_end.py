"""A stream of a finished game closes once it has sent everything, instead of idling on."""

from __future__ import annotations

import time

from tests.api.conftest import make_game


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
