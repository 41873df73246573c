"""The browser's verifier (api/static/verify/, docs/dice.md "Checking in the browser") in real
Chromium, against what the spec's reference implementations say: the fixed dice vectors
(tests/data/dice_vectors.json, made with OpenSSL), Python's float repr, json.dumps and rfc8785
(tests/data/json_vectors.json), real exports that `warlog verify` passes, and the shared list of
tampered exports (tests/tampers.py), each of which must fail in the browser exactly as it fails
in `warlog verify`: the same lines, the same reasons.

The modules are loaded as the pages load them, as ES modules, from a page whose requests
Playwright answers from api/static (an origin of 127.0.0.1 is a secure context: WebCrypto works).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.storage import config_from_env
from tests import tampers
from tests.conftest import make_app
from tests.unit.test_tampering import python_verify

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "api" / "static"
DATA = ROOT / "tests" / "data"
ORIGIN = "http://127.0.0.1:9"

# Messages that quote another program's internals (a decoder's error, an exception's repr) agree
# on their start only.
LOOSE = ("not JSON: ", "malformed ")


def _serve(route) -> None:
    path = route.request.url[len(ORIGIN):].split("?")[0]
    if path.startswith("/static/"):
        file = (STATIC / path[len("/static/"):]).resolve()
        assert STATIC in file.parents, path
        route.fulfill(status=200, body=file.read_bytes(), headers={"Content-Type": "text/javascript; charset=utf-8"})
    else:
        route.fulfill(status=200, body=b"<!doctype html><html lang=en><title>verifier</title></html>",
                      headers={"Content-Type": "text/html; charset=utf-8"})


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context()
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.route(ORIGIN + "/**", _serve)
    tab.goto(ORIGIN + "/")
    assert tab.evaluate("() => isSecureContext && !!crypto.subtle")
    yield tab
    context.close()
    assert errors == []


def browser_verify(page, text: list[str], head: dict | None = None, server_key: str | None = None) -> dict:
    """The browser's report on a file of these lines (and a kept head), as plain data."""
    return page.evaluate("""async ([text, head, serverKey]) => {
        const m = await import('/static/verify/verify.js');
        const r = await m.verifyText(text, {head: head, serverKey: serverKey});
        return r.toJSON(); }""", ["\n".join(text) + "\n", json.dumps(head) if head else None, server_key])


def comparable(failures) -> list[tuple[int, str]]:
    out = []
    for line, why in failures:
        loose = next((p for p in LOOSE if why.startswith(p)), None)
        out.append((line, loose or why))
    return out


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    app = make_app(config_from_env({"WARLOG_DATA_DIR": str(tmp_path_factory.mktemp("tampers") / "data")}))
    try:
        yield tampers.games(app)
    finally:
        app.close()


# ------------------------------------------------------------------------------- vectors ----
def test_every_fixed_dice_vector_gives_its_face_and_attempts(page):
    vectors = json.loads((DATA / "dice_vectors.json").read_text(encoding="utf-8"))["vectors"]
    got = page.evaluate("""async (vectors) => {
        const { draw } = await import('/static/verify/dice.js');
        const { fromHex } = await import('/static/verify/crypto.js');
        const out = [];
        for (const v of vectors) {
          const d = await draw(fromHex(v.seed_hex), v.game_id, BigInt(v.epoch), v.client_entropy,
                               BigInt(v.nonce), BigInt(v.sides));
          out.push([d.face.toString(), d.attempts]);
        }
        return out; }""", [{**v, "sides": str(v["sides"])} for v in vectors])
    assert got == [[str(v["face"]), v["attempts"]] for v in vectors]
    assert any(v["attempts"] > 1 for v in vectors)  # the rejection step is exercised


def test_floats_are_written_as_pythons_repr_and_as_ecmascript_for_jcs(page):
    vectors = json.loads((DATA / "json_vectors.json").read_text(encoding="utf-8"))
    wrong = page.evaluate("""async ([reprs, jcsNumbers]) => {
        const c = await import('/static/verify/canonical.js');
        const double = (hex) => new DataView(Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16)).buffer).getFloat64(0);
        const wrong = [];
        for (const [hex, want] of reprs) { const got = c.pyFloatRepr(double(hex)); if (got !== want) wrong.push([hex, want, got]); }
        for (const [hex, want] of jcsNumbers) { const got = c.jcs(double(hex)); if (got !== want) wrong.push([hex, want, got]); }
        return wrong; }""", [vectors["float_repr"], vectors["jcs_numbers"]])
    assert wrong == []
    assert len(vectors["float_repr"]) >= 1000


def test_json_is_written_as_pythons_json_dumps_and_as_rfc_8785(page):
    vectors = json.loads((DATA / "json_vectors.json").read_text(encoding="utf-8"))
    got = page.evaluate("""async ([pythonJson, jcs]) => {
        const j = await import('/static/verify/json.js');
        const c = await import('/static/verify/canonical.js');
        const write = (f, text) => { try { return f(j.parse(text)); } catch (e) { if (e instanceof c.EncodeError) return null; throw e; } };
        return [pythonJson.map(([t]) => write(c.pythonJson, t)), jcs.map(([t]) => write(c.jcs, t))]; }""",
                        [vectors["python_json"], vectors["jcs"]])
    assert got == [[want for _, want in vectors["python_json"]], [want for _, want in vectors["jcs"]]]
    assert None in got[1] and None in got[0]  # what the references refuse, the browser refuses


