"""``warlog notify``: a seat shows and changes its notification choices from the command line,
against a live server (the fixtures of test_client); another seat's choices stay its own."""

from __future__ import annotations

import ipaddress
import json
import urllib.error
import urllib.request

import pytest

from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)
from workers import webhook_target
from workers.dispatch import NotifyStore
from domain.service import Warlog


@pytest.fixture
def hooks_example(monkeypatch):
    """hooks.example resolves to a public address (never connected to), without asking DNS."""
    real = webhook_target.resolve
    monkeypatch.setattr(webhook_target, "resolve", lambda host, port: (
        [ipaddress.ip_address("93.184.216.34")] if host == "hooks.example" else real(host, port)))


def test_a_seat_changes_its_choices_and_reads_them_back(server, alice, bob, hooks_example):
    game_id = started_game(server, alice, bob)
    code, out, err = bob("notify", game_id)
    assert code == 0, err
    assert "Red: no address" in out and "events: your_move, decision, take_back, game_over" in out
    assert "channels: email" in out and "webhook: none" in out

    code, out, err = bob("notify", game_id, "--email", "bob@example.org", "--events", "your_move,game_over",
                         "--channels", "email,webhook", "--digest", "--webhook", "https://hooks.example/bob")
    assert code == 0, err
    assert "Red: mail to bob@example.org" in out and "events: your_move, game_over" in out
    # an address gets no turn mail until its owner follows the link of its confirmation mail
    assert "not confirmed: no turn mail goes to it until the link in its confirmation mail is followed; " \
           "one is on its way" in out
    assert "channels: email, webhook; a daily digest instead of each mail" in out
    secret = out.split("webhook secret (shown once): ")[1].split()[0]
    service = Warlog(server.config)
    try:
        stored = NotifyStore.for_service(service).seat_webhook(game_id, "Red")
    finally:
        service.close()
    assert stored == {"url": "https://hooks.example/bob", "secret": secret, "format": "warlog"}

    settings = bob.json("notify", game_id, "--off", "--no-digest")
    assert settings["notify"] is False and settings["digest"] is False and settings["webhook_secret"] is None
    assert settings["events"] == ["your_move", "game_over"] and settings["webhook_url"] == "https://hooks.example/bob"
    assert alice.json("notify", game_id)["email"] is None  # Blue's own, not Red's

    code, out, err = bob("notify", game_id, "--events", "birthdays")
    assert code != 0 and "events" in err
    code, out, err = bob("notify", game_id, "--webhook", "", "--channels", "email")
    assert code == 0 and "webhook: none" in out, err


def test_a_seat_chooses_its_webhooks_format_from_the_command_line(server, alice, bob, hooks_example):
    game_id = started_game(server, alice, bob)
    code, out, err = bob("notify", game_id, "--channels", "webhook", "--webhook", "https://hooks.example/bob",
                         "--webhook-format", "discord")
    assert code == 0, err
    assert "webhook: https://hooks.example/bob (discord format)" in out
    settings = bob.json("notify", game_id, "--events", "game_over")  # left out: kept
    assert settings["webhook_format"] == "discord"
    service = Warlog(server.config)
    try:
        assert NotifyStore.for_service(service).seat_webhook(game_id, "Red")["format"] == "discord"
    finally:
        service.close()
    assert alice.json("notify", game_id)["webhook_format"] == "warlog"  # Blue's own, not Red's

    code, out, err = bob("notify", game_id, "--webhook-format", "teams")
    assert code == 2 and "--webhook-format is one of warlog, discord, slack" in err
    assert bob.json("notify", game_id)["webhook_format"] == "discord"


def test_a_keyed_seats_settings_are_signed_with_its_key(server, alice, bob):
    """bob's Red registered a key: his token alone cannot change its settings, `warlog notify` can."""
    game_id = started_game(server, alice, bob)
    token = bob.saved()["games"][game_id]["token"]
    request = urllib.request.Request(f"{server.url}/api/v1/games/{game_id}/notifications", method="PUT",
                                     data=json.dumps({"events": []}).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request)
        raise AssertionError("an unsigned PUT of a keyed seat's settings was accepted")
    except urllib.error.HTTPError as exc:
        assert exc.code == 422 and json.loads(exc.read())["code"] == "signature_required"
    settings = bob.json("notify", game_id, "--events", "game_over")
    assert settings["events"] == ["game_over"]
