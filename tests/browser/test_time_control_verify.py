"""The lines of a time control (issue 35, "Time") in an export: `warlog verify` and the browser's
verifier (api/static/verify/) in Chromium take them and give the same report: a keyed seat's
signed vacation, extension and claim, and the server's unsigned pass at a timeout; an altered
vacation fails both at the same line for the same reason."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from domain import signatures
from domain.storage import config_from_env
from tests.browser.test_browser_verify import browser_verify, comparable, page  # noqa: F401  (fixture)
from tests.conftest import make_app
from tests.unit.test_signatures import rechained, where
from tests.unit.test_tampering import python_verify
from tests.unit.test_time_control import Turns  # noqa: F401  (registers toy_turns)

pytestmark = pytest.mark.slow

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def timed_exports(tmp_path_factory):
    """Two exports: a toy_turns game where keyed Black takes a vacation, gives an extension and
    claims on time, all signed; a freeform game passed at a timeout for its keyed seats."""
    app = make_app(config_from_env({"WARLOG_DATA_DIR": str(tmp_path_factory.mktemp("timed") / "data")}))
    at = {"now": T0}
    app.now = lambda: at["now"]
    try:
        gid = app.create_game("toy_turns", time_control={"days": 2, "vacation_days": 3}).game_id
        key = signatures.new_private_key()
        app.join(gid, "White", "w")
        head = app.join(gid, "Black", "b", public_key=signatures.public_key_of(key)).chain_head

        def signed(kind, fields):
            return {"signature": signatures.sign_command(key, gid, kind, "Black", fields, head), "head": head}

        head = app.take_vacation(gid, "Black", 2, command_id="away-1", **signed("vacation", {"days": 2})).chain_head
        head = app.grant_extension(gid, "Black", 1, **signed("extension", {"days": 1})).chain_head
        at["now"] = T0 + timedelta(days=4)
        app.claim_win(gid, "Black", **signed("claim_win", {}))
        claimed = list(app.export(gid, header=True))

        at["now"] = T0
        fid = app.create_game("freeform", options={"sides": ["Blue", "Red"]},
                              time_control={"days": 1, "on_timeout": "pass"}).game_id
        for seat in ("Blue", "Red"):
            app.join(fid, seat, seat.lower(), public_key=signatures.public_key_of(signatures.new_private_key()))
        at["now"] = T0 + timedelta(days=1, minutes=1)
        assert app.sweep_game(fid) is not None
        passed = list(app.export(fid, header=True))
    finally:
        app.close()
    return {"claimed": claimed, "passed": passed}


@pytest.mark.parametrize("name", ["claimed", "passed"])
def test_the_time_control_lines_verify_alike_in_python_and_in_the_browser(page, timed_exports, name):  # noqa: F811
    text = timed_exports[name]
    types = {json.loads(t).get("type") for t in text}
    assert {"TimeControlSet", "DeadlineSet", "TimedOut"} <= types
    want = python_verify(text, None)
    got = browser_verify(page, text)
    assert want.ok, want.summary()
    assert (got["ok"], comparable(got["failures"])) == (True, [])
    assert got["summary"] == want.summary()
    if name == "claimed":
        assert want.command_signatures_verified == 3 and {"VacationTaken", "ExtensionGranted", "WinClaimed"} <= types
        assert any('"command_id":"away-1"' in t for t in text)  # a vacation's Idempotency-Key is in its line


def test_an_altered_vacation_fails_alike_in_python_and_in_the_browser(page, timed_exports):  # noqa: F811
    header, *rest = timed_exports["claimed"]
    lines = [json.loads(t) for t in rest]
    lines[where(lines, "VacationTaken") - 1]["data"]["days"] = 1  # a shorter vacation, rechained
    text = [header, *rechained(lines)]
    want = python_verify(text, None)
    got = browser_verify(page, text)
    assert not want.ok and any("vacation command" in why for _, why in want.failures), want.summary()
    assert (got["ok"], comparable(got["failures"])) == (want.ok, comparable(want.failures))