def test_the_reader_refuses_what_pythons_json_refuses(page):
    texts = ["{", '{"a":1,}', "[01]", '"\\x"', '"a\tb"', "1.", ".5", "tru", '{"a" 1}', "[1] 2", "+1", "0x10",
             '"\\ud800"', "[-Infinity, NaN]", " 1 ", "1" * 4301, "[" * 2000 + "]" * 2000]
    refused = page.evaluate("""async (texts) => {
        const j = await import('/static/verify/json.js');
        return texts.map((t) => { try { j.parse(t); return false; } catch (e) { return true; } }); }""", texts)

    def python_refuses(text: str) -> bool:
        try:
            json.loads(text)
        except (ValueError, RecursionError):
            return True
        return False

    assert refused == [python_refuses(t) for t in texts]


# ------------------------------------------------------------------------ real exports ----
@pytest.mark.parametrize("name", ["dice", "signed", "sealed", "seat_copy"])
def test_a_real_export_gets_the_same_report_in_the_browser(page, exports, name):
    x = exports[name]
    want = python_verify(x.text, x.head)
    got = browser_verify(page, x.text, x.head)
    assert got["summary"] == want.summary()
    assert (got["ok"], comparable(got["failures"])) == (want.ok, comparable(want.failures))
    assert name == "seat_copy" or want.ok


def test_every_die_and_order_has_its_own_verdict(page, exports):
    x = exports["dice"]
    got = browser_verify(page, x.text)
    lines = [json.loads(t) for t in x.text]
    revealed = {line["data"]["epoch"] for line in lines if line["type"] == "DiceEpochRevealed"}
    rolls = {line["seq"]: line for line in lines if line["type"] == "DiceRolled"}
    assert sorted(n for n, _ in got["dice"]) == sorted(rolls)
    for n, roll in got["dice"]:
        want = "verified" if rolls[n]["data"]["epoch"] in revealed else "not yet revealed"
        assert [d["status"] for d in roll["dice"]] == [want] * len(rolls[n]["data"]["dice"])
        assert [d["value"] for d in roll["dice"]] == [d["value"] for d in rolls[n]["data"]["dice"]]
    assert {status for _, o in got["orders"] for status in [o["status"]]} == {"not signed: its seat registered no key"}

    signed = exports["signed"]
    got = browser_verify(page, signed.text, signed.head)
    statuses = {o["order_id"]: o["status"] for _, o in got["orders"]}
    assert statuses == {"o-1": "verified", "o-2": "verified", "r-1": "not signed: its seat registered no key"}

    sealed = exports["sealed"]
    got = browser_verify(page, sealed.text)
    assert [r["status"] for _, r in got["reveals"]] == ["verified", "verified"]
    assert {o["status"] for _, o in got["orders"]} == {"not signed: its seat registered no key"}


def test_a_forged_die_is_failed_with_its_reason_and_the_others_stay_verified(page, exports):
    x = exports["dice"]
    case = next(build(x) for name, _, build in tampers.CASES if name == "altered_die_rechained")
    got = browser_verify(page, case.text)
    roll = dict(got["dice"])[case.line]
    assert roll["dice"][0]["status"].startswith("failed: die nonce ") and "but the revealed seed gives" in roll["dice"][0]["status"]
    others = [d["status"] for n, r in got["dice"] if n != case.line for d in r["dice"]]
    assert "verified" in others and not any(s.startswith("failed") for s in others)


# ----------------------------------------------------------------------- tampered files ----
@pytest.mark.parametrize("index", range(len(tampers.CASES)), ids=tampers.case_ids())
def test_each_tampered_export_fails_in_the_browser_as_in_warlog_verify(page, exports, index):
    _, export, build = tampers.CASES[index]
    case = build(exports[export])
    want = python_verify(case.text, case.head, case.server_key)
    got = browser_verify(page, case.text, case.head, case.server_key)
    assert not want.ok and not got["ok"]
    assert comparable(got["failures"]) == comparable(want.failures), got["summary"]
    assert got["failures"][0][0] == case.line and case.why in got["failures"][0][1]


def test_randomly_tampered_exports_get_the_same_failures_in_the_browser(page, exports):
    """Beyond the stated cases: 150 files changed at random in one to three places (wrong types,
    missing keys, odd numbers, mostly with the chain recomputed) fail in the browser exactly when
    and where they fail in `warlog verify`. A file that makes `warlog verify` stop with an error
    instead of a report (a hash that is a list or an object) is left out: the browser reports it."""
    compared = 0
    for case in tampers.random_tampers(exports, seed=34, count=150):
        try:
            want = python_verify(case.text, case.head)
        except (TypeError, UnicodeEncodeError):
            continue
        got = browser_verify(page, case.text, case.head)
        assert (got["ok"], comparable(got["failures"])) == (want.ok, comparable(want.failures)), case.text
        assert got["summary"].splitlines()[0] == want.summary().splitlines()[0]
        compared += 1
    assert compared >= 140
