"""Where a webhook may go (issue 29, item 1): internal targets are refused after resolving the
name, again at delivery against DNS rebinding, redirects are not followed, and the operator's
allow-list (WARLOG_WEBHOOK_ALLOW) admits a trusted internal receiver.

Nothing here connects anywhere but loopback: refused targets are refused before any connection,
names other than ``localhost`` (/etc/hosts) go through a stand-in resolver, and the public
addresses in the checks are never connected to."""

from __future__ import annotations

import ipaddress
import os
import shutil
import ssl
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.workers.notify_helpers import free_port, webhook_receiver
from workers import notify, webhook_target
from workers.webhook_target import Allow, Refused, check

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_IP = "93.184.216.34"  # a global address: checked, never connected to
SECRET = "whsec_" + "t" * 40


@pytest.fixture
def names(monkeypatch):
    """A stand-in resolver: {name: [addresses]}; literals and numeric forms resolve as usual."""
    table: dict[str, list[str]] = {}
    real = webhook_target.resolve

    def resolve(host, port):
        if host in table:
            return [ipaddress.ip_address(a) for a in table[host]]
        return real(host, port)

    monkeypatch.setattr(webhook_target, "resolve", resolve)
    return table


@pytest.mark.parametrize("url, reason", [
    ("http://127.0.0.1:5432/", "loopback"),  # PostgreSQL's port
    ("http://localhost:6379/", "loopback"),  # Redis's port, by name
    ("http://[::1]/hook", "loopback"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),  # the cloud metadata address
    ("http://10.0.0.1/", "private"),
    ("http://192.168.1.10/", "private"),
    ("http://2130706433/", "loopback"),  # 127.0.0.1 as one decimal number
    ("http://0x7f000001/", "loopback"),  # and in hex
    ("http://127.1/", "loopback"),
    ("http://0.0.0.0:8000/", "unspecified"),
    ("http://[::]/", "unspecified"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),  # IPv4-mapped IPv6
    ("http://[::ffff:169.254.169.254]/", "link-local"),
    ("http://[2002:7f00:1::]/", "loopback"),  # 6to4 around 127.0.0.1
    ("http://[fe80::1]/", "link-local"),
    ("http://[fd00::1]/", "private"),
    ("http://224.0.0.1/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://255.255.255.255/", "reserved"),
    ("http://100.64.0.1/", "not a public address"),  # carrier-grade NAT
])
def test_internal_targets_are_refused_naming_why(url, reason):
    with pytest.raises(Refused, match=reason) as refused:
        check(url, Allow())
    assert "WARLOG_WEBHOOK_ALLOW" in str(refused.value)


@pytest.mark.parametrize("url, reason", [
    ("ftp://hooks.example/x", "http:// or https://"),
    ("file:///etc/passwd", "http:// or https://"),
    ("gopher://127.0.0.1:6379/_INFO", "http:// or https://"),
    ("hooks.example/x", "http:// or https://"),
    ("http:///x", "no host"),
    ("http://user:pw@hooks.example/", "user name or password"),
    ("http://hooks.example:99999/", "malformed"),
])
def test_other_schemes_and_malformed_urls_are_refused(url, reason):
    with pytest.raises(Refused, match=reason):
        check(url, Allow())


def test_a_public_target_is_pinned_to_the_address_it_was_checked_at(names):
    names["hooks.example"] = [PUBLIC_IP]
    target = check("https://hooks.example/warlog?game=1#frag", Allow())
    assert (target.scheme, target.host, target.port, target.path) == ("https", "hooks.example", 443, "/warlog?game=1")
    assert (target.address, target.host_header) == (PUBLIC_IP, "hooks.example")


def test_a_name_with_any_internal_address_is_refused(names):
    names["hooks.example"] = [PUBLIC_IP, "10.0.0.5"]
    with pytest.raises(Refused, match=r"hooks.example \(10.0.0.5\) is a private address"):
        check("https://hooks.example/", Allow())


def test_a_name_that_does_not_resolve_is_refused(names, monkeypatch):
    def nowhere(host, port):
        raise OSError("Name or service not known")

    monkeypatch.setattr(webhook_target, "resolve", nowhere)
    with pytest.raises(Refused, match="does not resolve"):
        check("https://hooks.example/", Allow())


def test_the_operator_allow_list_admits_networks_names_and_ports(names):
    allow = Allow.parse("127.0.0.1, 10.0.0.0/8:9000 [::1]:8080\thooks.internal:9000")
    assert check("http://127.0.0.1:1234/", allow).address == "127.0.0.1"
    assert check("http://10.1.2.3:9000/", allow).address == "10.1.2.3"
    assert check("http://[::1]:8080/", allow).address == "::1"
    names["hooks.internal"] = ["10.9.9.9"]
    assert check("http://hooks.internal:9000/", allow).address == "10.9.9.9"
    for refused in ("http://10.1.2.3:9001/", "http://[::1]:8081/", "http://hooks.internal:9001/",
                    "http://127.0.0.2/", "http://169.254.169.254/"):
        with pytest.raises(Refused):
            check(refused, allow)


@pytest.mark.parametrize("text", ["10.0.0.1:http", "[::1]8080", "not a host!", "hooks.internal:0"])
def test_a_malformed_allow_list_is_an_error_naming_the_entry(text):
    with pytest.raises(ValueError, match="WARLOG_WEBHOOK_ALLOW"):
        Allow.parse(text)


