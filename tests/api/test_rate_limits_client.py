"""The rate limits (api/limits.py) as the command-line client meets them, against a live server
(the Flask app in a werkzeug server on a thread): a short Retry-After is waited out and the
request sent again, a long one is shown with the setting that refused it, and a stream refused
for opening too often is opened again once the window lets it."""

from __future__ import annotations

import threading
import time

import pytest

from api.app import create_app, migrate
from api.client import ProblemError, WarlogClient
from domain.service import Warlog
from tests.api.test_client import Player, Recorder, clean_env, live_server  # noqa: F401 (a fixture)

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "barrage"}


@pytest.fixture
def serve(sqlite_config, monkeypatch):
    """A function: the URL of a live server with the given limits (counted in its memory)."""
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.05")
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "1")
    migrate(sqlite_config)
    service = Warlog(sqlite_config)
    servers = []

    def start(**limits):
        app = Recorder(create_app({"WARLOG_SERVICE": service, "WARLOG_RATE_LIMITS": True,
                                      "WARLOG_RATE_LIMIT_STORAGE": "memory://", **limits}))
        httpd = live_server(app)
        servers.append(httpd)
        return f"http://127.0.0.1:{httpd.server_port}", app

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()
    service.close()


def seated(url: str) -> tuple[str, WarlogClient]:
    """A started game and Blue's client."""
    anyone = WarlogClient(url)
    made = anyone.create_game("freeform", {"sides": ["Blue", "Red"]})
    tokens = {seat: anyone.join(made["game_id"], code, seat.lower())["token"] for seat, code in made["invites"].items()}
    return made["game_id"], WarlogClient(url, tokens["Blue"])


def test_the_client_waits_out_a_short_retry_after_and_sends_the_order_again(serve):
    url, _ = serve(WARLOG_LIMIT_ORDERS="2 per 2 second")
    game_id, blue = seated(url)
    started = time.monotonic()
    results = [blue.submit_order(game_id, ROLL) for _ in range(3)]
    assert time.monotonic() - started >= 1.0  # the third waited for the window
    assert [r["version"] for r in results] == sorted({r["version"] for r in results})  # three orders recorded


def test_the_cli_shows_a_long_wait_with_the_setting_that_refused(serve, tmp_path, monkeypatch, capsys):
    url, _ = serve(WARLOG_GAMES_PER_ADDRESS=1)
    alice = Player("alice", tmp_path, monkeypatch, capsys)
    assert alice("new", "freeform", "--server", url)[0] == 0
    started = time.monotonic()
    code, _, err = alice("new", "freeform", "--server", url)
    assert time.monotonic() - started < 5  # not waited for: the window is an hour
    assert code != 0 and "WARLOG_GAMES_PER_ADDRESS" in err and "try again in" in err
    with pytest.raises(ProblemError) as refused:
        WarlogClient(url).create_game("freeform")
    assert refused.value.status == 429 and refused.value.code == "too_many_games"


def test_a_stream_refused_for_opening_too_often_is_opened_again_later(serve):
    url, app = serve(WARLOG_LIMIT_STREAMS="1 per 8 second")
    game_id, blue = seated(url)
    start = blue.game(game_id)["version"]

    def later():
        # Once the first stream has closed (WARLOG_STREAM_MAX_SECONDS) and the next opening was
        # refused, however slow the machine: then only a stream opened after the wait can carry it.
        deadline = time.monotonic() + 30
        while len(app.stream_requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        blue.submit_order(game_id, {"kind": "note", "text": "late"})

    writer = threading.Thread(target=later)
    writer.start()
    got = next(iter(blue.stream(game_id, last_event_id=start, retry_delay=0.2)))
    writer.join()
    assert got.event == "OrderAccepted" and got.seq == start + 1
    assert len(app.stream_requests) >= 3  # the first, the refused one(s), the one that got the order
