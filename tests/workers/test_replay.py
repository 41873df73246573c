"""Replays as pure functions over a real game's log (SQLite): one frame per event, boundaries,
the viewer's filter, and an HTML page that works offline, made of the live replay page's own
markup, replay.js and board.js; for Falklands Showdown, a complete game played with random legal
orders, whose offline page draws the map with the live pages' board.js."""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import subprocess
from pathlib import Path
from uuid import UUID

import pytest

from api.app import create_app, migrate
from domain.errors import InvalidOrder, RuleViolation
from domain.game import Game
from domain.rulesets import find_ruleset
from domain.rulesets.falklands import play as fs_play
from domain.service import Warlog
from domain.verify import to_line
from tests.browser.helpers import operation_ends, operation_starts
from tests.conftest import make_app
from workers import replay

DOM = Path(__file__).with_name("replay_dom.js")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def play(app, orders: int = 30) -> str:
    gid = app.create_game("freeform", options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]}).game_id
    app.join(gid, "Blue", "b", "x")
    app.join(gid, "Red", "r", "y")
    for n in range(1, orders + 1):
        k = n % 7
        order = ({"kind": "advance"} if k == 0 else
                 {"kind": "vp", "side": "Blue" if n % 2 else "Red", "delta": 1, "reason": "objective"} if k == 3 else
                 {"kind": "note", "text": "SECRET-PLAN", "private": True} if k == 5 else
                 {"kind": "roll", "dice": "d66" if k == 6 else "2d6", "purpose": "fire",
                  "target": {"compare": ">=", "value": 40 if k == 6 else 7}})
        app.submit_order(gid, "Blue" if n % 2 else "Red", f"o{n}", order)
    app.submit_order(gid, "Blue", "end", {"kind": "end", "winner": "Blue", "reason": "time"})
    return gid


@pytest.fixture
def game(sqlite_config):
    app = make_app(sqlite_config)
    gid = play(app)
    yield app.lines(gid)
    app.close()


def test_one_frame_per_event_with_the_state_after_it(game):
    made = replay.frames(game, "umpire")
    assert [f["seq"] for f in made["frames"]] == [line["seq"] for line in game]
    last = made["states"][made["frames"][-1]["state"]]
    assert last["ended"]["winner"] == "Blue" and last["turn"] == 3
    vp_seqs = [line["seq"] for line in game if line["type"] == "VPScored"]
    assert made["frames"][vp_seqs[0] - 1]["vp"]["Blue"] + made["frames"][vp_seqs[0] - 1]["vp"]["Red"] == 1


def test_boundaries_are_marked(game):
    frames = replay.frames(game, "umpire")["frames"]
    turns = [f["seq"] for f in frames if "turn" in f["marks"]]
    assert turns == [line["seq"] for line in game if line["type"] == "TurnAdvanced"]
    phases = [f["seq"] for f in frames if "phase" in f["marks"]]
    assert phases == [line["seq"] for line in game if line["type"] in ("TurnAdvanced", "PhaseAdvanced")]
    ops = [f["seq"] for f in frames if "operation" in f["marks"]]
    assert ops == [line["seq"] for line in game if line["type"] in ("GameCreated", "SeatJoined", "OrderAccepted")]
    assert [f["operation"] for f in frames] == sorted(f["operation"] for f in frames)


def test_dice_of_a_step_with_their_verification(game):
    frames = replay.frames(game, "umpire")["frames"]
    rolled = [f for f in frames if f["type"] == "DiceRolled"]
    assert rolled and all(f["dice"]["status"] == "verified" for f in rolled)  # the game ended: all revealed
    assert any(f["dice"]["notation"] == "d66" for f in rolled)


def test_the_public_replay_hides_private_notes_and_reports_progress(game):
    seen = []
    public = replay.frames(game, None, progress=lambda done, total: seen.append((done, total)), every=10)
    assert "SECRET-PLAN" not in json.dumps(public)
    assert "SECRET-PLAN" in json.dumps(replay.frames(game, "umpire"))
    assert seen[-1] == (len(game), len(game)) and len(seen) >= len(game) // 10
    assert public["viewer"] == "public"


