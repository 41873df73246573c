"""The replay pages check the log they show in the browser (docs/pages.md, "Checked in this
browser"): the offline replay file checks the lines embedded in it, the live replay page the
caller's export; both show a summary, every failure as "line N: why", every order's signature,
and at each step the verdict of its line, order and dice ("verified" / "failed: why" / "not yet
revealed"). The exports are tests/tampers.py's format-1 files, so a tampered one shows the
failure that `warlog verify` names, and tests/format2.py's, written from the spec."""

from __future__ import annotations

import json

import pytest

from domain import signatures
from domain.verify import header_line
from tests import format2, tampers
from tests.browser.helpers import freeform_game, hash_seq, no_horizontal_scroll, shoot, tab_with_keys
from tests.e2e.server import http_json, unjoined_game
from tests.unit.test_tampering import python_verify
from workers import replay

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def exports():
    return tampers.format1_exports()


def offline_file(tmp_path, name: str, lines: list[dict], viewer="umpire", log=None, server_key=None):
    """The replay job's file of ``lines`` for ``viewer``, holding ``log`` (by default the lines
    the viewer may see, as the job embeds them)."""
    made = replay.frames(lines, viewer)
    path = tmp_path / f"{name}.html"
    shown = replay.seen_log(lines, viewer) if log is None else log
    path.write_text(replay.replay_html(made, log=shown, server_key=server_key), encoding="utf-8")
    return made, path


def opened(open_tab, path, width=1280):
    tab = open_tab(width)
    requests: list[str] = []
    tab.page.on("request", lambda r: requests.append(r.url))
    tab.goto(path.as_uri())
    tab.page.wait_for_selector("#verify:not([data-state=checking])")
    return tab, requests


def step_to(page, made, seq: int) -> None:
    n = next(i for i, f in enumerate(made["frames"]) if f["seq"] == seq)
    page.evaluate("n => { const s = document.getElementById('scrub'); s.value = n; s.dispatchEvent(new Event('input')); }", n)


def die_verdicts(page) -> list[str]:
    """The verdict of each die of the current step's roll (the current one of the operation)."""
    return page.eval_on_selector_all("#dice .roll.current + .checked-dice .checked", "els => els.map(e => e.dataset.status)")


def step_verdicts(page) -> list[str]:
    """The current step's verdicts (its line, its order, ...), each as the page writes it."""
    return page.eval_on_selector_all("#checked > .checked", "els => els.map(e => e.textContent)")


def verified_badges(page) -> list[str]:
    """Whatever says "verified" at the current step: its verdicts, its roll's badge (the frames'
    status) and the verdicts of that roll's dice."""
    return page.evaluate("""() => Array.from(document.querySelectorAll(
        '#checked .checked, #dice .roll.current, #dice .roll.current .verif, #dice .roll.current + .checked-dice .checked'))
        .filter(e => e.dataset.status === 'verified' || e.textContent === 'verified')
        .map(e => e.className + ': ' + e.textContent)""")


def test_the_offline_file_checks_its_log_and_shows_each_die_and_order(exports, tmp_path, open_tab, shots):
    x = exports["dice"]
    lines = x.lines()
    made, path = offline_file(tmp_path, "dice", lines)
    tab, requests = opened(open_tab, path)
    page = tab.page
    want = python_verify(x.text, None)
    assert page.get_attribute("#verify", "data-state") == "verified"
    assert page.text_content("#verify-summary").startswith("Verified: %d events" % want.events)
    assert page.text_content("#verify-report") == want.summary()  # what `warlog verify` prints
    assert page.text_content("#verify-brief") == "Checked in this browser: the log verifies."
    revealed = {line["data"]["epoch"] for line in lines if line["type"] == "DiceEpochRevealed"}
    for line in lines:
        if line["type"] != "DiceRolled":
            continue
        step_to(page, made, line["seq"])
        want_die = "verified" if line["data"]["epoch"] in revealed else "not yet revealed"
        assert die_verdicts(page) == [want_die] * len(line["data"]["dice"]), line["seq"]
        assert step_verdicts(page) == [f"log line {line['seq']}: verified"]
    order = next(line for line in lines if line["type"] == "OrderAccepted")
    step_to(page, made, order["seq"])
    assert step_verdicts(page) == [f"log line {order['seq']}: verified", "order: not signed: its seat registered no key"]
    assert page.text_content("#checked .hint") == "The step's text, map and VP are the server's reading of this line."
    assert page.is_hidden("#verify-steps")
    shoot(page, shots / "verify-offline-dice.png")
    assert requests == [path.as_uri()] and tab.errors == []


