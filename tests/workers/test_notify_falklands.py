"""A Falklands Showdown decision owed mid-operation reaches its owner's notification (issue 6)."""

from __future__ import annotations

import hashlib

from domain.game import Game
from domain.verify import to_line
from workers import notify


def seed_for(epoch: int) -> bytes:
    return hashlib.sha256(f"notify-fs-{epoch}".encode()).digest()


def test_an_interception_or_fire_decision_is_mailed_to_the_uk_with_its_prompt():
    g = Game.create("falklands", seed_for=seed_for)
    g.join("UK", "uk", "", seed_for)
    g.join("AR", "ar", "", seed_for)
    g.submit("UK", "s", {"kind": "setup", "submarines": {"spartan": "falklands", "splendid": "sa7"}}, seed_for)
    fleet = [u for u, x in g.state["units"].items() if x["location"] == "sa4" and x["in_play"]]
    g.submit("UK", "o1", {"kind": "operation", "op": 20, "units": fleet, "destination": "falklands"}, seed_for)
    g.submit("UK", "o2", {"kind": "pass"}, seed_for)
    before = g.whose_move()
    a4s = [u for u in g.state["units"] if u.startswith("a4_")]
    g.submit("AR", "o3", {"kind": "operation", "op": 18, "area": "falklands", "aircraft": a4s,
                          "refuel": a4s, "fire": "auto"}, seed_for)
    pending = g.state["pending"][0]
    assert pending["seat"] == "UK" and pending["kind"] in ("interception", "defensive_fire")

    lines = [to_line(e) for e in g.pending_events]
    command = notify.commands(lines)[-1]
    told = notify.recipients(command, ["UK", "AR"], before, g.whose_move())
    assert told == {"UK": "decision"}
    summary = notify.build_summary(g.rules, str(g.id), notify.since_last_acted(lines, "UK"), viewer="UK",
                                   reason="decision", to_move=g.whose_move(), chain_head=g.chain_head,
                                   seq=g.version, public_url="http://warlog.test")
    subject, body = notify.email_text(summary)
    assert pending["prompt"] in body and "AR conducts Op #18" in body


def test_the_turn_mail_names_units_and_areas_as_the_game_does():
    """Issue 29 item 15: "Sheffield moved from Sea Area 4 to …", not ``sheffield`` … ``sa4``."""
    g = Game.create("falklands", seed_for=seed_for)
    g.join("UK", "uk", "", seed_for)
    g.join("AR", "ar", "", seed_for)
    g.submit("UK", "s", {"kind": "setup", "submarines": {"spartan": "falklands", "splendid": "sa7"}}, seed_for)
    before = len(g.pending_events)
    g.submit("UK", "o1", {"kind": "operation", "op": 20, "units": ["sheffield"], "destination": "sa7"}, seed_for)
    lines = [to_line(e) for e in g.pending_events]
    summary = notify.build_summary(g.rules, str(g.id), lines[before:], viewer="AR", reason="your_move",
                                   to_move=g.whose_move(), chain_head=g.chain_head, seq=g.version,
                                   public_url="http://warlog.test")
    subject, body = notify.email_text(summary)
    assert "Sheffield moved from Sea Area 4 to Sea Area 7" in body
    assert "sheffield" not in body and " sa4" not in body