def embedded(html: str, script_id: str):
    return json.loads(re.search(rf'<script type="application/json" id="{script_id}">(.*?)</script>', html, re.S).group(1))


def assert_self_contained(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert not re.search(r"\s(src|href)\s*=", html, re.I)  # nothing loaded, not even from this host
    assert "<link" not in html and "@import" not in html
    assert re.findall(r"url\((.)", html) == ["#"] * html.count("url(")  # only board.js's arrow marker, in the page
    assert "content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'\"" in html
    # the live replay page's own markup, script, drawing code and CSS, inlined verbatim: one implementation
    assert set(replay.STATIC) == {"common.js", "board.js", "replay.js", "warlog.css"}
    for name in replay.STATIC:
        assert replay.static_text(name) in html
    assert replay.replay_body() in html and 'id="state-box"' in replay.replay_body()
    assert html.count("<script") == 7  # the frames, the board, common.js, board.js, replay.js, the log, the verifier
    assert replay.verifier_module() in html  # the browser's verifier, api/static/verify/ (docs/pages.md)


def test_the_html_page_is_self_contained(game):
    html = replay.replay_html(replay.frames(game, None))
    assert_self_contained(html)
    assert len(embedded(html, "replay")["frames"]) == len(game)
    assert embedded(html, "board-data") is None  # freeform has no map
    assert 'id="cursor"' in embedded(html, "replay")["vp_chart"]  # the VP chart with its step marker


def test_the_offline_page_has_the_live_replay_pages_markup(sqlite_config):
    """The live page and the offline file show one partial (api/templates/pages/replay_body.html);
    only the offline file adds the state as JSON under the map."""
    migrate(sqlite_config)
    service = Warlog(sqlite_config)
    try:
        client = create_app({"WARLOG_SERVICE": service, "TESTING": True}).test_client()
        page = client.get(f"/games/{UUID(int=1)}/replay").get_data(as_text=True)
    finally:
        service.close()
    main = '<main id="main" tabindex="-1">'
    live = page[page.index(main) + len(main):page.index("</main>")]
    offline = re.sub(r'<details class="state-box".*?</details>', "", replay.replay_body(), flags=re.S)
    assert " ".join(live.split()) == " ".join(offline.split())
    assert 'id="state-box"' in replay.replay_body() and 'id="state-box"' not in live


def test_hostile_text_cannot_break_out_of_the_embedded_json(sqlite_config):
    app = make_app(sqlite_config)
    gid = app.create_game("freeform", options={"sides": ["Blue", "Red"]}).game_id
    app.join(gid, "Blue", "</script><script>alert(1)</script>@@BODY@@<!--", "x")
    lines = app.lines(gid)
    html = replay.replay_html(replay.frames(lines, None), log=lines)
    app.close()
    assert "<script>alert(1)" not in html and html.count("</script>") == 7 and "<!--" not in html
    assert html.count('id="controls"') == 1  # a placeholder in the log is not substituted
    joined = next(f for f in embedded(html, "replay")["frames"] if f["type"] == "SeatJoined")
    assert joined["text"].startswith("</script><script>alert(1)</script>@@BODY@@<!--")
    at = next(i for i, line in enumerate(lines) if line["type"] == "SeatJoined")
    assert embedded(html, "export-log")["text"].splitlines()[at] == json.dumps(lines[at], sort_keys=True, separators=(",", ":"),
                                                                              ensure_ascii=False)


def test_a_static_file_that_could_end_its_element_is_refused(monkeypatch):
    class Files:
        def joinpath(self, *parts):
            return self

        def read_text(self, encoding):
            return "var s = '</SCRIPT>';"

    replay.static_text.cache_clear()
    monkeypatch.setattr(replay.resources, "files", lambda package: Files())
    try:
        with pytest.raises(ValueError, match="cannot be inlined"):
            replay.static_text("board.js")
    finally:
        replay.static_text.cache_clear()


def run_page(html: str, tmp_path: Path, presses: list[str]) -> tuple[list[dict], list[dict]]:
    """What the page shows after each press (the first: as opened), and the states its replay.js rebuilt."""
    page = tmp_path / "replay.html"
    page.write_text(html, encoding="utf-8")
    out = subprocess.run(["node", str(DOM), str(page), json.dumps(presses)],
                         capture_output=True, text=True, timeout=120, check=True)
    shown = json.loads(out.stdout)
    return shown["seen"], shown["states"]


def expected_positions(frames: list[dict], presses: list[str]) -> list[int]:
    """Where each press should land, by the replay's own definition of its steps: forward to the
    next frame with the mark; back to the start of the current phase or turn, or of the one before
    when already there; an operation step to the last frame of the next operation, or of the one
    before the current frame (docs/pages.md, ``operation_ends``)."""
    ends = operation_ends(frames)
    def find(at, step, mark):
        n = at + step
        while 0 <= n < len(frames):
            if mark in frames[n]["marks"]:
                return n
            n += step
        return len(frames) - 1 if step > 0 else 0

    def back(at, mark):
        start = at
        while start > 0 and mark not in frames[start]["marks"]:
            start -= 1
        return start if start < at else find(at, -1, mark)

    keys = {"ArrowRight": "next", "ArrowLeft": "prev", "ArrowRight+shift": "next-op", "ArrowLeft+shift": "prev-op",
            "ArrowDown+shift": "next-phase", "ArrowUp+shift": "prev-phase", "PageDown": "next-turn",
            "PageUp": "prev-turn", "Home": "first", "End": "last"}
    at, out = 0, [0]
    for press in presses:
        press = keys[press[4:]] if press.startswith("key:") else press
        kind, _, arg = press.partition(":")
        if kind in ("jump", "log"):
            at = int(arg)
        elif kind in ("first", "last"):
            at = 0 if kind == "first" else len(frames) - 1
        elif kind in ("next", "prev"):
            at = at + (1 if kind == "next" else -1)
        elif kind == "next-op":
            at = min([e for e in ends if e > at] or [len(frames) - 1])
        elif kind == "prev-op":
            at = max([e for e in ends if e < at] or [0])
        else:
            way, mark = kind.split("-")
            at = find(at, 1, mark) if way == "next" else back(at, mark)
        at = max(0, min(len(frames) - 1, at))
        out.append(at)
    return out


STEPS = ["next", "next-op", "next-turn", "next-turn", "prev-turn", "prev-turn", "prev-op", "prev-op", "prev",
         "next-phase", "next-phase", "prev-phase", "last", "key:ArrowLeft", "key:ArrowLeft+shift", "key:PageUp",
         "key:ArrowDown+shift", "key:Home", "key:End", "first", "jump:10", "log:4"]


@needs_node
def test_the_page_steps_through_the_game(game, tmp_path):
    """The live pages' replay.js with common.js and board.js, as inlined, run by node against a
    stand-in DOM: every button, key, the slider and the history lines move to the frame they
    promise, and the address follows (#seq=N)."""
    made = replay.frames(game, "umpire")
    frames = made["frames"]
    rolled = [i for i, f in enumerate(frames) if "dice" in f]
    presses = STEPS + [f"jump:{rolled[0]}", f"log:{rolled[-1]}"]
    seen, states = run_page(replay.replay_html(made), tmp_path, presses)
    assert states == json.loads(json.dumps(made["states"]))
    at = [s["scrub"] for s in seen]
    assert at == expected_positions(frames, presses)
    turns = [i for i, f in enumerate(frames) if "turn" in f["marks"]]
    assert at[:2] == [0, 1] and at[3:5] == [turns[0], turns[1]]  # event, (operation), turn, turn
    assert at[2] == min(e for e in operation_ends(frames) if e > 1)  # the end of the operation after
    assert seen[0]["line"].startswith("Game created") and seen[len(STEPS)]["line"].startswith(frames[4]["text"])
    assert "Turn 2" in seen[3]["where"] and "new turn" in seen[3]["marks"]
    starts = operation_starts(frames)
    for shown, n in zip(seen, at):
        f = frames[n]
        assert shown["line"].startswith(f["text"]) and shown["current"] == [f["seq"]]
        assert shown["hash"] == f"#seq={f['seq']}"
        assert shown["pos"] == f"Event {n + 1} of {len(frames)} · seq {f['seq']}"
        # the operation mark in the game's own word (a freeform order; docs/pages.md, "Steps")
        assert shown["marks"] == ["new " + (made["unit_of_play"] if m == "operation" else m) for m in f["marks"]]
        # the dice of the current operation so far: a freeform roll is its own operation's last line
        op_dice = [g["dice"]["faces"] for g in frames[starts[n]:n + 1] if "dice" in g]
        assert shown["dice"] == len(op_dice) and shown["faces"] == [str(v) for faces in op_dice for v in faces]
        assert shown["map"]["noMap"] == "This game has no map: its story is in the log and the dice."
        assert shown["map"]["areas"] == [] and shown["map"]["counters"] == []
    assert seen[-2]["dice"] == 1 and seen[-1]["dice"] == 1
    assert seen[-1]["cursor"] is not None


@needs_node
def test_the_page_rebuilds_every_state_from_its_deltas(game, tmp_path):
    """The page stores each state as its change from the one before; its replay.js rebuilds them
    exactly: keys added and dropped at both levels, a dict that becomes a list, 1 that becomes
    true (equal in Python, not in JSON), and keys such as "__proto__" kept as data."""
    made = replay.frames(game, None)
    kinds = [
        {"a": 1, "units": {"x": {"at": "s1"}, "y": {"at": "s2"}}, "__proto__": {"z": 1}, "vp": {"__proto__": 1}},
        {"a": True, "units": {"x": {"at": "s3"}}, "__proto__": {"z": 2}, "vp": {"__proto__": 2}, "new": [1]},
        {"units": [], "new": {"k": None}, "vp": {"__proto__": 2, "constructor": 0}},
        {"units": {"x": 1}, "new": {"k": None, "j": {"deep": [1, 2]}}, "vp": {}},
    ]
    made["states"] = [kinds[n % len(kinds)] for n in range(len(made["states"]))]
    deltas = replay.state_deltas(made["states"])
    assert deltas[0] == kinds[0] and deltas[1] == {
        "set": {"a": True, "new": [1]},
        "patch": {"units": {"set": {"x": {"at": "s3"}}, "drop": ["y"]}, "__proto__": {"set": {"z": 2}},
                  "vp": {"set": {"__proto__": 2}}}}
    assert deltas[2]["drop"] == ["a", "__proto__"] and deltas[2]["set"] == {"units": [], "new": {"k": None}}
    _, rebuilt = run_page(replay.replay_html(made), tmp_path, [])
    assert [json.dumps(x, sort_keys=True) for x in rebuilt] == [json.dumps(x, sort_keys=True) for x in made["states"]]


# ---------------------------------------------------------------------- Falklands Showdown ----

def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"replay-fs-{epoch}".encode()).digest()