def test_a_step_that_does_not_show_the_checked_log_is_failed_not_marked_verified(exports, tmp_path, open_tab, shots):
    """The steps are the server's frames, the verdicts the browser's check of the export: a frame
    whose die, type or seq is not the log's (the log itself intact) is failed at that step and said
    under the title, not shown beside "verified" as if checked."""
    x = exports["dice"]
    lines = x.lines()
    made = replay.frames(lines, "umpire")
    roll = next(f for f in made["frames"] if f.get("dice"))
    real = roll["dice"]["faces"][0]
    roll["dice"]["faces"][0] = real % roll["dice"]["sides"][0] + 1  # the server narrates another face
    note = next(f for f in made["frames"] if f["type"] == "OrderAccepted")
    note["type"] = "OrderRejected"
    path = tmp_path / "doctored.html"
    path.write_text(replay.replay_html(made, log=replay.seen_log(lines, "umpire")), encoding="utf-8")
    tab, requests = opened(open_tab, path)
    page = tab.page
    assert page.get_attribute("#verify", "data-state") == "verified"  # the log is intact ...
    first = min(roll["seq"], note["seq"])
    assert page.text_content("#verify-steps").startswith(f"2 step(s) of this replay do not show the checked log (first: seq {first})")
    step_to(page, made, roll["seq"])  # ... the steps shown from the frames are not
    got = step_verdicts(page)
    sides = roll["dice"]["sides"]
    assert got[0] == f"this step: failed: shows dice d{sides[0]}={roll['dice']['faces'][0]}" + "".join(
        f" d{s}={f}" for s, f in zip(sides[1:], roll["dice"]["faces"][1:])) + f", log line {roll['seq']} has d{sides[0]}={real}" + \
        "".join(f" d{s}={f}" for s, f in zip(sides[1:], roll["dice"]["faces"][1:]))
    assert page.get_attribute("#checked > .checked", "data-status").startswith("failed")
    # The frames call this roll verified (its epoch is revealed): beside a step that is not the
    # checked log's line, no badge says so.
    assert roll["dice"]["status"] == "verified"
    assert verified_badges(page) == []
    assert page.get_attribute("#dice .roll.current", "data-status") == "failed"
    assert page.text_content("#dice .roll.current .verif") == "failed"
    shoot(page, shots / "verify-offline-doctored-frames.png")
    step_to(page, made, note["seq"])
    assert step_verdicts(page)[0] == f"this step: failed: shown as OrderRejected, log line {note['seq']} is OrderAccepted"
    assert verified_badges(page) == []
    step_to(page, made, next(f["seq"] for f in made["frames"] if f.get("dice") and f is not roll))
    assert verified_badges(page)  # a step that is the log's line keeps its verdicts
    assert requests == [path.as_uri()] and tab.errors == []


def test_the_offline_file_of_a_forged_die_names_the_line_and_fails_that_die(exports, tmp_path, open_tab, shots):
    x = exports["dice"]
    case = next(build(x) for name, _, build in tampers.CASES if name == "altered_die_rechained")
    lines = [json.loads(t) for t in case.text]
    made, path = offline_file(tmp_path, "forged", lines)
    tab, requests = opened(open_tab, path)
    page = tab.page
    want = python_verify(case.text, None)
    assert page.get_attribute("#verify", "data-state") == "failed"
    assert page.text_content("#verify-report") == want.summary()
    failures = page.eval_on_selector_all("#verify-failures li", "els => els.map(e => e.textContent)")
    assert failures == [f"line {n}: {why}" for n, why in want.failures]
    page.click(f"#verify-failures li[data-line='{case.line}'] a")  # the failure's link: to its step
    page.wait_for_function("seq => location.hash === '#seq=' + seq", arg=case.line)
    assert hash_seq(page) == case.line
    verdicts = die_verdicts(page)
    assert verdicts[0].startswith("failed: die nonce") and "but the revealed seed gives" in verdicts[0]
    assert verdicts[1:] == [] or all(v == "verified" for v in verdicts[1:])
    assert "does NOT verify" in page.text_content("#verify-brief")
    shoot(page, shots / "verify-offline-forged.png")
    no_horizontal_scroll(page)
    assert requests == [path.as_uri()] and tab.errors == []