def test_warlogs_own_api_is_refused_even_when_loopback_is_allowed():
    allow = Allow.parse("127.0.0.0/8")
    own = "http://127.0.0.1:8000"
    for url in ("http://127.0.0.1:8000/api/v1/games", "http://localhost:8000/api/v1/games",
                "http://2130706433:8000/api/v1/games"):
        with pytest.raises(Refused, match="own API"):
            check(url, allow, own)
    assert check("http://127.0.0.1:8001/hook", allow, own).port == 8001


# ============================================================================== delivering ====
def test_a_delivery_to_an_internal_address_is_refused_before_connecting(monkeypatch):
    monkeypatch.delenv("WARLOG_WEBHOOK_ALLOW", raising=False)
    with webhook_receiver(SECRET) as (receiver, url):
        for internal in (url, url.replace("127.0.0.1", "localhost"), url.replace("127.0.0.1", "2130706433"),
                         url.replace("127.0.0.1", "[::ffff:127.0.0.1]")):
            with pytest.raises(notify.WebhookFailed, match="loopback address; refused"):
                notify.post_webhook(internal, SECRET, b"{}", delivery="g:1:webhook:")
    assert receiver.requests == []


def test_the_delivery_connects_to_the_address_it_checked(names, monkeypatch):
    """The name is resolved once, checked, and the POST goes to that address with the name in
    the Host header: here ``localhost`` is made to resolve to 127.0.0.2, where the receiver
    listens, while the system would say 127.0.0.1, where nothing does."""
    monkeypatch.setenv("WARLOG_WEBHOOK_ALLOW", "127.0.0.2")
    with webhook_receiver(SECRET, host="127.0.0.2") as (receiver, url):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        names["localhost"] = ["127.0.0.2"]
        assert notify.post_webhook(f"http://localhost:{port}/hook?x=1", SECRET, b"{}", delivery="g:1:webhook:") == 204
    [post] = receiver.posts
    assert post["valid"] and post["headers"]["Host"] == f"localhost:{port}"
    assert receiver.requests == ["POST /hook?x=1"]


def test_a_redirect_is_not_followed(trusted_receivers):
    with webhook_receiver(SECRET) as (elsewhere, other_url), \
            webhook_receiver(SECRET, redirect_to=other_url) as (redirecting, url):
        with pytest.raises(notify.WebhookFailed, match="302; redirects are not followed"):
            notify.post_webhook(url, SECRET, b"{}", delivery="g:1:webhook:")
    assert len(redirecting.posts) == 1
    assert elsewhere.requests == []  # the signature header never went on to the other port


def test_an_unreachable_allowed_receiver_is_a_failed_delivery(trusted_receivers):
    with pytest.raises(notify.WebhookFailed, match="unreachable"):
        notify.post_webhook(f"http://127.0.0.1:{free_port()}/nobody", SECRET, b"{}", delivery="g:1:webhook:",
                            timeout=2)


def _certificate(tmp_path, name: str) -> tuple[str, str]:
    """A self-signed certificate for ``name`` (openssl), and its key."""
    cert, key = str(tmp_path / f"{name}.pem"), str(tmp_path / f"{name}.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={name}",
                    "-addext", f"subjectAltName=DNS:{name}", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_over_https_the_pinned_connection_checks_the_certificate_of_the_urls_host(names, monkeypatch, tmp_path):
    """Connected to the checked address (127.0.0.2), the TLS server name and the certificate
    checked are still the URL's host: a certificate for another name is a failed delivery."""
    monkeypatch.setenv("WARLOG_WEBHOOK_ALLOW", "127.0.0.2")
    names["localhost"] = ["127.0.0.2"]
    for served, expected in (("localhost", 204), ("elsewhere.example", None)):
        cert, key = _certificate(tmp_path, served)
        monkeypatch.setenv("SSL_CERT_FILE", cert)  # the client trusts this certificate alone
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(cert, key)
        with webhook_receiver(SECRET, host="127.0.0.2", tls=tls) as (receiver, url):
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            hook = f"https://localhost:{port}/hook"
            if expected:
                assert notify.post_webhook(hook, SECRET, b"{}", delivery="g:1:webhook:") == expected
                assert receiver.posts[0]["valid"] and receiver.posts[0]["headers"]["Host"] == f"localhost:{port}"
            else:
                with pytest.raises(notify.WebhookFailed, match="SSLCertVerificationError"):
                    notify.post_webhook(hook, SECRET, b"{}", delivery="g:1:webhook:")
                assert receiver.posts == []


def test_a_worker_with_a_malformed_allow_list_stops_at_once_naming_the_entry(tmp_path):
    env = {**os.environ, "WARLOG_WEBHOOK_ALLOW": "127.0.0.1, 10.0.0.1:http", "WARLOG_DATA_DIR": str(tmp_path),
           "WARLOG_QUEUE": f"test-allow-{uuid.uuid4().hex[:8]}"}
    done = subprocess.run([sys.executable, "-m", "api.cli", "worker", "--webhooks", "--burst"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "WARLOG_WEBHOOK_ALLOW: '10.0.0.1:http' has no valid port" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_web_app_with_a_malformed_allow_list_stops_at_start_naming_the_entry(monkeypatch, sqlite_config):
    """Not a 500 at the first PUT /webhook: the app refuses to start with the entry named."""
    from api.app import create_app
    from tests.conftest import make_app

    service = make_app(sqlite_config)
    monkeypatch.setenv("WARLOG_WEBHOOK_ALLOW", "127.0.0.1, 10.0.0.1:http")
    try:
        with pytest.raises(SystemExit, match="'10.0.0.1:http' has no valid port"):
            create_app({"WARLOG_SERVICE": service, "TESTING": True})
    finally:
        service.close()