def falklands_game(n: int, uk_operations: int = 6) -> list[dict]:
    """A complete game of Falklands Showdown, both sides playing random legal orders
    (domain/rulesets/falklands/play.py, as the fuzzer does), as export lines."""
    rng = random.Random(n)
    g = Game.create("falklands", options={"uk_operations": uk_operations}, game_id=UUID(int=n + 1), seed_for=seed_for)
    g.join("UK", "uk", f"u{n}", seed_for)
    g.join("AR", "ar", f"a{n}", seed_for)
    accepted = 0
    while not g.is_ended:
        seat = g.whose_move()[0]
        for order in fs_play.candidates(g.rules, g.state, seat, rng):
            try:
                g.submit(seat, f"o{accepted}", order, seed_for)
            except (RuleViolation, InvalidOrder):
                continue
            accepted += 1
            break
        else:
            raise AssertionError(f"no candidate order was accepted for {seat} in {g.state['phase']}")
        assert accepted < 2000, "the game does not end"
    return [to_line(e) for e in g.pending_events]


def placed(board: dict, state: dict) -> dict[str, str]:
    """The units board.js draws as counters on a map: unit -> area."""
    return {u: x["location"] for u, x in state["units"].items()
            if not x.get("eliminated") and not x.get("aboard") and x.get("location") in board["areas"]}