def test_a_seats_offline_file_says_that_only_its_hidden_lines_fail(exports, tmp_path, open_tab):
    x = exports["seat_copy"]
    lines = x.lines()  # Red's copy: Blue's private note redacted
    made, path = offline_file(tmp_path, "seat", lines, viewer="Red", log=lines)
    tab, requests = opened(open_tab, path)
    assert tab.page.get_attribute("#verify", "data-state") == "failed"
    assert tab.page.is_visible("#verify-redacted")
    assert tab.page.is_hidden("#verify-steps")  # a redacted line is still the line its step shows
    assert requests == [path.as_uri()] and tab.errors == []


def test_the_offline_file_checks_a_pasted_kept_head(exports, tmp_path, open_tab):
    x = exports["signed"]
    lines = x.lines()
    made, path = offline_file(tmp_path, "signed", lines, server_key=x.server_key)
    tab, requests = opened(open_tab, path)
    page = tab.page
    assert page.get_attribute("#verify", "data-state") == "verified"
    statuses = page.eval_on_selector_all("#verify-orders tr", "els => els.map(e => [e.children[1].textContent, e.children[3].textContent])")
    assert statuses == [["o-1", "verified"], ["o-2", "verified"], ["r-1", "not signed: its seat registered no key"]]
    page.click("#verify-head-box summary")
    assert page.input_value("#verify-server-key") == x.server_key
    page.fill("#verify-head", json.dumps(x.head))
    page.click("#verify-head-check")
    page.wait_for_selector("#verify-head-result.ok")
    page.fill("#verify-head", json.dumps({**x.head, "hash": "b" * 64}))
    page.click("#verify-head-check")
    page.wait_for_selector("#verify-head-result.failed")
    assert "the head's signature is not the server key's" in page.text_content("#verify-head-result")
    assert requests == [path.as_uri()] and tab.errors == []


def test_the_offline_file_of_a_format2_game_shows_its_sealed_roll_and_concealed_fields(tmp_path, open_tab, shots):
    x = format2.exports()["f2_full"]
    lines = format2.lines_of(x)
    made, path = offline_file(tmp_path, "format2", lines, log=lines, server_key=x.server_key)
    tab, requests = opened(open_tab, path)
    page = tab.page
    assert page.get_attribute("#verify", "data-state") == "verified", page.text_content("#verify-report")
    assert "5 concealed field(s) opened, 0 still concealed" in page.text_content("#verify-summary")
    sealed = next(one["seq"] for one in lines if one["type"] == "SealedDiceRolled")
    step_to(page, made, sealed)
    # The umpire's replay shows the sealed roll's dice (frames of a finished game): each one checked.
    sealed_roll = next(one for one in lines if one["type"] == "SealedDiceRolled")
    shown = next(f for f in made["frames"] if f["seq"] == sealed)
    if shown.get("dice"):
        assert die_verdicts(page) == ["verified"] * len(sealed_roll["data"]["dice"])
    else:
        assert page.eval_on_selector_all("#checked .checked-dice .checked", "els => els.map(e => e.dataset.status)") == \
            ["verified"] * len(sealed_roll["data"]["dice"])
    roll = next(one for one in lines if one["type"] == "DiceRolled")
    step_to(page, made, roll["seq"])
    assert die_verdicts(page) == ["verified"] * len(roll["data"]["dice"])
    assert page.is_hidden("#verify-steps")  # every step shows its line of the log
    shoot(page, shots / "verify-offline-format2.png")
    assert requests == [path.as_uri()] and tab.errors == []


