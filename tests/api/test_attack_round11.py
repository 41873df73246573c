"""The eleventh attack round: what the ten before missed. A webhook URL with an unclosed IPv6
bracket, and an invite link with one given to 'warlog join'."""

from __future__ import annotations

import uuid

import pytest

from tests.api.conftest import make_game
from tests.api.test_client import bob  # noqa: F401  (fixture)


# ------------------------------------------- a webhook URL urllib cannot split is a 422 ----
@pytest.mark.parametrize("where", ["webhook", "notifications"])
@pytest.mark.parametrize("bad", ["http://[::1", "https://[::1/hook", "http://[example.com/"])
def test_a_webhook_url_with_an_unclosed_ipv6_bracket_is_422_not_a_500(sqlite_client, where, bad):
    """urlparse raises ValueError ("Invalid IPv6 URL") for an unclosed '[': the schema's URL check
    let it through as a 500, for the admin's game webhook and a seat's own alike."""
    game = make_game(sqlite_client)
    token, field = (game.admin, "url") if where == "webhook" else (game.seats["Blue"], "webhook_url")
    r = sqlite_client.put(f"/api/v1/games/{game.game_id}/{where}", json={field: bad}, headers=token)
    assert r.status_code == 422 and r.json["code"] == "invalid_request", r.get_data(as_text=True)
    assert field in r.json["errors"], r.json


@pytest.mark.parametrize("server", ["http://[::1", "http://[warlog.example.org"])
def test_an_invite_link_with_an_unclosed_ipv6_bracket_is_a_usage_error_not_a_traceback(bob, server):
    """README: 'warlog join LINK' reads the server from the link; one whose host opens a '[' it never
    closes (pasted cut short, or sent by someone) made urlsplit raise ValueError: a traceback."""
    code, out, err = bob("join", f"{server}/games/{uuid.uuid4()}#invite=wli_x", "--handle", "bob")
    assert code == 2 and "Traceback" not in err and server in err, err
    assert not bob.config.exists()