def reduced(board: dict, state: dict) -> set[str]:
    return {u for u in placed(board, state) if state["units"][u]["steps"] < board["units"][u]["steps"]}


@pytest.fixture(scope="module")
def falklands():
    """The first of a few seeded games that ends with a unit on the map that lost a step (a Hit
    marker to draw); its public replay and the ruleset's board."""
    board = find_ruleset("falklands").board()
    for n in range(12):
        lines = falklands_game(n)
        made = replay.frames(lines, None)
        if any(reduced(board, made["states"][f["state"]]) for f in made["frames"]):
            return lines, made, board
    raise AssertionError("none of 12 random games of Falklands Showdown left a unit with a Hit marker")


def test_a_falklands_replay_embeds_the_rulesets_board(falklands):
    lines, made, board = falklands
    assert made["states"][made["frames"][-1]["state"]]["ended"]["winner"] in ("UK", "AR")  # a complete game
    assert [f["seq"] for f in made["frames"]] == [line["seq"] for line in lines]  # nothing hidden from the public
    html = replay.replay_html(made)
    assert_self_contained(html)
    assert embedded(html, "board-data") == json.loads(json.dumps(board))
    assert set(board["maps"]) == {"strategic", "tactical"} and len(board["areas"]) >= 15
    data = embedded(html, "replay")
    assert "states" not in data and data["state_deltas"] == json.loads(json.dumps(replay.state_deltas(made["states"])))
    # The replay's data, not the whole page, whose inlined scripts and styles grow with the pages.
    stored = re.search(r'<script type="application/json" id="replay">(.*?)</script>', html, re.S).group(1)
    assert len(stored) < 3 * len(json.dumps(lines)), "the page stores each state's change, not every state"


