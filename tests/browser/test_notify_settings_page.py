"""The game page's Notifications panel (issue 35): a seat reads and saves its own choices —
address, reasons, mail or its own webhook (and its format), the daily digest — through the API; a
new webhook's secret is shown once; a refusal names the field; another seat sees its own settings, never these."""

from __future__ import annotations

import json

import pytest

from tests.browser.helpers import freeform_game, labels_missing, no_horizontal_scroll, shoot
from tests.e2e.server import http_json, live_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hook_server(tmp_path_factory, browser):
    """A server that trusts webhook receivers on loopback (the operator's allow-list)."""
    with live_server(tmp_path_factory.mktemp("notify-page"), WEB_CONCURRENCY="1",
                     WARLOG_WEBHOOK_ALLOW="127.0.0.0/8") as url:
        yield url


def _open_as(open_tab, server, game_id, seat, token, width=1280):
    tab = open_tab(width)
    tab.context.add_init_script(f"localStorage.setItem('warlog:game:{game_id}', "
                                f"{json.dumps(json.dumps({'seats': {seat: token}, 'active': seat}))})")
    return tab.goto(f"{server}/games/{game_id}")


def _ticked(page, box: str) -> list[str]:
    return page.eval_on_selector_all(f"#{box} input:checked", "els => els.map(e => e.value)")


def _settings(server, game_id, token) -> dict:
    status, _, body = http_json("GET", f"{server}/api/v1/games/{game_id}/notifications",
                                headers={"Authorization": "Bearer " + token})
    assert status == 200, body
    return body


def test_a_seat_saves_its_notification_choices_on_the_game_page(hook_server, open_tab, shots):
    server = hook_server
    game_id, _, tokens = freeform_game(server)
    red = _open_as(open_tab, server, game_id, "Red", tokens["Red"])
    page = red.page
    page.wait_for_selector("#notify-box:not([hidden])")
    assert _ticked(page, "n-events") == ["your_move", "decision", "take_back", "game_over"]  # the defaults
    assert _ticked(page, "n-channels") == ["email"] and page.input_value("#n-email") == ""

    # webhook chosen without a URL: refused, naming it, and nothing stored
    page.locator('#n-channels input[value="webhook"]').check()
    page.click("#n-save")
    page.wait_for_selector("#status.error")
    assert "webhook_url" in page.text_content("#status")
    assert _settings(server, game_id, tokens["Red"])["channels"] == ["email"]

    page.fill("#n-email", "red@example.org")
    page.check("#n-on")
    page.locator('#n-events input[value="your_move"]').uncheck()
    page.check("#n-digest")
    page.fill("#n-webhook", "http://127.0.0.1:9/red-hook")
    page.select_option("#n-format", "discord")
    page.click("#n-save")
    page.wait_for_selector("#status.ok:has-text('Notifications saved')")
    secret = page.text_content("#n-secret").rsplit(" ", 1)[1]
    assert secret.startswith("whsec_") and page.is_visible("#n-secret")
    stored = _settings(server, game_id, tokens["Red"])
    assert stored["email"] == "red@example.org" and stored["notify"] is True and stored["digest"] is True
    assert stored["events"] == ["decision", "take_back", "game_over"]
    assert stored["channels"] == ["email", "webhook"] and stored["webhook_url"] == "http://127.0.0.1:9/red-hook"
    assert stored["webhook_secret"] is None  # never read back
    assert stored["webhook_format"] == "discord"
    # the address gets no turn mail until its owner follows the link of the mail sent to it
    assert stored["email_confirmed"] is False
    assert "A confirmation mail is on its way" in page.text_content("#n-confirm") and page.is_visible("#n-confirm")
    assert not labels_missing(page)
    shoot(page, shots / "game-notifications.png")

    # a reload shows what was saved, without the secret
    red.goto(f"{server}/games/{game_id}")
    page.wait_for_function("() => document.getElementById('n-email').value === 'red@example.org'")
    assert _ticked(page, "n-events") == ["decision", "take_back", "game_over"] and page.is_checked("#n-digest")
    assert page.input_value("#n-webhook") == "http://127.0.0.1:9/red-hook" and not page.is_visible("#n-secret")
    assert page.input_value("#n-format") == "discord"
    assert "This address is not confirmed" in page.text_content("#n-confirm")

    # Blue, on a phone, sees its own settings, none of Red's
    blue = _open_as(open_tab, server, game_id, "Blue", tokens["Blue"], width=375)
    blue.page.wait_for_selector("#notify-box:not([hidden])")
    assert blue.page.input_value("#n-email") == "" and blue.page.input_value("#n-webhook") == ""
    assert blue.page.input_value("#n-format") == "warlog" and blue.page.locator("#n-confirm").is_hidden()
    assert "red@example.org" not in blue.page.content() and "red-hook" not in blue.page.content()
    no_horizontal_scroll(blue.page)
    assert not red.errors and not blue.errors, (red.errors, blue.errors)


def test_a_spectator_sees_no_notifications_panel(hook_server, open_tab):
    status, _, made = http_json("POST", f"{hook_server}/api/v1/games",
                                {"ruleset": "freeform", "public": True, "options": {"sides": ["A", "B"]}})
    assert status == 201
    tab = open_tab().goto(f"{hook_server}/games/{made['game_id']}")
    assert tab.page.locator("#notify-box").is_hidden()
    assert not tab.errors, tab.errors
