"""The game page of a game whose stored log fails verification shows a warning (issue 29,
item 3), and, once an operator accepted the damage, says so."""

from __future__ import annotations

import json

import pytest

from domain.service import Warlog
from domain.storage import config_from_env
from tests.browser.helpers import freeform_game, open_with_keys, pick_order, send
from tests.e2e.server import FREEFORM, http_json, live_server, started_game
from tests.integration.rawstore import RawStore
from tests.integration.test_tamper import change_die_value


@pytest.fixture(scope="module")
def damaged_server(tmp_path_factory, browser):
    folder = tmp_path_factory.mktemp("damaged")
    with live_server(folder, WEB_CONCURRENCY="1", WARLOG_STREAM_RESERVE="2") as url:
        yield url, config_from_env({"WARLOG_DATA_DIR": str(folder / "data")})


def test_the_game_page_warns_of_a_damaged_log(damaged_server, open_tab):
    server, config = damaged_server
    gid, _, tokens = started_game(server, {**FREEFORM, "public": True})
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{gid}/orders",
                             {"kind": "roll", "dice": "2d6", "purpose": "fire"},
                             {"Authorization": f"Bearer {tokens['Blue']}", "Idempotency-Key": "r1"})
    assert status == 201
    tab = open_tab().goto(f"{server}/games/{gid}")
    assert not tab.page.is_visible("#damaged")

    service = Warlog(config)
    try:
        with RawStore(config) as raw:
            k = change_die_value(raw, gid, [json.loads(line) for line in service.export(gid)])
        assert not service.check_integrity(gid).ok  # as the integrity read or warlog check finds it
        tab.goto(f"{server}/games/{gid}")
        assert tab.page.is_visible("#damaged")
        assert f"fails verification at line {k}" in tab.page.text_content("#damaged")
        assert "takes no orders" in tab.page.text_content("#damaged")

        service.accept_damage(gid, "agreed by both players")
        tab.goto(f"{server}/games/{gid}")
        assert tab.page.is_visible("#damaged")
        assert "an operator accepted it" in tab.page.text_content("#damaged")
        assert "agreed by both players" in tab.page.text_content("#damaged")
    finally:
        service.close()
    assert not tab.errors, tab.errors


def test_an_order_refused_for_a_damaged_log_says_so_not_that_the_game_moved_on(damaged_server, open_tab):
    """docs/api.md, "Damaged logs": a game whose stored log fails verification takes no orders (409
    damaged_log). A page opened before the damage was found sent its order and read the 409 as a
    lost race: "The game moved on before your order arrived … Look again and resend", so the player
    resent into the same refusal. Only a version conflict is a lost race; this refusal says why."""
    server, config = damaged_server
    gid, _, tokens = freeform_game(server)
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{gid}/orders", {"kind": "roll", "dice": "2d6", "purpose": "fire"},
                             {"Authorization": f"Bearer {tokens['Blue']}", "Idempotency-Key": "r1"})
    assert status == 201
    tab = open_with_keys(open_tab, server, gid, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    page = tab.page
    service = Warlog(config)
    try:
        with RawStore(config) as raw:
            k = change_die_value(raw, gid, [json.loads(line) for line in service.export(gid)])
        assert not service.check_integrity(gid).ok  # recorded: the game takes no orders
    finally:
        service.close()
    pick_order(page, "note")
    page.fill("#f-text", "after the damage")
    send(page)
    page.wait_for_selector("#status.error")
    said = page.text_content("#status")
    assert "moved on" not in said and f"line {k}" in said and "fails verification" in said, said
    assert not tab.errors, tab.errors
