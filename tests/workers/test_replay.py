"""Replays as pure functions over a real game's log (SQLite): one frame per event, boundaries,
the viewer's filter, and an HTML page that works offline."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import make_app
from workers import replay


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


def test_the_html_page_is_self_contained(game):
    html = replay.replay_html(replay.frames(game, None))
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "<link" not in html and "@import" not in html and "url(" not in html
    assert html.count("<script") == 2  # the frames, and the player
    data = re.search(r'<script type="application/json" id="replay">(.*?)</script>', html, re.S).group(1)
    assert len(json.loads(data)["frames"]) == len(game)
    assert 'id="cursor"' in html  # the VP chart's step marker


def test_hostile_text_cannot_break_out_of_the_embedded_json(sqlite_config):
    app = make_app(sqlite_config)
    gid = app.create_game("freeform", options={"sides": ["Blue", "Red"]}).game_id
    app.join(gid, "Blue", "</script><script>alert(1)</script>", "x")
    html = replay.replay_html(replay.frames(app.lines(gid), None))
    app.close()
    assert "<script>alert(1)" not in html and html.count("</script>") == 2


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_steps_through_the_game(game, tmp_path):
    """The player script, run by node against a minimal stand-in DOM: every button moves to the
    frame it promises."""
    made = replay.frames(game, "umpire")
    page = tmp_path / "replay.html"
    page.write_text(replay.replay_html(made), encoding="utf-8")
    presses = ["next", "nextOp", "nextTurn", "nextTurn", "prevTurn", "prevOp", "prev", "last", "key:ArrowLeft",
               "first", "jump:10"]
    out = subprocess.run(["node", str(Path(__file__).with_name("replay_dom.js")), str(page), json.dumps(presses)],
                         capture_output=True, text=True, timeout=60, check=True)
    seen = json.loads(out.stdout)
    frames = made["frames"]
    at = [int(s["jump"]) for s in seen]
    turns = [i for i, f in enumerate(frames) if "turn" in f["marks"]]
    op_after_1 = next(i for i, f in enumerate(frames) if i > 1 and "operation" in f["marks"])
    prev_op = max(i for i, f in enumerate(frames) if i < turns[0] and "operation" in f["marks"])
    assert at == [0, 1, op_after_1, turns[0], turns[1], turns[0], prev_op, prev_op - 1,
                  len(frames) - 1, len(frames) - 2, 0, 10]
    assert seen[0]["line"].startswith("Game created") and seen[-1]["line"] == frames[10]["text"]
    assert "Turn 2" in seen[3]["where"] and "new turn" in seen[3]["marks"]
    for shown, n in zip(seen, at):
        assert shown["line"].startswith(frames[n]["text"])
        assert shown["dice"] == (len(frames[n]["dice"]["faces"]) + 1 if "dice" in frames[n] else 0)
    assert seen[-1]["cursor"] is not None
