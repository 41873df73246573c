"""The game page under the rate limits (api/limits.py) in Chromium: a stream refused for opening
too often (429 too_many_streams) is opened again after Retry-After, and the page goes on
following the game, instead of going offline for good."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from tests.e2e.server import http_json, live_server, started_game

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def limited(tmp_path_factory, browser):
    # Streams live a second and may be opened once in 4 s from one address: the page's first
    # reconnect is refused.
    with live_server(tmp_path_factory.mktemp("limited"), WEB_CONCURRENCY="1", WARLOG_RATE_LIMITS="on",
                     WARLOG_RATE_LIMIT_STORAGE="memory://", WARLOG_LIMIT_STREAMS="1 per 4 second",
                     WARLOG_STREAM_MAX_SECONDS="1", WARLOG_STREAM_POLL_SECONDS="0.1") as url:
        yield url


def test_the_game_page_waits_out_a_refused_stream_and_follows_on(limited, open_tab):
    game_id, _, tokens = started_game(limited, {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})

    tab = open_tab()
    keys = {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"}
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', {json.dumps(json.dumps(keys))})")
    refused = []
    tab.page.on("response", lambda r: refused.append(r.headers.get("retry-after"))
                if r.url.endswith("/events/stream") and r.status == 429 else None)
    page = tab.goto(f"{limited}/games/{game_id}").page
    page.wait_for_selector("#live.live")
    page.wait_for_selector("#live.waiting", timeout=8_000)  # the stream closed; its reopening is refused
    deadline = time.monotonic() + 8
    while not refused and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert refused and 1 <= int(refused[0]) <= 4, refused

    # Red orders while Blue's page waits: the page learns of it once the window lets it back in.
    status, _, result = http_json("POST", f"{limited}/api/v1/games/{game_id}/orders",
                                  {"kind": "note", "text": "while you were waiting"},
                                  {"Authorization": f"Bearer {tokens['Red']}", "Idempotency-Key": str(uuid.uuid4())})
    assert status == 201, result
    page.wait_for_function("v => document.body.dataset.version === v", arg=str(result["version"]), timeout=10_000)
    assert "while you were waiting" in page.text_content("#log")
    assert not tab.errors, tab.errors
