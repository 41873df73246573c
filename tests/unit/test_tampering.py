"""`warlog verify` on the shared list of tampered exports (tests/tampers.py), which the browser's
verifier must refuse too (tests/browser/test_browser_verify.py): each intact export verifies,
and each tampered copy fails, naming the line and the reason the case states. The exports are the
games of tests/tampers.py as format-1 files (kept in tests/data) and as this code base records
them now; and the format-2 exports written from the spec (tests/format2.py)."""

from __future__ import annotations

import pytest

from domain.storage import config_from_env
from domain.verify import verify_head, verify_text
from tests import format2, tampers
from tests.conftest import make_app

NAMES = ["dice", "signed", "sealed"]


@pytest.fixture(scope="module")
def exports_now(tmp_path_factory):
    app = make_app(config_from_env({"WARLOG_DATA_DIR": str(tmp_path_factory.mktemp("tampers") / "data")}))
    try:
        yield tampers.games(app)
    finally:
        app.close()


@pytest.fixture(scope="module")
def format1():
    return tampers.format1_exports()


def python_verify(text: list[str], head: dict | str | None, server_key: str | None = None):
    """What `warlog verify FILE [--head HEAD] [--server-key KEY]` does (api/cli.py, cmd_verify)."""
    report, _ = verify_text(text)
    if head is not None:
        verify_head(report, head, server_key or report.server_key)
        report.failures.sort(key=lambda f: f[0])
    return report


def intact_verifies(x: tampers.Export) -> None:
    report = python_verify(x.text, x.head)
    assert report.ok, report.summary()
    assert report.rolls_verified and (x.name != "signed" or report.signatures_verified == 2)
    assert x.name != "sealed" or report.reveals_verified == 2
    # Blue signs its seal and reveal in a format-2 game (the format-1 file has no key).
    assert x.name != "sealed" or report.sealed_signatures_verified == (2 if tampers.signed_sealed(x.lines()) else 0)
    # Blue signs its client-seed change in a format-2 game (the format-1 file's is unsigned).
    assert x.name != "signed" or report.command_signatures_verified == (1 if tampers.signed_commands(x.lines()) else 0)


def tampered_fails(case: tampers.Tampered | None) -> None:
    if case is None:
        pytest.skip("this change is no tampering in this export's format")
    report = python_verify(case.text, case.head, case.server_key)
    assert not report.ok, f"{case.name} went unnoticed: {report.summary()}"
    line, why = report.failures[0]
    assert (line, case.why in why) == (case.line, True), report.summary()


@pytest.mark.parametrize("name", NAMES)
def test_each_format1_export_verifies(format1, name):
    assert "format" not in format1[name].lines()[0]["data"]
    intact_verifies(format1[name])


@pytest.mark.parametrize("name", NAMES)
def test_each_export_made_now_verifies(exports_now, name):
    intact_verifies(exports_now[name])
    assert name != "sealed" or tampers.signed_sealed(exports_now[name].lines())  # format 2: seal and reveal signed


@pytest.mark.parametrize("index", range(len(tampers.CASES)), ids=tampers.case_ids())
def test_each_tampered_format1_export_fails_naming_the_line_and_why(format1, index):
    _, export, build = tampers.CASES[index]
    tampered_fails(build(format1[export]))


@pytest.mark.parametrize("index", range(len(tampers.CASES)), ids=tampers.case_ids())
def test_each_tampered_export_made_now_fails_naming_the_line_and_why(exports_now, index):
    _, export, build = tampers.CASES[index]
    tampered_fails(build(exports_now[export]))


def test_the_format2_exports_of_the_spec_verify_and_each_tampered_copy_fails_at_its_line():
    """tests/format2.py's exports, written from the spec: `warlog verify` takes the intact ones and
    names each tampered copy's line (its words are its own: the browser's are in the cases)."""
    made = format2.exports()
    for x in made.values():
        assert python_verify(x.text, x.head).ok
    for name, export, build in format2.CASES:
        case = build(made[export])
        report = python_verify(case.text, None)
        assert not report.ok and report.failures[0][0] == case.line, (name, report.summary())


def test_format2_rolls_under_an_order_id_held_as_a_commitment_are_said_not_checked():
    """docs/dice.md section 6: what derives from an order id a copy holds as a commitment is left
    unchecked there, not failed; the summary says so rather than 'OK' with those rolls dropped
    from the count (a server can write a 'full' export so, with any face under it)."""
    text, _ = format2.order_id_concealed(format2.exports()["f2_full"])
    report = python_verify(text, None)
    assert report.ok, report.summary()
    assert "NOT CHECKED in this copy: 1 roll(s) and 0 client entropy(ies)" in report.summary()



def test_orders_signed_under_a_key_two_seats_share_are_not_counted_verified(exports_now):
    """docs/dice.md, "Seats' keys": with one key for two seats an order's signature cannot say which
    seat gave it. The file failed at the key line, but the summary still said "2 signed order(s)
    verified" of Blue's two orders (one recorded as Red's): a count no reader can trust."""
    case = next(build(exports_now["signed"]) for name, _, build in tampers.CASES
                if name == "one_key_for_two_seats_order_moved")
    report = python_verify(case.text, case.head, case.server_key)
    assert not report.ok and report.signatures_verified == 0, report.summary()
    assert "; 0 signed order(s) verified" in report.summary()
