"""A webhook URL's name is resolved at delivery, never in the request that sets it (attack round
14): a resolver that answers slowly (10-30 s) held a web worker for as long, and anyone may create a
game and set its webhook. The request checks what it can without DNS (the URL's form, warlog's own
API, an address written in the URL, a localhost name); each delivery resolves the name, refuses an
internal address and records the failed delivery with why, as it did before (DNS rebinding)."""

from __future__ import annotations

import ipaddress
import socket
import time

import pytest

from tests.api.conftest import make_game
from tests.workers.test_notify import Harness
from workers import notify, webhook_target
from workers.dispatch import FAILED, WEBHOOK

SLOW = 2.0


@pytest.fixture
def slow_dns(monkeypatch):
    """Every name lookup takes SLOW seconds and is counted: the request must make none."""
    asked: list[str] = []

    def lookup(host, *args, **kwargs):
        asked.append(host)
        time.sleep(SLOW)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    return asked


@pytest.mark.parametrize("where", ["webhook", "notifications"])
def test_setting_a_webhook_by_name_does_not_wait_on_dns(client, slow_dns, monkeypatch, where):
    monkeypatch.delenv("WARLOG_WEBHOOK_ALLOW", raising=False)
    c, _ = client
    game = make_game(c)
    token, field = (game.admin, "url") if where == "webhook" else (game.seats["Blue"], "webhook_url")
    began = time.monotonic()
    r = c.put(f"/api/v1/games/{game.game_id}/{where}", json={field: "https://hooks.slow-resolver.example/in"},
              headers=token)
    assert r.status_code == 200, r.get_data(as_text=True)
    assert slow_dns == [] and time.monotonic() - began < SLOW


@pytest.mark.parametrize("url, reason", [
    ("http://10.0.0.1/", "10.0.0.1 is a private address"),
    ("http://0x7f000001/", "0x7f000001 (127.0.0.1) is a loopback address"),
    ("http://[fd00::1]:8080/", "fd00::1 is a private address"),
    ("http://localhost:6379/", "localhost is a loopback name"),
    ("http://redis.localhost/", "redis.localhost is a loopback name"),
])
def test_an_address_written_in_the_url_is_still_refused_in_the_request_without_dns(client, slow_dns, monkeypatch,
                                                                                   url, reason):
    monkeypatch.delenv("WARLOG_WEBHOOK_ALLOW", raising=False)
    c, service = client
    game = make_game(c)
    r = c.put(f"/api/v1/games/{game.game_id}/webhook", json={"url": url}, headers=game.admin)
    assert r.status_code == 422 and reason in r.json["detail"], r.get_data(as_text=True)
    assert slow_dns == []


def test_a_name_set_without_dns_that_resolves_to_an_internal_address_fails_at_delivery_with_why(client, monkeypatch):
    """The SSRF protection holds where the request no longer resolves: the worker resolves the name
    before connecting, refuses a private address, sends nothing and records the failed delivery."""
    monkeypatch.delenv("WARLOG_WEBHOOK_ALLOW", raising=False)
    resolved: list[str] = []

    def resolve(host, port):
        resolved.append(host)
        return [ipaddress.ip_address("10.1.2.3")]

    monkeypatch.setattr(webhook_target, "resolve", resolve)
    c, service = client
    game = make_game(c)
    h = Harness(service, None)
    h.dispatch()
    r = c.put(f"/api/v1/games/{game.game_id}/webhook", json={"url": "https://hooks.inside.example/in"},
              headers=game.admin)
    assert r.status_code == 200 and resolved == [], r.get_data(as_text=True)  # the request asked no DNS
    advanced = c.post(f"/api/v1/games/{game.game_id}/orders", json={"kind": "advance"},
                      headers={**game.seats["Blue"], "Idempotency-Key": "dns-1"})
    assert advanced.status_code == 201, advanced.get_data(as_text=True)
    [row] = [r for r in h.dispatch() if r["channel"] == WEBHOOK and r["seat"] == ""]
    with pytest.raises(notify.WebhookFailed, match=r"hooks.inside.example \(10.1.2.3\) is a private address"):
        h.deliver(row)
    assert resolved == ["hooks.inside.example"]
    failed = h.store.delivery(game.game_id, row["seq"], WEBHOOK, "")
    assert failed["status"] == FAILED and "10.1.2.3) is a private address; refused" in failed["error"]