def test_a_served_offline_file_checks_its_log_in_its_sandbox(exports, tmp_path, open_tab):
    """Served by the API, the file runs sandboxed (ARTIFACT_CSP: an origin of its own): WebCrypto
    is still there, so the check still runs."""
    from api.jobs import ARTIFACT_CSP

    x = exports["sealed"]
    made, path = offline_file(tmp_path, "sealed", x.lines())
    url = "http://127.0.0.1:9/api/v1/games/g/replays/latest"
    tab = open_tab()
    tab.page.route(url, lambda route: route.fulfill(status=200, body=path.read_bytes(), headers={
        "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": ARTIFACT_CSP}))
    tab.goto(url)
    tab.page.wait_for_selector("#verify:not([data-state=checking])")
    assert tab.page.get_attribute("#verify", "data-state") == "verified"
    reveal = next(line for line in x.lines() if line["type"] == "OrderRevealed")
    step_to(tab.page, made, reveal["seq"])
    assert "sealed orders: verified" in tab.page.text_content("#checked")
    assert tab.errors == []


def test_the_live_replay_page_checks_the_callers_export_and_the_kept_head(server, open_tab, shots):
    created = unjoined_game(server)
    game_id = created["game_id"]
    key = signatures.new_private_key()
    _, _, blue = http_json("POST", f"{server}/api/v1/games/{game_id}/join", {
        "invite_code": created["invites"]["Blue"], "handle": "alice", "public_key": signatures.public_key_of(key)})
    _, _, red = http_json("POST", f"{server}/api/v1/games/{game_id}/join",
                          {"invite_code": created["invites"]["Red"], "handle": "bob"})
    head, kept = red["chain_head"], None
    for n, order in enumerate([{"kind": "roll", "dice": "2d6", "purpose": "barrage"}, {"kind": "note", "text": "é"}]):
        status, _, result = http_json("POST", f"{server}/api/v1/games/{game_id}/orders", order, headers={
            "Authorization": f"Bearer {blue['token']}", "Idempotency-Key": f"o-{n}", "Warlog-Head": head,
            "Warlog-Signature": signatures.sign_order(key, game_id, f"o-{n}", order, head)})
        assert status == 201, result
        head, kept = result["chain_head"], result["signed_head"]
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/orders",
                             {"kind": "end", "winner": "Blue", "reason": "done"},
                             headers={"Authorization": f"Bearer {red['token']}", "Idempotency-Key": "r-end"})
    assert status == 201
    status, headers, exported = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                          headers={"Authorization": f"Bearer {blue['token']}"})
    text = exported.splitlines()  # export v2: its header line names the server key
    assert text[0] == header_line(headers["Warlog-Server-Key"], 2)
    want = python_verify(text, kept)
    # Games made now are format 2; until they record its dice in full (DiceCommitted, spec34
    # section 2) the browser, which checks them as the spec says, cannot verify their dice.
    complete = '"format":2' not in text[1] or any('"DiceCommitted"' in t for t in text)

    tab = open_tab()
    page = tab.page
    page.goto(f"{server}/")
    page.evaluate("([id, token, head]) => Warlog.keys.update(id, k => { k.seats = {Blue: token}; k.active = 'Blue';"
                  " k.signed_head = head; })", [game_id, blue["token"], kept])
    tab.goto(f"{server}/games/{game_id}/replay")
    page.wait_for_selector("#verify:not([data-state=checking])")
    if complete:
        assert page.get_attribute("#verify", "data-state") == "verified", page.text_content("#verify-report")
        assert page.text_content("#verify-report").splitlines()[0] == want.summary().splitlines()[0]
    assert want.ok  # the signatures, the kept head and the chain hold in `warlog verify` ...
    chain_or_signatures = ("hash does not match", "prev_hash", "seq ", "signature", "signed", "kept head")
    assert not [why for why in page.eval_on_selector_all(  # ... and in the page, whatever it says of the dice
        "#verify-failures li", "els => els.map(e => e.textContent)") if any(w in why for w in chain_or_signatures)]
    assert "2 signed order(s) verified" in page.text_content("#verify-summary")
    assert json.loads(page.input_value("#verify-head")) == kept  # the head the game page kept, checked with the log
    statuses = page.eval_on_selector_all("#verify-orders tr", "els => els.map(e => e.children[3].textContent)")
    assert statuses == ["verified", "verified", "not signed: its seat registered no key"]
    page.keyboard.press("End")
    page.keyboard.press("Home")
    roll = page.eval_on_selector_all("#history li.has-dice", "els => els.map(e => +e.dataset.seq)")[0]
    page.locator(f'#history li[data-seq="{roll}"] button').click()
    assert len(die_verdicts(page)) == 2 and (not complete or die_verdicts(page) == ["verified", "verified"])
    assert page.is_hidden("#verify-steps")  # Blue's frames are Blue's export, step by step
    shoot(page, shots / "verify-live.png")
    # A head the server never signed: the page says so.
    page.click("#verify-head-box summary")
    page.fill("#verify-head", json.dumps({**kept, "seq": kept["seq"] - 1}))
    page.click("#verify-head-check")
    page.wait_for_selector("#verify-head-result.failed")
    assert tab.errors == []


