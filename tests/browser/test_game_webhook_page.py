"""The game page's "Game webhook" panel (issue 35): the admin sets a Discord webhook pointing at a
local receiver; the secret the page shows once signs a real delivery (the dispatcher and
workers.dispatch.deliver run against the live server's own store) that the receiver verifies with
the standardwebhooks library; an internal address and a bad secret are refused, naming the field;
"Remove webhook" removes it; a seat's page shows no panel."""

from __future__ import annotations

import pytest

from domain.service import Warlog
from domain.storage import config_from_env
from tests.browser.helpers import freeform_game, labels_missing, no_horizontal_scroll, open_with_keys, shoot
from tests.e2e.server import http_json, live_server
from tests.workers.notify_helpers import webhook_receiver
from workers.dispatch import WEBHOOK, Dispatcher, NotifyStore, deliver

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hook_server(tmp_path_factory, browser):
    """A server that trusts webhook receivers on loopback (the operator's allow-list), and its folder."""
    folder = tmp_path_factory.mktemp("hook-page")
    with live_server(folder, WEB_CONCURRENCY="1", WARLOG_WEBHOOK_ALLOW="127.0.0.0/8") as url:
        yield url, folder


def _stored_webhook(folder, game_id) -> dict | None:
    service = Warlog(config_from_env({"WARLOG_DATA_DIR": str(folder / "data")}))
    try:
        return NotifyStore.for_service(service).webhook(game_id)
    finally:
        service.close()


def test_the_admin_sets_a_discord_webhook_whose_deliveries_verify(hook_server, open_tab, shots, monkeypatch):
    server, folder = hook_server
    monkeypatch.setenv("WARLOG_WEBHOOK_ALLOW", "127.0.0.0/8")  # the worker's allow-list, as the server's
    game_id, admin, tokens = freeform_game(server)
    tab = open_with_keys(open_tab, server, game_id, {"seats": {}, "admin": admin})
    page = tab.page
    page.wait_for_selector("#hook-box:not([hidden])")

    # an internal address is refused, naming the field, and nothing is stored
    page.fill("#h-url", "http://10.1.2.3/hook")
    page.select_option("#h-format", "discord")
    page.click("#h-save")
    page.wait_for_selector("#status.error")
    assert page.text_content("#status").startswith("Webhook not saved: url: webhook target 10.1.2.3 is a private")
    # a secret that is not a Standard Webhooks one: refused, naming it
    page.fill("#h-url", "http://127.0.0.1:9/hook")
    page.fill("#h-secret", "hunter2")
    page.click("#h-save")
    page.wait_for_selector("#status.error:has-text('secret:')")
    assert _stored_webhook(folder, game_id) is None

    with webhook_receiver("whsec_" + "x" * 40) as (receiver, url):
        page.fill("#h-url", url)
        page.fill("#h-secret", "")
        page.click("#h-save")
        page.wait_for_selector("#status.ok:has-text('Webhook saved')")
        secret = page.text_content("#h-shown").rsplit(" ", 1)[1]
        assert secret.startswith("whsec_") and page.is_visible("#h-shown")
        assert _stored_webhook(folder, game_id) == {"url": url, "secret": secret, "format": "discord"}
        assert not labels_missing(page)
        shoot(page, shots / "game-webhook.png")

        # a turn on the live server, dispatched and delivered from its own store with that secret
        receiver.secret = secret
        status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", {"kind": "advance"},
                                 {"Authorization": f"Bearer {tokens['Blue']}", "Idempotency-Key": "a1"})
        assert status == 201
        service = Warlog(config_from_env({"WARLOG_DATA_DIR": str(folder / "data")}))
        try:
            rows: list[dict] = []
            Dispatcher(service, rows.append, email_enabled=False).run_batch()
            hooks = [r for r in rows if r["game_id"] == game_id and r["channel"] == WEBHOOK]
            assert hooks, rows
            for row in hooks:
                assert deliver(service, game_id, row["seq"], WEBHOOK, row["seat"], smtp=None,
                               public_url=server) == "sent"
        finally:
            service.close()
    assert receiver.posts and all(p["valid"] and p["status"] == 204 for p in receiver.posts), receiver.posts
    content = receiver.posts[-1]["body"]["content"]  # Discord's body: a message naming the game and who moves
    assert game_id[:8] in content and "to move" in content and f"/games/{game_id}" in content

    # removed from the page: nothing stored any more
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#h-remove")
    page.wait_for_selector("#status.ok:has-text('Webhook removed')")
    assert _stored_webhook(folder, game_id) is None and page.input_value("#h-url") == ""
    assert not tab.errors, tab.errors


def test_a_seat_sees_no_game_webhook_panel(hook_server, open_tab):
    server, _ = hook_server
    game_id, _, tokens = freeform_game(server)
    red = open_with_keys(open_tab, server, game_id, {"seats": {"Red": tokens["Red"]}, "active": "Red"}, width=375)
    red.page.wait_for_selector("#notify-box:not([hidden])")
    assert red.page.locator("#hook-box").is_hidden()
    no_horizontal_scroll(red.page)
    spectator = open_tab().goto(f"{server}/games/{game_id}")
    assert spectator.page.locator("#hook-box").is_hidden()
    assert not red.errors and not spectator.errors, (red.errors, spectator.errors)