@needs_node
def test_the_offline_falklands_replay_draws_the_map_at_every_step(falklands, tmp_path):
    """board.js, inlined, draws every area by its polygon on both maps and every unit on the map as a
    counter with its abbreviation, steps and Hit marker, ships carrying units with +N, and what the
    current operation moved highlighted: the same drawing as the live replay page."""
    _, made, board = falklands
    frames, states = made["frames"], made["states"]
    hit_at = next(i for i, f in enumerate(frames) if reduced(board, states[f["state"]]))
    moved_at = next(i for i, f in enumerate(frames[1:], start=1)  # a unit moved to another area on the map
                    if any(states[frames[i - 1]["state"]]["units"][u]["location"] not in (None, area)
                           for u, area in placed(board, states[f["state"]]).items()))
    presses = ["next-turn", "next-op", f"jump:{moved_at}", f"jump:{hit_at}", "next-turn", "last", "prev-op", "first"]
    seen, rebuilt = run_page(replay.replay_html(made), tmp_path, presses)
    assert rebuilt == json.loads(json.dumps(states))  # every state, rebuilt from the page's deltas
    at = [s["scrub"] for s in seen]
    assert at == expected_positions(frames, presses)
    lit_somewhere = False
    for shown, n in zip(seen, at):
        state, m = states[frames[n]["state"]], shown["map"]
        assert shown["line"].startswith(frames[n]["text"]) and m["noMap"] is None
        assert sorted(m["maps"]) == ["strategic", "tactical"]
        assert sorted(m["areas"]) == sorted(board["areas"])
        where = placed(board, state)
        counters = {c["unit"]: c for c in m["counters"]}
        assert len(m["counters"]) == len(counters) and set(counters) == set(where)
        for u, c in counters.items():
            assert c["abbr"] == board["units"][u]["abbr"][:7] and c["steps"] == state["units"][u]["steps"]
            assert c["hit"] == (u in reduced(board, state)), u
            riders = [r for r, x in state["units"].items() if x.get("aboard") == u and not x.get("eliminated")]
            assert c["aboard"] == (f"+{len(riders)}" if riders else ""), u
        # what moved since the current operation began is marked, with an arrow on its map
        start = operation_starts(frames)[n]
        before = states[frames[start]["state"]]["units"]
        moved = {u for u, x in state["units"].items()
                 if x.get("location") and x.get("location") != (before.get(u) or {}).get("location")}
        assert {u for u, c in counters.items() if c["moved"]} == moved & set(counters)
        assert set(m["arrows"]) <= moved
        lit_somewhere |= bool(m["lit"])
    assert any(c["hit"] for c in seen[4]["map"]["counters"])  # seen[0] is the page as opened
    assert any(c["moved"] for c in seen[3]["map"]["counters"])
    assert lit_somewhere
    assert any(c["aboard"] for s in seen for c in s["map"]["counters"])