def test_the_live_page_fails_a_step_whose_frame_is_not_the_verified_export(server, open_tab):
    """The live page's steps come from GET …/frames, its verdicts from the export it checked: a
    frames answer that narrates another face than the export's is failed at that step."""
    created = unjoined_game(server)
    game_id = created["game_id"]
    _, _, blue = http_json("POST", f"{server}/api/v1/games/{game_id}/join",
                           {"invite_code": created["invites"]["Blue"], "handle": "alice"})
    http_json("POST", f"{server}/api/v1/games/{game_id}/join", {"invite_code": created["invites"]["Red"], "handle": "bob"})
    status, _, _ = http_json("POST", f"{server}/api/v1/games/{game_id}/orders",
                             {"kind": "roll", "dice": "d6", "purpose": "barrage"},
                             headers={"Authorization": f"Bearer {blue['token']}", "Idempotency-Key": "o-1"})
    assert status == 201
    doctored: list[int] = []

    def other_face(route):
        answer = route.fetch()
        body = answer.json()
        frame = next(f for f in body["frames"] if f.get("dice"))
        frame["dice"]["faces"][0] = frame["dice"]["faces"][0] % 6 + 1
        doctored.append(frame["seq"])
        route.fulfill(response=answer, body=json.dumps(body))

    tab = open_tab()
    page = tab.page
    page.goto(f"{server}/")
    page.evaluate("([id, token]) => Warlog.keys.update(id, k => { k.seats = {Blue: token}; k.active = 'Blue'; })",
                  [game_id, blue["token"]])
    page.route(f"{server}/api/v1/games/{game_id}/frames*", other_face)
    tab.goto(f"{server}/games/{game_id}/replay")
    page.wait_for_selector("#verify:not([data-state=checking])")
    page.wait_for_selector("#verify-steps:not([hidden])")
    assert doctored and page.text_content("#verify-steps").startswith(
        f"1 step(s) of this replay do not show the checked log (first: seq {doctored[0]})")
    page.locator(f'#history li[data-seq="{doctored[0]}"] button').click()
    got = step_verdicts(page)
    assert got[0].startswith("this step: failed: shows dice d6=") and f", log line {doctored[0]} has d6=" in got[0]
    assert verified_badges(page) == []
    assert tab.errors == []


def _roll(server, game_id: str, token: str, key: str) -> dict:
    """A seat rolls a d6 over the API (Idempotency-Key ``key``): the command's result."""
    status, _, result = http_json("POST", f"{server}/api/v1/games/{game_id}/orders",
                                  {"kind": "roll", "dice": "d6", "purpose": "barrage"},
                                  headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})
    assert status == 201, result
    return result


