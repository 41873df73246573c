"""`warlog verify` on the shared list of tampered exports (tests/tampers.py), which the browser's
verifier must refuse too (tests/browser/test_browser_verify.py): each intact export verifies,
and each tampered copy fails, naming the line and the reason the case states."""

from __future__ import annotations

import pytest

from domain.storage import config_from_env
from domain.verify import verify_head, verify_text
from tests import tampers
from tests.conftest import make_app


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    app = make_app(config_from_env({"WARLOG_DATA_DIR": str(tmp_path_factory.mktemp("tampers") / "data")}))
    try:
        yield tampers.games(app)
    finally:
        app.close()


def python_verify(text: list[str], head: dict | None, server_key: str | None = None):
    """What `warlog verify FILE [--head HEAD] [--server-key KEY]` does (api/cli.py, cmd_verify)."""
    report, _ = verify_text(text)
    if head is not None:
        verify_head(report, head, server_key or report.server_key)
        report.failures.sort(key=lambda f: f[0])
    return report


@pytest.mark.parametrize("name", ["dice", "signed", "sealed"])
def test_each_intact_export_verifies(exports, name):
    x = exports[name]
    report = python_verify(x.text, x.head)
    assert report.ok, report.summary()
    assert report.rolls_verified and (name != "signed" or report.signatures_verified == 2)
    assert name != "sealed" or report.reveals_verified == 2


@pytest.mark.parametrize("index", range(len(tampers.CASES)), ids=tampers.case_ids())
def test_each_tampered_export_fails_naming_the_line_and_why(exports, index):
    _, export, build = tampers.CASES[index]
    case = build(exports[export])
    report = python_verify(case.text, case.head, case.server_key)
    assert not report.ok, f"{case.name} went unnoticed: {report.summary()}"
    line, why = report.failures[0]
    assert (line, case.why in why) == (case.line, True), report.summary()