def test_building_a_replay_needs_the_games_first_line(falklands):
    lines, _, _ = falklands
    with pytest.raises(ValueError, match="GameCreated"):
        replay.frames(lines[1:], None)


def taken_back_game(app) -> tuple[str, list[dict]]:
    """A freeform game in which Red's roll is taken back and played again: its id and its log."""
    gid = app.create_game("freeform", options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]}).game_id
    app.join(gid, "Blue", "b", "x")
    app.join(gid, "Red", "r", "y")
    app.submit_order(gid, "Blue", "o1", {"kind": "note", "text": "Blue digs in"})
    app.submit_order(gid, "Red", "o2", {"kind": "roll", "dice": "2d6", "purpose": "shells the ridge"})
    app.request_take_back(gid, "Red", "wrong target")
    app.answer_take_back(gid, "Blue", True)
    app.submit_order(gid, "Red", "o3", {"kind": "roll", "dice": "2d6", "purpose": "shells the wood"})
    return gid, app.lines(gid)


def test_the_lines_of_an_order_taken_back_are_marked_superseded_as_its_dice_are(sqlite_config):
    app = make_app(sqlite_config)
    try:
        _, lines = taken_back_game(app)
    finally:
        app.close()
    frames = replay.frames(lines, None)["frames"]
    accepted = next(line for line in lines if line["type"] == "TakeBackAccepted")["data"]
    span = range(accepted["superseded_from"], accepted["superseded_to"] + 1)
    assert len(span) >= 2  # the order and its roll
    assert [f["seq"] for f in frames if f["superseded"]] == list(span)
    first_roll, second_roll = [f for f in frames if f["type"] == "DiceRolled"]
    assert first_roll["superseded"] and first_roll["dice"]["superseded"]
    assert not second_roll["superseded"] and not second_roll["dice"]["superseded"]


def test_the_vp_track_is_filtered_once_per_change_not_once_per_frame(game, monkeypatch):
    """A frame's VP totals are those of the VP track up to its event for the viewer; the track is
    filtered again only when it changes (a public replay of 6,000 events filtered the whole track
    at every frame: seconds of a web worker for an anonymous GET /frames)."""
    from projections import folds

    rules = find_ruleset(game[0]["data"]["ruleset"])
    expected = {line["seq"]: folds.render_vp(folds.fold("vp", game[:n]), rules, None, line["game_id"])[0]
                for n, line in enumerate(game, start=1)}
    calls = []
    render_vp = folds.render_vp
    monkeypatch.setattr(folds, "render_vp", lambda *a, **k: calls.append(1) or render_vp(*a, **k))
    made = replay.frames(game, None)
    assert made["frames"] and all(f["vp"] == expected[f["seq"]] for f in made["frames"])
    changes = sum(1 for line in game if line["type"] in ("GameCreated", "VPScored", "TakeBackAccepted"))
    assert len(calls) <= changes < len(made["frames"])