def _replay_with_a_move_between_its_reads(server, open_tab, stale_reads: int):
    """The live replay of a game whose log this page reads (GET …/export) before Blue's second
    roll lands and whose frames it reads after: the first ``stale_reads`` export reads answer the
    log as it was before the roll, the later ones as it is. Returns the tab, the version before the
    roll, the version after it and the export reads made."""
    game_id, _, tokens = freeform_game(server)
    before = _roll(server, game_id, tokens["Blue"], "o-1")["version"]
    status, _, stale = http_json("GET", f"{server}/api/v1/games/{game_id}/export",
                                 headers={"Authorization": f"Bearer {tokens['Blue']}"})
    assert status == 200
    after = _roll(server, game_id, tokens["Blue"], "o-2")["version"]  # the move lands: the frames read below has it, the stale log read not
    reads: list[int] = []

    def export(route):
        reads.append(len(reads) + 1)
        if len(reads) > stale_reads:
            route.continue_()
            return
        answer = route.fetch()
        route.fulfill(response=answer, body=stale)

    tab = tab_with_keys(open_tab, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue"})
    tab.page.route(f"{server}/api/v1/games/{game_id}/export*", export)
    tab.goto(f"{server}/games/{game_id}/replay")
    return tab, before, after, reads


def test_a_move_landing_between_the_live_pages_two_reads_fails_no_step(server, open_tab):
    """The live page reads its steps (GET …/frames) and the log it checks (GET …/export) apart: a
    move landing between the two reads gave frames newer than the log checked, and the newest
    steps, those of the move, were failed ("the checked log has no log line N") on an honest
    server. The page now reads the log again when its steps outrun it, after both answers came, so
    the log read covers them."""
    tab, before, after, reads = _replay_with_a_move_between_its_reads(server, open_tab, stale_reads=1)
    page = tab.page
    page.wait_for_selector(f"#verify[data-state=verified] #verify-summary:text-matches('^Verified: {after} events')")
    assert reads == [1, 2] and before < after
    assert page.is_hidden("#verify-steps")
    page.keyboard.press("End")
    assert step_verdicts(page)[0] == f"log line {after}: verified"
    assert tab.errors == []


def test_a_live_log_that_still_lacks_the_steps_when_read_again_fails_them(server, open_tab):
    """The log is read again once: a server whose export still lacks the steps its frames show is
    failed at those steps, as before."""
    tab, before, after, reads = _replay_with_a_move_between_its_reads(server, open_tab, stale_reads=2)
    page = tab.page
    page.wait_for_selector("#verify-steps:not([hidden])")
    assert reads == [1, 2]
    assert page.text_content("#verify-steps").startswith(
        f"{after - before} step(s) of this replay do not show the checked log (first: seq {before + 1}): "
        f"the checked log has no log line {before + 1}")
    page.keyboard.press("End")
    assert step_verdicts(page) == [f"this step: failed: the checked log has no log line {after}"]
    assert tab.errors == []


def test_a_head_kept_while_the_live_log_is_read_is_not_held_against_that_log(server, open_tab):
    """The live page read the signed head this browser keeps after the export's answer came: a move
    made meanwhile in another tab (the game page keeps its new head) gave a head newer than the log
    read, and an honest log failed "the log was cut short". The head is now read before the log."""
    game_id, _, tokens = freeform_game(server)
    first = _roll(server, game_id, tokens["Blue"], "o-1")["signed_head"]
    status, _, frames = http_json("GET", f"{server}/api/v1/games/{game_id}/frames",
                                  headers={"Authorization": f"Bearer {tokens['Blue']}"})
    assert status == 200
    later: list[dict] = []

    def export(route):
        answer = route.fetch()  # the log as it is now; then Blue rolls on the game page of another tab
        later.append(_roll(server, game_id, tokens["Blue"], "o-2")["signed_head"])
        page.evaluate("([id, head]) => Warlog.keys.update(id, k => { k.signed_head = head; })", [game_id, later[0]])
        route.fulfill(response=answer)

    tab = tab_with_keys(open_tab, game_id, {"seats": {"Blue": tokens["Blue"]}, "active": "Blue", "signed_head": first})
    page = tab.page
    page.route(f"{server}/api/v1/games/{game_id}/frames*",  # the steps as read before that roll too
               lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(frames)))
    page.route(f"{server}/api/v1/games/{game_id}/export*", export)
    tab.goto(f"{server}/games/{game_id}/replay")
    page.wait_for_selector("#verify:not([data-state=checking])")
    assert later and later[0]["seq"] > first["seq"]
    assert page.get_attribute("#verify", "data-state") == "verified", page.text_content("#verify-report")
    assert json.loads(page.input_value("#verify-head")) == first
    assert tab.errors == []
