"""``warlog webhook``: the admin sets a game's webhook and its format from the command line; the
next turn reaches a real receiver that verifies it with the standardwebhooks library."""

from __future__ import annotations

import base64

from domain.service import Warlog
from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)
from tests.workers.notify_helpers import webhook_receiver
from workers.dispatch import Dispatcher, NotifyStore, deliver


def _deliver_all(service: Warlog, dispatcher: Dispatcher, rows: list[dict]) -> list[str]:
    while dispatcher.run_batch():
        pass
    outcomes = [deliver(service, r["game_id"], r["seq"], r["channel"], r["seat"], smtp=None,
                        public_url="https://warlog.example") for r in rows]
    rows.clear()
    return outcomes


def test_the_cli_sets_a_discord_webhook_and_its_delivery_verifies(server, alice, bob, monkeypatch):
    monkeypatch.setenv("WARLOG_WEBHOOK_ALLOW", "127.0.0.0/8")  # the receiver listens on loopback
    game_id = started_game(server, alice, bob)
    service = Warlog(server.config)
    rows: list[dict] = []
    dispatcher = Dispatcher(service, rows.append, email_enabled=False)
    try:
        _deliver_all(service, dispatcher, rows)  # the start: no webhook yet
        with webhook_receiver("whsec_" + "0" * 40) as (receiver, url):
            code, out, err = alice("webhook", game_id, url, "--format", "discord")
            assert code == 0 and f"{url} (discord format)" in out and "standardwebhooks" in out, err
            secret = out.split("secret (shown once; the receiver verifies each delivery with it): ")[1].split()[0]
            assert NotifyStore.for_service(service).webhook(game_id) == {"url": url, "secret": secret,
                                                                         "format": "discord"}
            receiver.secret = secret  # the receiver keeps what the CLI printed once
            assert bob("order", game_id, "advance")[0] == 0
            assert _deliver_all(service, dispatcher, rows) == ["sent"]
        [post] = receiver.posts
        assert post["valid"] and set(post["body"]) == {"content", "allowed_mentions"}
        assert post["body"]["content"].startswith(f"Freeform {game_id[:8]}")
        assert post["body"]["content"].endswith(f"https://warlog.example/games/{game_id}")

        # a secret of one's own, the slack format, a bad format, a seat's token, then removal
        mine = "whsec_" + base64.b64encode(b"s" * 32).decode()
        body = alice.json("webhook", game_id, url, "--format", "slack", "--secret", mine)
        assert body["format"] == "slack" and body["secret"] is None
        code, out, err = alice("webhook", game_id, url, "--secret", "not-whsec-at-all")
        assert code == 1 and "whsec_" in err
        code, out, err = alice("webhook", game_id, url, "--format", "teams")
        assert code == 2 and "warlog, discord, slack" in err
        code, out, err = bob("webhook", game_id, url)
        assert code == 2 and "no admin token" in err
        assert NotifyStore.for_service(service).webhook(game_id)["format"] == "slack"  # the refusals changed nothing
        code, out, err = alice("webhook", game_id, "--remove")
        assert code == 0 and "has no webhook now" in out, err
        assert NotifyStore.for_service(service).webhook(game_id) is None
    finally:
        service.close()
